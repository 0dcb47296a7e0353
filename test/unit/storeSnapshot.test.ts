import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Db } from '../../src/core/store/db';
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

test("a read-only connection's snapshot answers before its COMMIT ends, and the next snapshot waits for that COMMIT", async () => {
  const file = path.join(tempDir(), 's.sqlite');
  const store = await Store.open(file);
  const reader = await Db.open(file, { readonly: true });
  try {
    const count = () => reader.get<{ n: number }>('SELECT count(*) AS n FROM sources').then((r) => r!.n);
    assert.equal(await reader.snapshot(count), 0);
    // the answer came back with the read still ending: its COMMIT is under way (the MCP server's answers do not wait
    // for it), and the snapshot is over for its caller
    assert.equal(reader.ending, true);
    assert.equal(reader.inTransaction, false);
    await store.db.run("INSERT INTO sources(path, agent) VALUES ('/t/a.jsonl', 'claude-code')");
    // a new snapshot, so it sees the write: the read before it has ended
    assert.equal(await reader.snapshot(count), 1);
    // a connection that may write answers after its COMMIT
    assert.equal(await store.db.snapshot(() => store.db.get<{ n: number }>('SELECT count(*) AS n FROM sources').then((r) => r!.n)), 1);
    assert.equal(store.db.inTransaction, false);
  } finally {
    await reader.close();
    await store.close();
  }
});
