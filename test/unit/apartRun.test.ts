import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { CancellationSignal } from '../../src/core/cancellation';
import type { Embedder } from '../../src/core/embed/embedder';
import { RecallError } from '../../src/core/errors';
import type { IndexOptions, IndexProgress, IndexReport } from '../../src/core/indexer';
import { Memory } from '../../src/core/memory';
import { DiscoveryMemo } from '../../src/core/sources/discover';
import { Store } from '../../src/core/store/store';
import { runApart, runWorkerScript } from '../../src/core/workers/apartRun';
import { FIXTURES, tempDir } from './helpers';

/**
 * An index run on a thread of its own (IndexOptions.apart, core/workers/apartRun.ts) writes the store and gives the
 * report a run on the calling thread does; its progress, its embedding requests and the caller's cancellation cross;
 * a thread that cannot open the store or dies says so and loses nothing the store had committed.
 */
const discover = { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true };
const segment = { minChars: 100, maxPlies: 20 };
// the run's own parse and distill workers start for any work, as they do in a first index
const parallel = { threads: 1, minBytes: 0, minExchanges: 0 };

/** A model of 8 dimensions (letter counts), counting the texts it is asked for on the calling thread. */
function letterEmbedder(asked: { texts: number; onEmbed?: () => void }): Embedder {
  return {
    modelId: 'letters@1',
    dimension: 8,
    embed: async (texts) => {
      asked.texts += texts.length;
      asked.onEmbed?.();
      return texts.map((t) => {
        const v = new Float32Array(8);
        for (let i = 0; i < t.length; i++) v[t.charCodeAt(i) % 8]! += 1;
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
    dispose: async () => undefined,
  };
}

async function dumpStore(file: string): Promise<string[]> {
  const store = await Store.open(file);
  try {
    const dump: string[] = [];
    for (const s of await store.listExchanges()) {
      dump.push(JSON.stringify({ ...(await store.getExchange(s.exchangeId)), distilled: await store.getDistilled(s.exchangeId) }));
    }
    dump.push(JSON.stringify(await store.db.all('SELECT term, sum(df) AS df FROM lexicon_postings GROUP BY term ORDER BY term')));
    dump.push(JSON.stringify(await store.db.all('SELECT prompt FROM exchanges_fts ORDER BY prompt')));
    dump.push(JSON.stringify(await store.db.all('SELECT * FROM vector_rows ORDER BY layer, exchange_n')));
    dump.push(JSON.stringify(await store.db.all('SELECT path, agent, size, parsed_offset, last_error FROM sources ORDER BY path')));
    return dump;
  } finally {
    await store.close();
  }
}

/** The report without what varies run to run (times). */
function comparable(r: IndexReport): unknown {
  const { stages: _stages, parseMs: _parseMs, distill, discovered, ...rest } = r;
  return { ...rest, distill: distill && { ...distill, ms: 0 }, discovered: discovered?.map((s) => [s.path, s.adapter.agent, s.project ?? '']) };
}

async function indexOnce(file: string, apart: boolean, extra: Partial<IndexOptions> = {}, token?: CancellationSignal, asked = { texts: 0 }): Promise<{ report: IndexReport; phases: Set<string> }> {
  const memory = await Memory.open(file);
  const phases = new Set<string>();
  try {
    const report = await memory.index({ discover, segment, parallel, apart, embed: { embedder: letterEmbedder(asked) }, ...extra }, (p: IndexProgress) => phases.add(p.phase), token);
    return { report, phases };
  } finally {
    await memory.close();
  }
}

test('a run on its own thread gives the store and the report a run on the calling thread gives, its progress and embedding crossing', async () => {
  const hereFile = path.join(tempDir(), 'here.sqlite');
  const apartFile = path.join(tempDir(), 'apart.sqlite');
  const hereAsked = { texts: 0 };
  const apartAsked = { texts: 0 };
  const here = await indexOnce(hereFile, false, {}, undefined, hereAsked);
  const apart = await indexOnce(apartFile, true, {}, undefined, apartAsked);
  assert.ok(here.report.exchangesWritten > 20, `${here.report.exchangesWritten} exchanges`);
  assert.ok(Object.values(apart.report.embedded?.embedded ?? {}).some((n) => n > 0), 'vectors were made by the calling thread\'s model');
  assert.equal(apartAsked.texts, hereAsked.texts);
  assert.deepEqual(comparable(apart.report), comparable(here.report));
  assert.deepEqual([...apart.phases].sort(), [...here.phases].sort());
  assert.deepEqual(await dumpStore(apartFile), await dumpStore(hereFile));

  // the thread kept its discovery memo under the key the calling thread's next whole run reads (not its own bundle's)
  const kept = await Store.open(apartFile);
  const key = (await kept.db.get<{ key: string }>('SELECT key FROM discovery_memo_for'))?.key;
  await kept.close();
  assert.equal(key, DiscoveryMemo.storeKey(discover));
  const again = await indexOnce(apartFile, false);
  assert.equal(again.report.parsed, 0);
  assert.equal(again.report.unchanged, here.report.sources);
});

test('a memo made for another build keeps its entries under that build\'s key', () => {
  const options = { ...discover, extraRoots: [tempDir()] };
  assert.equal(new DiscoveryMemo('build-1').restoring(options), DiscoveryMemo.storeKey(options, 'build-1'));
  assert.notEqual(DiscoveryMemo.storeKey(options, 'build-1'), DiscoveryMemo.storeKey(options));
  assert.equal(new DiscoveryMemo().restoring(options), DiscoveryMemo.storeKey(options));
});

test('a cancellation crosses to the run\'s thread: asked before it starts, or while it embeds', async () => {
  const file = path.join(tempDir(), 'cancelled.sqlite');
  const before = await indexOnce(file, true, {}, { isCancellationRequested: true });
  assert.equal(before.report.cancelled, true);
  assert.equal(before.report.exchangesWritten, 0);

  // cancelled at the first batch to embed: the run ends between batches, what it wrote kept
  const token = { isCancellationRequested: false };
  const asked = { texts: 0, onEmbed: () => (token.isCancellationRequested = true) };
  const during = await indexOnce(file, true, {}, token, asked);
  assert.equal(during.report.cancelled, true);
  assert.ok(during.report.exchangesWritten > 20);
  const total = during.report.exchangesWritten;
  assert.ok(asked.texts > 0 && asked.texts < total, `${asked.texts} of ${total} embedded before it stopped`);

  // and the next run goes on from there to the store one whole run writes
  await indexOnce(file, true);
  const whole = path.join(tempDir(), 'whole.sqlite');
  await indexOnce(whole, false);
  assert.deepEqual(await dumpStore(file), await dumpStore(whole));
});

test('a run\'s thread that cannot open its store rejects with the store\'s error', async () => {
  const missing = path.join(tempDir(), 'nowhere', 'none.sqlite');
  await assert.rejects(runApart(missing, { discover, segment, apart: true }, () => undefined, { isCancellationRequested: false }), (err: unknown) => {
    assert.ok(err instanceof RecallError && err.code === 'store-io', String(err));
    assert.match((err as Error).message, /none\.sqlite/);
    return true;
  });
});

test('a run\'s thread that dies says so and loses nothing; one that cannot start leaves the run to the calling thread', async () => {
  // the real thread, stopped as distillation starts (its parse stage committed)
  const dying = path.join(tempDir(), 'dying.js');
  writeFileSync(
    dying,
    `const { parentPort } = require('node:worker_threads');
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m, t) => { post(m, t); if (m.kind === 'progress' && m.progress.phase === 'distill') process.exit(7); };
require(${JSON.stringify(runWorkerScript())});
`,
  );
  const file = path.join(tempDir(), 'died.sqlite');
  await assert.rejects(indexOnce(file, true, { parallel: { ...parallel, runScript: dying } }), /index run's thread stopped \(exit code 7\).*is kept/);
  const memory = await Memory.open(file);
  const written = (await memory.counts()).exchanges;
  await memory.close();
  assert.ok(written > 20, `${written} exchanges kept`);

  await indexOnce(file, true);
  const whole = path.join(tempDir(), 'whole2.sqlite');
  await indexOnce(whole, false);
  assert.deepEqual(await dumpStore(file), await dumpStore(whole));

  const noScript = path.join(tempDir(), 'noscript.sqlite');
  const fellBack = await indexOnce(noScript, true, { parallel: { ...parallel, runScript: path.join(tempDir(), 'missing.js') } });
  assert.deepEqual(fellBack.report.failed, []);
  assert.deepEqual(await dumpStore(noScript), await dumpStore(whole));
});

test("after a run on its own thread the offline distiller's tables are made ahead here, for the live runs that distill here next", async () => {
  // (the first live update after a first index apart made them: a search for the exchange it had just written waited)
  const offline = require('../../src/core/distill/offline') as { prepareOfflineTables: () => Promise<unknown> };
  const original = offline.prepareOfflineTables;
  let asked = 0;
  offline.prepareOfflineTables = () => {
    asked++;
    return original();
  };
  try {
    await indexOnce(path.join(tempDir(), 'undistilled.sqlite'), true, { distiller: false });
    assert.equal(asked, 0, 'a run that distills nothing: nothing here will');
    const { report } = await indexOnce(path.join(tempDir(), 'apart.sqlite'), true);
    assert.ok((report.distill?.distilled ?? 0) > 0);
    assert.equal(asked, 1, 'made ahead once the run apart has ended');
    await indexOnce(path.join(tempDir(), 'here.sqlite'), false);
    assert.equal(asked, 1, 'a run here makes them as it distills');
  } finally {
    offline.prepareOfflineTables = original;
  }
});
