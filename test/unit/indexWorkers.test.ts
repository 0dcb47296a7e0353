import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace } from '../../src/core/indexer';
import { Store } from '../../src/core/store/store';
import { PoolBroken, threadsForCores, WorkerPool } from '../../src/core/workers/pool';
import type { ParallelOptions } from '../../src/core/workers/runWorkers';
import { FIXTURES, tempDir } from './helpers';

/**
 * The index workers (core/workers) parse, segment, count and distill what the run's own thread would: the store
 * a run writes is the same whichever thread did the work, for every transcript form the fixtures hold.
 */
const segment = { minChars: 100, maxPlies: 20 };

async function indexFixtures(parallel: ParallelOptions): Promise<{ dump: string[]; report: Awaited<ReturnType<typeof indexWorkspace>> }> {
  const store = await Store.open(path.join(tempDir(), 'w.sqlite'));
  try {
    const report = await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true },
      segment,
      parallel,
    });
    const dump: string[] = [];
    for (const s of await store.listExchanges()) {
      const e = await store.getExchange(s.exchangeId);
      const d = await store.getDistilled(s.exchangeId);
      dump.push(JSON.stringify({ ...e, distilled: d }));
    }
    // BM25's index answers the same
    const hits = await store.db.all<{ term: string; df: number }>('SELECT term, sum(df) AS df FROM lexicon_postings GROUP BY term ORDER BY term');
    dump.push(JSON.stringify(hits));
    dump.push(JSON.stringify(await store.db.all('SELECT prompt FROM exchanges_fts ORDER BY prompt')));
    return { dump, report };
  } finally {
    await store.close();
  }
}

test('every fixture indexed on worker threads gives the store one thread gives', async () => {
  const here = await indexFixtures({ threads: 0 });
  const workers = await indexFixtures({ threads: 2, minBytes: 0, minExchanges: 0 });
  assert.ok(here.report.exchangesWritten > 20, `${here.report.exchangesWritten} exchanges`);
  assert.equal(workers.report.exchangesWritten, here.report.exchangesWritten);
  assert.equal(workers.report.distill?.distilled, here.report.distill?.distilled);
  assert.equal(workers.report.tokensCounted, here.report.tokensCounted);
  assert.deepEqual(workers.dump, here.dump);
});

test('workers that cannot start leave the work to the run thread, which loses nothing', async () => {
  const here = await indexFixtures({ threads: 0 });
  const broken = await indexFixtures({ threads: 2, minBytes: 0, minExchanges: 0, script: path.join(tempDir(), 'missing.js') });
  assert.deepEqual(broken.report.failed, []);
  assert.deepEqual(broken.dump, here.dump);
});

test('a pool without its script, or whose thread dies, rejects its tasks as broken', async () => {
  const missing = new WorkerPool(1, path.join(tempDir(), 'missing.js'));
  await assert.rejects(missing.run({ kind: 'count', texts: ['a'] }), PoolBroken);
  await missing.close();

  const pool = new WorkerPool(1);
  assert.deepEqual(await pool.run({ kind: 'count', texts: ['hello world', ''] }), [2, 0]);
  await pool.close();
  await assert.rejects(pool.run({ kind: 'count', texts: ['a'] }), PoolBroken, 'a closed pool runs nothing');
});

test('a task that needs more than a thread may hold fails alone, as broken (its caller does it), and a fresh thread runs the next', async () => {
  const pool = new WorkerPool(1, undefined, 16);
  try {
    // 48 MB of distinct strings to hold at once, in a thread allowed 16 MB
    const texts = Array.from({ length: 48 }, (_, i) => `${i} `.repeat(512 * 1024));
    await assert.rejects(pool.run({ kind: 'count', texts }), PoolBroken);
    assert.deepEqual(await pool.run({ kind: 'count', texts: ['within the cap'] }), [3]);
  } finally {
    await pool.close();
  }
});

test('a task that fails in a worker fails alone, with its message', async () => {
  const pool = new WorkerPool(1);
  try {
    await assert.rejects(
      pool.run({ kind: 'prepare', file: path.join(tempDir(), 'gone.jsonl'), adapter: 0, segment }),
      (err: Error) => !(err instanceof PoolBroken) && /ENOENT|no such file/.test(err.message),
    );
    assert.deepEqual(await pool.run({ kind: 'count', texts: ['still here'] }), [2]);
  } finally {
    await pool.close();
  }
});

test('workers by cores: one core is left to the run\'s own thread, at least one worker, at most four', () => {
  assert.deepEqual([1, 2, 3, 4, 8, 64].map(threadsForCores), [1, 1, 2, 3, 4, 4]);
});
