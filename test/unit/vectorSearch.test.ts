import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Embedder } from '../../src/core/embed/embedder';
import { chunkText, embedStore } from '../../src/core/embed/stage';
import { TransformersEmbedder } from '../../src/core/embed/transformersEmbedder';
import { storedVectorSpace } from '../../src/core/store/vectorStore';
import { LAYERS } from '../../src/core/search/modes';
import { NOT_EMBEDDED_YET, recall } from '../../src/core/recall';
import { createSearcher } from '../../src/core/search/searcher';
import type { SearchResult } from '../../src/core/search/types';
import { CONVERSATIONS, distillFixture, type Fixture, openFixture, writeConversation } from './searchFixture';

const ROOT = path.resolve(__dirname, '../../..');
const MODEL = path.join(ROOT, '.cache/models/wink-static-100d');

function ensureModel(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'test/model/buildStaticModel.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the test model failed: ${r.stderr || r.error?.message}`);
}

/** The same real model under another id: what the store sees when the user switches models. */
function renamed(embedder: Embedder, modelId: string): Embedder {
  return { modelId, dimension: embedder.dimension, embed: (t) => embedder.embed(t), dispose: async () => undefined };
}

describe('embedding stage and vector search (local static model)', () => {
  let embedder: TransformersEmbedder;
  let fx: Fixture;
  const keysOf = (r: SearchResult) => r.hits.map((h) => fx.keys.get(h.exchangeId));

  before(async () => {
    ensureModel();
    embedder = await TransformersEmbedder.load({ model: MODEL });
    fx = await openFixture();
  });
  after(async () => {
    await fx?.store.close();
    await embedder?.dispose();
  });

  test('embeds every distilled exchange on each layer and every exchange in verbatim chunks; a rerun has nothing to do', async () => {
    const progress: string[] = [];
    const report = await embedStore(fx.store, embedder, { layers: LAYERS }, (p) => progress.push(`${p.layer} ${p.done}/${p.total}`));
    assert.equal(report.reset, false);
    assert.deepEqual(report.embedded, { verbatim: 6, core: 4, 'core+files': 4, 'core+rooms': 4, 'all-facets': 4 });
    assert.equal(report.chunks, 6);
    assert.ok(progress.includes('core 4/4'), progress.join(', '));
    assert.deepEqual(await storedVectorSpace(fx.store.db), { modelId: 'local:wink-static-100d', dimension: 100 });
    const again = await embedStore(fx.store, embedder, { layers: LAYERS });
    assert.deepEqual(again.embedded, {});
    assert.deepEqual((await fx.store.check()).problems, []);
  });

  test('core/vector ranks by meaning of the distilled text; scores are cosines', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const r = await searcher.search({ text: 'growing vegetables in the garden', mode: 'core/vector' });
    assert.equal(r.semantic, true);
    assert.equal(r.notice, undefined);
    assert.equal(keysOf(r)[0], 'c1');
    assert.equal(r.hits.length, 4, 'every distilled exchange has a vector');
    for (const h of r.hits) assert.ok(h.parts[0]!.score <= 1 && h.parts[0]!.score >= -1);
    const db = await searcher.search({ text: 'database schema migration broke', mode: 'core/vector' });
    assert.equal(keysOf(db)[0], 'b1');
  });

  test('verbatim/vector finds undistilled exchanges through their chunks', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const r = await searcher.search({ text: 'stale cookie broke the login page', mode: 'verbatim/vector', perConversation: 5 });
    assert.equal(r.hits.length, 6);
    assert.ok(['a3', 'a1'].includes(keysOf(r)[0]!), keysOf(r).join(','));
  });

  test('cross-layer modes fuse both signals and report both parts', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const r = await searcher.search({ text: 'tomatoes', mode: 'bm25(v)+vec(d)', fusion: 'combmnz' });
    assert.equal(keysOf(r)[0], 'c1');
    assert.deepEqual(r.hits[0]!.parts.map((p) => p.signal), ['bm25(verbatim)', 'vector(core)']);
    const three = await searcher.search({ text: 'tomatoes', mode: '3-signal', fusion: 'adaptive' });
    assert.equal(keysOf(three)[0], 'c1');
    assert.equal(three.hits[0]!.parts.length, 3);
  });

  test('selective: BM25 alone when its answer is confident (the query not even embedded), the weighted fusion when not', async () => {
    let embedded = 0;
    const counting: Embedder = { ...renamed(embedder, embedder.modelId), embed: (t) => (embedded++, embedder.embed(t)) };
    const searcher = createSearcher(fx.reads, counting);
    const lexical = createSearcher(fx.reads);
    const shown = (r: SearchResult) => r.hits.map((h) => [fx.keys.get(h.exchangeId), h.score, h.parts.map((p) => p.signal).join('+'), h.confidence]);

    // "tomatoes": c1 alone holds it. One word is too few for the label to be sure (`medium`), but selective trusts
    // BM25's answer to it alone (SELECTIVE_TRUST: fusing short queries' answers lost MRR, issue 42)
    const sure = await lexical.search({ text: 'tomatoes', mode: 'verbatim/bm25' });
    assert.equal(sure.confidence, 'medium');
    const alone = await searcher.search({ text: 'tomatoes', mode: 'bm25(v)+vec(d)', fusion: 'selective' });
    assert.deepEqual(shown(alone), shown(sure));
    assert.equal(alone.semantic, true, 'semantic search was available; it was not needed');
    assert.equal(embedded, 0, 'a confident lexical answer needs no query vector');

    // c1 holds one of the four words: not a confident answer
    const unsure = await lexical.search({ text: 'tomatoes vegetables stew soup', mode: 'verbatim/bm25' });
    assert.notEqual(unsure.confidence, 'high');
    const fused = await searcher.search({ text: 'tomatoes vegetables stew soup', mode: 'bm25(v)+vec(d)', fusion: 'selective' });
    const weighted = await searcher.search({ text: 'tomatoes vegetables stew soup', mode: 'bm25(v)+vec(d)', fusion: 'weighted:0.8' });
    assert.deepEqual(shown(fused), shown(weighted));
    assert.ok(fused.hits.some((h) => h.parts.some((p) => p.signal === 'vector(core)')), 'the vectors took part');
    assert.equal(embedded, 2);
  });

  test('a query word in no exchange: the first hit holding the others is not confident, and selective asks the vectors', async () => {
    let embedded = 0;
    const counting: Embedder = { ...renamed(embedder, embedder.modelId), embed: (t) => (embedded++, embedder.embed(t)) };
    // the second word is nowhere (as "refresh" in issue 42's "token refresh"): c1 holds half the words, far ahead of
    // any other; before, that first hit was `high` and the vectors were never asked
    const lexical = await createSearcher(fx.reads).search({ text: 'tomatoes zqxwvy', mode: 'verbatim/bm25' });
    assert.equal(fx.keys.get(lexical.hits[0]!.exchangeId), 'c1');
    assert.equal(lexical.confidence, 'medium');
    const selective = await createSearcher(fx.reads, counting).search({ text: 'tomatoes zqxwvy', mode: 'bm25(v)+vec(d)', fusion: 'selective' });
    assert.equal(embedded, 1, 'the query was embedded');
    assert.ok(selective.hits.some((h) => h.parts.some((p) => p.signal === 'vector(core)')), 'the vectors took part');
    assert.notEqual(selective.confidence, 'high');
  });

  test('with a model, a query that names no mode runs bm25(v)+vec(d), selectively; without one, verbatim/bm25', async () => {
    const semantic = await createSearcher(fx.reads, embedder).search({ text: 'tomatoes' });
    assert.deepEqual([semantic.mode, semantic.fusion, semantic.semantic], ['bm25(v)+vec(d)', 'selective', true]);
    const plain = await createSearcher(fx.reads).search({ text: 'tomatoes' });
    assert.deepEqual([plain.mode, plain.semantic], ['verbatim/bm25', false]);
  });

  test('fused modes: a hit only the vectors found, holding no query word, goes below the hits that match', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    // a3 and c2 (not distilled) hold the words; the distilled exchanges, found by their vectors alone, hold none
    const r = await searcher.search({ text: 'stale cookie publish', mode: 'bm25(v)+vec(d)', fusion: 'weighted:0.8' });
    const keys = keysOf(r);
    assert.deepEqual(keys.slice(0, 2), ['a3', 'c2']);
    assert.ok(keys.length > 2, 'moved down, not dropped');
    for (const h of r.hits.slice(2)) {
      assert.deepEqual(h.matchedTerms, []);
      assert.deepEqual(h.parts.map((p) => p.signal), ['vector(core)']);
    }
  });

  test('filters and "not these" apply to vector signals too', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const r = await searcher.search({ text: 'tomatoes garden', mode: 'core/vector', filters: { agents: ['codex'] } });
    assert.deepEqual(keysOf(r), ['b1']);
    const ex = await searcher.search({ text: 'tomatoes garden', mode: 'core/vector', exclude: [fx.ids.get('c1')!] });
    assert.ok(!keysOf(ex).includes('c1'));
    const chunks = await searcher.search({ text: 'tomatoes garden', mode: 'verbatim/vector', filters: { project: '/p/blog' } });
    assert.deepEqual(new Set(keysOf(chunks)), new Set(['c1', 'c2']));
  });

  test('hostile and empty queries are inert in vector and fused modes', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    for (const text of ['', '   ', '"', 'NEAR(a b)', 'core: x', '*', '^x', "'; DROP TABLE vec_core; --", 'zqxwv', 'x'.repeat(10_000)]) {
      for (const mode of ['core/vector', 'verbatim/vector', 'bm25(v)+vec(d)', '3-signal'] as const) {
        const r = await searcher.search({ text, mode, fusion: 'adaptive' });
        assert.ok(Array.isArray(r.hits), `${mode}: ${text.slice(0, 20)}`);
      }
    }
    // a text with no known word embeds to the zero vector: it finds nothing rather than everything equally
    assert.equal((await searcher.search({ text: 'zqxwv', mode: 'core/vector' })).hits.length, 0);
    assert.equal((await fx.store.stats()).exchanges, 6);
  });

  test('a searcher whose model differs from the stored vectors falls back to lexical and says why', async () => {
    const searcher = createSearcher(fx.reads, renamed(embedder, 'local:other-model'));
    const r = await searcher.search({ text: 'tomatoes', mode: 'bm25(v)+vec(d)' });
    assert.equal(r.semantic, false);
    assert.match(r.notice ?? '', /local:wink-static-100d.*re-index/);
    assert.equal(r.wordsOnly, 'not-embedded');
    assert.deepEqual(keysOf(r), ['c1']);
    // the recall panel tells a person what happens next, not which mode fell back to which signal
    const answer = await recall((q) => searcher.search(q), { text: 'tomatoes' });
    assert.equal(answer.notice, NOT_EMBEDDED_YET);
  });

  test('words only, and why: no model, a model that fails on the query; nothing said when vectors took part', async () => {
    const none = await createSearcher(fx.reads).search({ text: 'tomatoes', mode: 'bm25(v)+vec(d)' });
    assert.equal(none.wordsOnly, 'no-model');
    const failing: Embedder = { ...renamed(embedder, embedder.modelId), embed: () => Promise.reject(new Error('the model crashed')) };
    const failed = await createSearcher(fx.reads, failing).search({ text: 'tomatoes', mode: 'core/vector' });
    assert.deepEqual([failed.wordsOnly, failed.semantic], ['model-failed', false]);
    assert.match(failed.notice ?? '', /the model crashed/);
    const answer = await recall((q) => createSearcher(fx.reads, failing).search({ ...q, mode: 'core/vector' }), { text: 'tomatoes' });
    assert.match(answer.notice ?? '', /the model crashed/, 'other reasons keep their own words');
    const fine = await createSearcher(fx.reads, embedder).search({ text: 'tomatoes', mode: 'core/vector' });
    assert.equal(fine.wordsOnly, undefined);
    assert.equal(fine.notice, undefined);
  });

  test('deleted and re-distilled exchanges: vectors never outlive their text, check() sees it, the stage repairs it', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    // rewrite the shop conversation without a1 and a2 (a re-index of a rewritten transcript)
    const shop = CONVERSATIONS[0]!;
    await writeConversation(fx.store, fx.dir, { ...shop, exchanges: shop.exchanges.filter((x) => x.key === 'a3') });
    const report = await fx.store.check();
    assert.ok(report.problems.some((p) => /core vectors have no current exchange/.test(p)), report.problems.join('; '));
    const r = await searcher.search({ text: 'null pointer login crash', mode: 'core/vector', perConversation: 5 });
    assert.ok(!keysOf(r).includes('a1') && !keysOf(r).includes(undefined), 'no stale vector is returned');
    const swept = await embedStore(fx.store, embedder, { layers: LAYERS });
    assert.ok(swept.orphansRemoved >= 8, `removed ${swept.orphansRemoved}`);
    assert.deepEqual((await fx.store.check()).problems, []);

    // a1 comes back (new row number) and is distilled again: the stage embeds it, search finds it again
    await writeConversation(fx.store, fx.dir, shop, fx.ids, fx.keys);
    await distillFixture(fx.store, [shop]);
    const back = await embedStore(fx.store, embedder, { layers: LAYERS });
    assert.equal(back.embedded.core, 2);
    assert.deepEqual((await fx.store.check()).problems, []);
    const found = await searcher.search({ text: 'null pointer login crash', mode: 'core/vector', perConversation: 5 });
    assert.equal(keysOf(found)[0], 'a1');
  });

  test('a lost vector: check() reports it, repair() unmarks it, the stage embeds it again', async () => {
    const row = await fx.store.db.get<{ n: number }>("SELECT exchange_n AS n FROM vector_rows WHERE layer = 'core' LIMIT 1");
    await fx.store.db.run('DELETE FROM vec_core WHERE rowid = ?', [row!.n]);
    const report = await fx.store.check();
    assert.ok(report.problems.some((p) => /1 core rows are marked embedded but have no vector/.test(p)), report.problems.join('; '));
    await fx.store.repair();
    assert.deepEqual((await fx.store.check()).problems, []);
    const again = await embedStore(fx.store, embedder, { layers: ['core'] });
    assert.equal(again.embedded.core, 1);
  });

  test('a model change drops the old vectors and embeds everything again (never mixes spaces)', async () => {
    const other = renamed(embedder, 'local:other-model');
    const report = await embedStore(fx.store, other, { layers: ['core'] });
    assert.equal(report.reset, true);
    assert.equal(report.embedded.core, 4);
    assert.deepEqual(await storedVectorSpace(fx.store.db), { modelId: 'local:other-model', dimension: 100 });
    const rows = await fx.store.db.get<{ c: number }>("SELECT count(*) AS c FROM vector_rows WHERE layer <> 'core'");
    assert.equal(rows?.c, 0, 'other layers were dropped with the old space');
    const r = await createSearcher(fx.reads, other).search({ text: 'tomatoes garden', mode: 'core/vector' });
    assert.equal(r.semantic, true);
    // the old model's name no longer matches
    const old = await createSearcher(fx.reads, embedder).search({ text: 'tomatoes', mode: 'core/vector' });
    assert.equal(old.semantic, false);
  });

  test('the stage is cancellable between batches and resumes where it stopped', async () => {
    const other = renamed(embedder, 'local:resume-test');
    const token = { isCancellationRequested: false };
    const first = await embedStore(fx.store, other, { layers: ['core'], batchSize: 1 }, (p) => {
      if (p.done >= 1) token.isCancellationRequested = true;
    }, token);
    assert.equal(first.cancelled, true);
    assert.equal(first.embedded.core, 1);
    const rest = await embedStore(fx.store, other, { layers: ['core'], batchSize: 1 });
    assert.equal(rest.cancelled, false);
    assert.equal(rest.reset, false, 'same model: nothing is dropped');
    assert.equal(rest.embedded.core, 3);
    assert.deepEqual((await fx.store.check()).problems, []);
  });

  test('chunks: ~1,500 characters cut at whitespace, capped', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(text);
    assert.ok(chunks.length >= 5 && chunks.every((c) => c.length <= 1500));
    assert.equal(chunks.join(' '), text);
    assert.equal(chunkText('x'.repeat(10_000), 1500, 3).length, 3);
    assert.deepEqual(chunkText(''), ['']);
  });
});
