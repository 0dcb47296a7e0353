import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

test('stats is one snapshot: a write transaction in progress on the same connection is never seen half-way', async () => {
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const writing = store.db.transaction(async () => {
      const { lastID } = await store.db.run("INSERT INTO sources(path, agent) VALUES ('/t/a.jsonl', 'claude-code')");
      await gate; // an indexing run between two statements of its transaction
      await store.db.run("INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c1', ?, 'claude-code', 's1', 1)", [lastID]);
      await store.db.run(
        `INSERT INTO exchanges(id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
         VALUES ('e1', 'c1', ?, 0, 0, 1, 1, 2, 0, 'why', 'User: why\nAssistant: because')`,
        [lastID],
      );
    });
    const stats = store.stats();
    await new Promise((r) => setTimeout(r, 50));
    release();
    await writing;
    const s = await stats;
    assert.deepEqual([s.sources, s.conversations, s.exchanges], [1, 1, 1]);
  } finally {
    await store.close();
  }
});
