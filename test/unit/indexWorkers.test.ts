import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources, indexWorkspace } from '../../src/core/indexer';
import { decodeSource, type EncodedSource, prepareSource } from '../../src/core/prepareSource';
import { readSource, type SameBytes } from '../../src/core/sourceRead';
import { claudeCodeAdapter } from '../../src/core/sources/claudeCode';
import { cursorAdapter } from '../../src/core/sources/cursor';
import { ADAPTERS } from '../../src/core/sources/registry';
import { Store } from '../../src/core/store/store';
import { PoolBroken, threadsForCores, WorkerPool } from '../../src/core/workers/pool';
import { type ParallelOptions, RunWorkers } from '../../src/core/workers/runWorkers';
import { appendBubble, writeCursorUserData } from './cursorFixture';
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

/** A Claude Code session of `exchanges` exchanges, each prompt and answer some 2 KB. */
function longSession(file: string, exchanges: number): void {
  const lines: string[] = [];
  for (let i = 0; i < exchanges; i++) {
    const base = { sessionId: 's', cwd: '/p', version: '2.1.12', isSidechain: false, userType: 'external' };
    const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const words = `the cache of step ${i} loses entries after a restart `.repeat(40);
    lines.push(JSON.stringify({ ...base, type: 'user', uuid: `u${i}`, timestamp: at, message: { role: 'user', content: `Why does ${words}?` } }));
    lines.push(JSON.stringify({ ...base, type: 'assistant', uuid: `a${i}`, timestamp: at, message: { id: `m${i}`, type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: `Because ${words}.` }] } }));
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

test('a thread reads the next source while it prepares one: a quick answer is not held behind a long one, each goes to its own task', async () => {
  const dir = tempDir();
  const long = path.join(dir, 'long.jsonl');
  longSession(long, 1500);
  const pool = new WorkerPool(1);
  try {
    const adapter = ADAPTERS.indexOf(claudeCodeAdapter);
    const settled: string[] = [];
    const first = pool.run({ kind: 'prepare', file: long, adapter, segment }).finally(() => settled.push('long'));
    const second = pool.run({ kind: 'prepare', file: path.join(dir, 'gone.jsonl'), adapter, segment }).finally(() => settled.push('gone'));
    const [prepared, gone] = await Promise.allSettled([first, second]);
    // one task at a time, the missing file's was posted only once the long one had been answered
    assert.deepEqual(settled, ['gone', 'long']);
    assert.equal(prepared.status, 'fulfilled');
    const value = (prepared as PromiseFulfilledResult<EncodedSource | 'unchanged' | SameBytes>).value;
    assert.ok(typeof value === 'object' && 'encoded' in value);
    assert.equal(decodeSource(value).write.exchanges.length, 1500);
    assert.equal(gone.status, 'rejected');
    assert.match(((gone as PromiseRejectedResult).reason as Error).message, /ENOENT|no such file/);
    // a task of another kind waits for the thread to be free, then runs
    assert.deepEqual(await pool.run({ kind: 'count', texts: ['still here'] }), [2]);
  } finally {
    await pool.close();
  }
});

test('a worker\'s prepared source comes back as bytes, moved, not copied, and decodes to what this thread prepares', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'long.jsonl');
  longSession(file, 40);
  const pool = new WorkerPool(1);
  try {
    const adapter = ADAPTERS.indexOf(claudeCodeAdapter);
    const posted = await pool.run({ kind: 'prepare', file, adapter, segment });
    // bytes waiting for their group hold no objects on this thread's heap (issue 41: its young collections)
    assert.ok(typeof posted === 'object' && 'encoded' in posted && posted.encoded instanceof Uint8Array, 'posted as bytes');
    const read = await readSource(file, undefined, claudeCodeAdapter);
    assert.ok(read !== 'unchanged' && !('sameBytes' in read));
    const here = prepareSource(file, claudeCodeAdapter, segment, read, { keepReplay: false });
    const decoded = decodeSource(posted);
    assert.equal(decoded.bytes, here.bytes);
    assert.deepEqual(decoded.write, here.write);
    // decoded once: its bytes are let go (their buffer detached), not kept beside the objects made of them
    assert.equal(posted.encoded.byteLength, 0);
  } finally {
    await pool.close();
  }
});

test('workers by cores: one core is left to the run\'s own thread, at least one worker, at most four', () => {
  assert.deepEqual([1, 2, 3, 4, 8, 64].map(threadsForCores), [1, 1, 2, 3, 4, 4]);
});

test('a database counts by what its read brings to parse, not its size: a write that changes no conversation starts no worker', async () => {
  const { db, writer } = await writeCursorUserData(tempDir('cursor-workers-'));
  const store = await Store.open(path.join(tempDir(), 'w.sqlite'));
  // from one byte to parse on, the run's sources go to a worker; distillation and counts stay here
  const run = async (minBytes = 1): Promise<{ started: boolean; written: number }> => {
    const workers = new RunWorkers({ threads: 1, minBytes, minExchanges: Number.MAX_SAFE_INTEGER });
    try {
      const pass = await indexSources(store, [{ path: db, adapter: cursorAdapter }], { ...segment, workspaceRoot: '/home/dev/tidepool' }, undefined, undefined, workers);
      assert.deepEqual(pass.failed, []);
      return { started: workers.started, written: pass.exchangesWritten };
    } finally {
      await workers.close();
    }
  };
  try {
    const first = await run();
    assert.ok(first.started && first.written > 0, 'the first read brings every conversation: a worker parses them');
    // Cursor writes its UI state into the same database all the time
    await writer.run('INSERT INTO ItemTable(key, value) VALUES (?, ?)', ['workbench.panel.state', 'x'.repeat(1000)]);
    assert.deepEqual(await run(), { started: false, written: 0 }, 'no conversation changed: nothing to parse, no worker');
    await appendBubble(writer, 'a-u3', { type: 1, bubbleId: 'a-u3', text: 'Also label the lowest tide with its time on the chart, in the local time zone.' });
    await appendBubble(writer, 'a-r3', { type: 2, bubbleId: 'a-r3', text: 'The lowest point now carries a label with its local time, formatted with the harbour time zone.' });
    assert.deepEqual(await run(1024 * 1024), { started: false, written: 1 }, 'one conversation changed, under the bytes worth a worker: parsed here');
    await appendBubble(writer, 'a-u4', { type: 1, bubbleId: 'a-u4', text: 'And give the highest tide the same label, placed above the curve so that it never hides the line.' });
    await appendBubble(writer, 'a-r4', { type: 2, bubbleId: 'a-r4', text: 'The highest point now has the same label, drawn above the curve with a small offset so the line stays visible.' });
    assert.deepEqual(await run(), { started: true, written: 1 }, 'one conversation changed, bytes enough: a worker parses it');
  } finally {
    await writer.close();
    await store.close();
  }
});
