import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Db } from '../../src/core/store/db';
import { migrate } from '../../src/core/store/schema';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

/** How SQLite runs `sql` (EXPLAIN QUERY PLAN's details, one line). */
async function plan(file: string, sql: string, params: ReadonlyArray<number> = []): Promise<string> {
  // on a connection of its own: the EXPLAIN statement stays prepared, and a migration's DROP TABLE would find it in progress
  const db = await Db.open(file);
  try {
    return (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail).join('; ');
  } finally {
    await db.close();
  }
}

test('schema 29: the exchanges without a token count are found through their own index, and the counts are the same', async () => {
  const file = path.join(tempDir(), 'v26.sqlite');
  const db = await Db.open(file);
  try {
    await db.exec('PRAGMA foreign_keys = ON');
    assert.equal(await migrate(db, 26), 0);
    await db.run(`INSERT INTO sources(id, path, agent) VALUES (1, '/t/s.jsonl', 'claude-code')`);
    await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c1', 1, 'claude-code', 's1', 1)`);
    for (let n = 1; n <= 40; n++) {
      await db.run(
        `INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim, verbatim_tokens)
         VALUES (?, ?, 'c1', 1, 0, 0, 1, ?, ?, ?, 'hello', 'User: hello', ?)`,
        [n, `ex-${n}`, n, n, n * 100, n % 4 === 0 ? null : 7],
      );
    }
    const count = 'SELECT count(*) AS c FROM exchanges WHERE verbatim_tokens IS NULL';
    assert.doesNotMatch(await plan(file, count), /exchanges_uncounted/);
    assert.equal(await migrate(db), 26);
    assert.match(await plan(file, count), /USING (COVERING )?INDEX exchanges_uncounted/);
  } finally {
    await db.close();
  }
  const store = await Store.open(file);
  try {
    assert.equal(await store.countWithoutTokens(), 10);
    assert.deepEqual((await store.exchangesWithoutTokens(3, 8)).map((e) => e.n), [12, 16, 20]);
    assert.deepEqual(await store.uncountedBetween(1, 9), [4, 8]);
    await store.setTokenCounts([{ n: 4, id: 'ex-4', tokens: 3 }]);
    assert.equal(await store.countWithoutTokens(), 9, 'a count written leaves the index');
  } finally {
    await store.close();
  }
});
