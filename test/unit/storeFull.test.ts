import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { RecallError } from '../../src/core/errors';
import { indexSources } from '../../src/core/indexer';
import { discoverSources } from '../../src/core/sources/discover';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

// A full disk, made portable: SQLite answers SQLITE_FULL, as it does when the disk has no room, once a connection's
// database would pass `max_page_count` pages.
async function roomFor(db: Db, pages: number): Promise<void> {
  const { page_count } = (await db.get<{ page_count: number }>('PRAGMA page_count'))!;
  await db.exec(`PRAGMA max_page_count = ${page_count + pages}`);
}

const segment = { minChars: 100, maxPlies: 20 };

test('a full disk stops an index run with a message naming the store; the next run finishes it as one run would', async () => {
  const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true });
  const dir = tempDir();
  const whole = await Store.open(path.join(dir, 'whole.sqlite'));
  const file = path.join(dir, 'full.sqlite');
  const full = await Store.open(file);
  try {
    await indexSources(whole, sources, segment);
    await roomFor(full.db, 10);
    await assert.rejects(indexSources(full, sources, segment), (err: unknown) => {
      assert.ok(err instanceof RecallError, String(err));
      assert.equal(err.code, 'store-full');
      assert.ok(err.message.includes(file) && /full/.test(err.message), err.message);
      return true;
    });
    const stopped = (await full.stats()).exchanges;
    assert.ok(stopped < (await whole.stats()).exchanges, 'the run stopped part way');

    await roomFor(full.db, 1_000_000);
    const again = await indexSources(full, sources, segment);
    assert.deepEqual(again.failed, [], 'no source was recorded as failed');
    const ids = async (s: Store): Promise<string[]> => (await s.listExchanges()).map((e) => e.exchangeId).sort();
    assert.deepEqual(await ids(full), await ids(whole));
  } finally {
    await whole.close();
    await full.close();
  }
});

test('a write with no room is rolled back whole and says so; other errors keep their own message', async () => {
  const file = path.join(tempDir(), 'db.sqlite');
  const db = await Db.open(file);
  try {
    await db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)');
    await db.run('INSERT INTO t VALUES (1, ?)', [Buffer.alloc(100)]);
    await roomFor(db, 2);
    await assert.rejects(
      db.transaction(async () => {
        await db.run('INSERT INTO t VALUES (2, ?)', [Buffer.alloc(100)]);
        await db.run('INSERT INTO t VALUES (3, ?)', [Buffer.alloc(64 * 1024)]);
      }),
      (err: unknown) => err instanceof RecallError && err.code === 'store-full' && err.message.includes(file),
    );
    assert.deepEqual(await db.all('SELECT k FROM t'), [{ k: 1 }], 'the transaction left nothing behind');
    await assert.rejects(db.run('INSERT INTO t VALUES (1, NULL)'), (err: unknown) => !(err instanceof RecallError) && /UNIQUE/.test(String(err)));
  } finally {
    await db.close();
  }
});
