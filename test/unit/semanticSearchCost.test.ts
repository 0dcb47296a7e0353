import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { embedStore } from '../../src/core/embed/stage';
import { ScopedMemory } from '../../src/mcp/scopedMemory';
import { Memory } from '../../src/core/memory';
import { WordVectorEmbedder } from '../../src/core/embed/wordVectorEmbedder';
import { BOUNDED_FROM, boundFromSample, DistanceBounds, SAMPLE_SIZE } from '../../src/core/search/distanceBound';
import { createSearcher } from '../../src/core/search/searcher';
import type { Hit, SearchResult } from '../../src/core/search/types';
import { vectorSearch } from '../../src/core/search/vector';
import { VectorCopies } from '../../src/core/search/vectorCopies';
import { SearchReads } from '../../src/core/store/searchReads';
import { type LayerVectors, layerVectors, sampleVectors, sweepOrphanVectors } from '../../src/core/store/vectorStore';
import { fromBlob, nearest, putVector, type VectorHit } from '../../src/core/store/vectors';
import { statementsOf, storeStatementsOf } from './helpers';
import { type FixtureExchange, type Fixture, openFixture } from './searchFixture';

const ROOT = path.resolve(__dirname, '../../..');
/** The distance bound's sample statement (vectorStore.ts sampleVectors). */
const SAMPLING = /wanted\(rid\)/;
const BUILTIN = path.join(ROOT, 'dist/models/word-vectors-100d');

/** A small deterministic generator (mulberry32), so the store is the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'database schema migration index query cache login session cookie token password garden tomato soil water ' +
  'harvest recipe curry spice oven bread flour render canvas pixel shader texture docker container image volume ' +
  'network proxy deploy release branch commit merge rebase conflict test fixture mock assert parser grammar token ' +
  'lexer compiler music guitar chord melody rhythm travel train ticket hotel museum invoice payment refund tax'
).split(' ');

/** A query of three of WORDS, drawn by `next`. */
function threeWords(next: () => number): string {
  return Array.from({ length: 3 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

/** `count` distilled exchanges, each about a few random words. */
function exchanges(count: number): FixtureExchange[] {
  const next = random(7);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 4 }, pick).join(' ');
    return {
      key: `x${i}`,
      text: `User: about ${words}\nAssistant: done ${i}.`,
      startedAt: '2025-01-01T00:00:00Z',
      distilled: { core: `Worked on ${words}.`, context: `item ${i}`, rooms: [] },
    };
  });
}

/**
 * Two rankings alike but for float rounding: the same values, within `tolerance`, rank by rank, and the same ids,
 * but where two values are that close (vec0 and the copy sum a distance's terms in another order).
 */
function sameUpToTies<T>(got: ReadonlyArray<{ id: T; value: number }>, want: ReadonlyArray<{ id: T; value: number }>, tolerance: number, message: string): void {
  assert.equal(got.length, want.length, message);
  const near = (a: number, b: number) => Math.abs(a - b) < tolerance;
  got.forEach((g, i) => {
    const w = want[i]!;
    assert.ok(near(g.value, w.value), `${message}: rank ${i + 1} at ${g.value}, not ${w.value}`);
    if (g.id === w.id) return;
    const there = got.find((o) => o.id === w.id);
    // swapped with a tie, or a tie at the end of the list taken instead
    assert.ok(there ? near(there.value, g.value) : near(w.value, want.at(-1)!.value), `${message}: rank ${i + 1} is ${String(g.id)}, not ${String(w.id)}`);
  });
  assert.ok(got.filter((g, i) => g.id !== want[i]!.id).length <= got.length / 10, `${message}: a tenth or more of the ranks differ`);
}

describe('the distance bound of a KNN query (exact, cheaper)', () => {
  test('j = mu + 4 sqrt(mu) + 3 of the sample, where mu of the k nearest are expected; none when k is most of the layer', () => {
    const sorted = Array.from({ length: 1024 }, (_, i) => i / 1024);
    // 50,000 vectors, k = 100: mu = 2.05, j = ceil(2.05 + 5.72 + 3) = 11
    assert.equal(boundFromSample(sorted, 50_000, 100), sorted[10]);
    // 2,000 vectors: mu = 51.2, j = ceil(51.2 + 28.6 + 3) = 83
    assert.equal(boundFromSample(sorted, 2_000, 100), sorted[82]);
    assert.equal(boundFromSample(sorted, 100, 100), undefined, 'k is the whole layer');
    assert.equal(boundFromSample(sorted.slice(0, 10), 200, 100), undefined, 'j beyond the sample');
    assert.equal(boundFromSample([], 50_000, 100), undefined, 'no sample');
  });
});

describe('semantic search at a larger store: the bound and the plan (built-in model)', () => {
  let embedder: WordVectorEmbedder;
  let fx: Fixture;
  // twice the sample: the sample is every second vector, the bound a statistical one; k as large as a
  // filtered search's (FILTER_OVERFETCH), so that N * k reaches BOUNDED_FROM
  const COUNT = 2 * SAMPLE_SIZE + 100;
  const K = 1000;

  before(async () => {
    const r = spawnSync(process.execPath, ['scripts/buildBuiltinModel.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`building the built-in model failed: ${r.stderr || r.error?.message}`);
    embedder = await WordVectorEmbedder.load(BUILTIN);
    fx = await openFixture([{ file: 'big.jsonl', agent: 'claude-code', project: '/p/big', exchanges: exchanges(COUNT) }]);
    await embedStore(fx.store, embedder, { layers: ['core'] });
  });
  after(async () => {
    await fx?.store.close();
    await embedder?.dispose();
  });

  test('the bounded KNN finds exactly what the unbounded one finds, with the bound in the statement', async () => {
    const bounds = new DistanceBounds(fx.reads);
    const next = random(11);
    let bounded = 0;
    for (let q = 0; q < 40; q++) {
      const text = threeWords(next);
      const [vector] = await embedder.embed([text]);
      const exact = await nearest(fx.store.db, 'vec_core', vector!, K);
      let fast: VectorHit[] = [];
      const sql = await statementsOf(fx.store.db, async () => {
        fast = await bounds.nearest('core', vector!, K);
      });
      assert.deepEqual(fast, exact, text);
      assert.equal(exact.length, K);
      const knn = sql.filter((s) => /embedding MATCH/.test(s));
      if (knn.length === 1 && /AND distance <= \?/.test(knn[0]!)) bounded++; // the bound alone sufficed
    }
    assert.ok(bounded >= 38, `the bound alone answered ${bounded} of 40 queries`);
  });

  test('a sample of about SAMPLE_SIZE vectors is read once, not per search', async () => {
    const bounds = new DistanceBounds(fx.reads);
    const [vector] = await embedder.embed(['database migration']);
    const first = await storeStatementsOf(fx.store, () => bounds.nearest('core', vector!, K));
    const sampling = (sql: string[]) => sql.filter((s) => SAMPLING.test(s)).length;
    assert.equal(sampling(first), 1);
    const second = await storeStatementsOf(fx.store, () => bounds.nearest('core', vector!, K));
    assert.equal(sampling(second), 0);
  });

  test('a query of another dimension (the store embedded again by another model) gets no bound', async () => {
    const bounds = new DistanceBounds(fx.reads);
    assert.equal(await bounds.bound('core', new Float32Array(8).fill(0.3), K), undefined);
  });

  test('a layer too small for the bound to pay (N * k under BOUNDED_FROM) is not even sampled', async () => {
    assert.ok(COUNT * 100 < BOUNDED_FROM && COUNT * K >= BOUNDED_FROM);
    const bounds = new DistanceBounds(fx.reads);
    const [vector] = await embedder.embed(['database migration']);
    const sql = await storeStatementsOf(fx.store, async () => assert.equal(await bounds.bound('core', vector!, 100), undefined));
    assert.deepEqual(sql.filter((s) => SAMPLING.test(s)), []);
  });

  test('with a plan the store has not changed since, a search asks neither for the model nor for vector rows', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const query = { text: 'tomato curry harvest' };
    await searcher.search(query);
    const asks = (sql: string[]) => sql.filter((s) => /embedding_model|FROM vector_rows WHERE layer = \? LIMIT 1/.test(s)).length;
    assert.equal(asks(await statementsOf(fx.store.db, () => searcher.search(query))), 0);
    await fx.store.db.run("UPDATE conversations SET title = 'renamed'");
    assert.equal(asks(await statementsOf(fx.store.db, () => searcher.search(query))), 2, 'asked again after a write');
  });

  test('selective: a confident search runs no KNN, an unsure one runs it after BM25 (vec0 cannot stop a started one)', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const reader = (await fx.store.reader())!;
    const next = random(23);
    // a KNN, from vec0 or from the layer's copy in memory, is followed by its neighbours' existence check
    const knn = (sql: string[]) => sql.filter((s) => /FROM vector_rows r /.test(s)).length;
    let unsure = 0;
    for (let q = 0; q < 30; q++) {
      const text = threeWords(next);
      let r: SearchResult | undefined;
      let beside: string[] = [];
      // both connections the searcher reads through: a KNN started on either one counts
      const sql = await statementsOf(fx.store.db, async () => {
        beside = await statementsOf(reader, async () => {
          r = await searcher.search({ text });
        });
      });
      sql.push(...beside);
      const fused = r!.hits.some((h) => h.parts.some((p) => /vec/.test(p.signal)));
      if (fused) unsure++;
      assert.equal(knn(sql) > 0, fused, `${fused ? 'fused' : 'confident'} answer, ${knn(sql)} KNN statements: ${text}`);
    }
    assert.ok(unsure > 0 && unsure < 30, `both kinds of answer: ${unsure} of 30 fused`);
  });

  test("a fused search learns its vector candidates' conversations from their existence check: no statement of its own", async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const next = random(29);
    const apart = /SELECT n, conversation_id FROM exchanges/;
    let fusedSearches = 0;
    for (let q = 0; q < 30; q++) {
      const text = threeWords(next);
      let r: SearchResult | undefined;
      const sql = await statementsOf(fx.store.db, async () => {
        r = await searcher.search({ text });
      });
      if (!sql.some((s) => /FROM vector_rows r /.test(s))) continue; // no KNN (its neighbours' existence check)
      fusedSearches++;
      assert.deepEqual(sql.filter((s) => apart.test(s)), [], text);
      assert.ok(r!.hits.length > 0, text);
    }
    assert.ok(fusedSearches > 0, 'some searches ran the KNN');
  });

  test('warming takes the sample a bounded search will need, once; a layer too small for a bound is not sampled', async () => {
    const bounds = new DistanceBounds(fx.reads);
    const sampling = (sql: string[]) => sql.filter((s) => SAMPLING.test(s)).length;
    assert.equal(sampling(await storeStatementsOf(fx.store, () => bounds.warm('core', 100))), 0, 'N * k under BOUNDED_FROM');
    assert.equal(sampling(await storeStatementsOf(fx.store, () => bounds.warm('core', K))), 1);
    assert.equal(sampling(await storeStatementsOf(fx.store, () => bounds.warm('core', K))), 0, 'taken already');
    const [vector] = await embedder.embed(['database migration']);
    const sql = await storeStatementsOf(fx.store, () => bounds.bound('core', vector!, K));
    assert.equal(sampling(sql), 0, 'the search finds it taken');
  });

  test("a bound's count and sample are read on the second connection: a search's statements on the first never wait behind them", async () => {
    const bounds = new DistanceBounds(fx.reads);
    const reader = await fx.store.vectorReader();
    assert.ok(reader, 'the second connection, with sqlite-vec');
    let second: string[] = [];
    const first = await statementsOf(fx.store.db, async () => {
      second = await statementsOf(reader, () => bounds.warm('core', K));
    });
    const bound = /count\(\*\)|wanted\(rid\)/;
    assert.deepEqual(first.filter((s) => bound.test(s)), []);
    assert.equal(second.filter((s) => bound.test(s)).length, 2, second.join('\n'));
  });

  test('the sample asks vec0 for each sampled row by its rowid (the inner loop of a join), not a scan of every vector', async () => {
    const sql = (await storeStatementsOf(fx.store, () => new DistanceBounds(fx.reads).warm('core', K))).find((s) => SAMPLING.test(s));
    assert.ok(sql);
    const plan = (await fx.store.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ['core', 'core', 2, 'core'])).map((r) => r.detail);
    const rows = plan.findIndex((d) => /SEARCH vector_rows USING PRIMARY KEY \(layer=\? AND exchange_n=\?\)/.test(d));
    const vec0 = plan.findIndex((d) => /VIRTUAL TABLE/.test(d));
    assert.ok(rows >= 0 && vec0 > rows, plan.join('\n'));
    assert.ok(!plan.some((d) => /SCAN vector_rows/.test(d)), `each sampled row looked up, no row scanned: ${plan.join('\n')}`);
  });

  test("the sample is the layer's rows whose number is a multiple of the step spreading SAMPLE_SIZE over their span (looked up, not filtered)", async () => {
    const span = (await fx.store.db.get<{ lo: number; hi: number }>("SELECT min(exchange_n) AS lo, max(exchange_n) AS hi FROM vector_rows WHERE layer = 'core'"))!;
    for (const size of [SAMPLE_SIZE, 7, 1, 5000]) {
      const step = Math.max(1, Math.floor((span.hi - span.lo + 1) / size));
      const want = await fx.store.db.all<{ embedding: Uint8Array }>(
        "SELECT v.embedding FROM vector_rows r CROSS JOIN vec_core v ON v.rowid = r.exchange_n WHERE r.layer = 'core' AND r.exchange_n % ? = 0 ORDER BY r.exchange_n",
        [step],
      );
      const got = await sampleVectors(fx.store.db, 'core', size);
      assert.ok(want.length > 0);
      assert.deepEqual(got, want.map((r) => fromBlob(r.embedding)), `size ${size}, step ${step}`);
    }
  });

  test('prepare reads ahead what every first search reads on its way, and no more: no copy of the vectors, no warm-up search', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const ahead = /lexicon_segments|lexicon_deleted|embedding_model|FROM vector_rows WHERE layer = \? LIMIT 1|count\(\*\)/;
    const preparing = await storeStatementsOf(fx.store, () => searcher.prepare());
    assert.equal(preparing.filter((s) => ahead.test(s)).length, 5, preparing.join('\n'));
    assert.deepEqual(preparing.filter((s) => /_vector_chunks00|lexicon_postings/.test(s)), [], 'no copy, no search');
    const first = await storeStatementsOf(fx.store, () => searcher.search({ text: 'tomato curry harvest', fusion: 'weighted:0.8' }));
    assert.ok(first.some((s) => /embedding MATCH/.test(s)), 'the search ran the KNN');
    assert.deepEqual(first.filter((s) => ahead.test(s)), []);
  });

  test('the lengths a memory read before its model loaded serve the searcher made once it has (MCP server, issue 42)', async () => {
    const memory = await Memory.openReadOnly(path.join(fx.dir, 'recall.sqlite'));
    const read = SearchReads.prototype.lexiconDocs;
    let reads = 0;
    SearchReads.prototype.lexiconDocs = function (this: SearchReads) {
      reads++;
      return read.call(this);
    };
    try {
      await memory.prepareWords();
      assert.equal(reads, 1);
      const words = await memory.search({ text: 'tomato curry harvest' });
      const withModel = await memory.search({ text: 'tomato curry harvest' }, { embedder });
      assert.ok(words.hits.length > 0 && withModel.semantic && !words.semantic);
      assert.equal(reads, 1, 'neither searcher read them again');
    } finally {
      SearchReads.prototype.lexiconDocs = read;
      await memory.close();
    }
  });

  test('the sample a memory took for one searcher serves the next (another model, or none): a bound is the store\'s, not the searcher\'s', async () => {
    const memory = await Memory.openReadOnly(path.join(fx.dir, 'recall.sqlite'));
    const sample = SearchReads.prototype.sampleVectors;
    let samples = 0;
    SearchReads.prototype.sampleVectors = function (this: SearchReads, layer, size) {
      samples++;
      return sample.call(this, layer, size);
    };
    try {
      // a filtered search fetches K-like candidate lists: N * k reaches BOUNDED_FROM at this size
      const filtered = { text: 'tomato curry harvest', fusion: 'weighted:0.8', limit: 200 } as const;
      await memory.search(filtered, { embedder });
      assert.equal(samples, 1);
      await memory.search(filtered, { notice: 'another front end' });
      await memory.search(filtered, { embedder });
      assert.equal(samples, 1, 'sampled once for every searcher of the store');
    } finally {
      SearchReads.prototype.sampleVectors = sample;
      await memory.close();
    }
  });

  test('an MCP search asked before the model has loaded waits for it and answers as one asked after (issue 42)', async () => {
    const file = path.join(fx.dir, 'recall.sqlite');
    const queries = ['tomato curry harvest', 'docker volume', 'guitar chord melody rhythm'];
    const loaded = await ScopedMemory.open(file, undefined, embedder);
    let arrive: (e: WordVectorEmbedder) => void = () => undefined;
    const loading = await ScopedMemory.open(file, undefined, new Promise<WordVectorEmbedder>((resolve) => (arrive = resolve)));
    try {
      const early = Promise.all(queries.map((text) => loading.search({ text })));
      await new Promise((resolve) => setTimeout(resolve, 20));
      arrive(embedder);
      const before = (await early).map(({ tookMs, ...rest }) => rest);
      const after = (await Promise.all(queries.map((text) => loaded.search({ text })))).map(({ tookMs, ...rest }) => rest);
      assert.ok(before.every((r) => r.semantic && r.hits.length > 0));
      assert.deepEqual(before, after);
    } finally {
      await loading.close();
      await loaded.close();
    }
  });

  test("a searcher's warm-up reads what its first search would: after it, that search reads no lengths, vector space nor layer", async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const ahead = /lexicon_segments|lexicon_deleted|embedding_model|FROM vector_rows WHERE layer = \? LIMIT 1/;
    const warming = await statementsOf(fx.store.db, () => searcher.warm());
    assert.equal(warming.filter((s) => ahead.test(s)).length, 4, warming.join('\n'));
    const first = await statementsOf(fx.store.db, () => searcher.search({ text: 'tomato curry harvest' }));
    assert.deepEqual(first.filter((s) => ahead.test(s)), []);
    assert.equal((await statementsOf(fx.store.db, () => searcher.warm())).filter((s) => ahead.test(s)).length, 0, 'nothing new to read');
    await fx.store.db.run("UPDATE conversations SET title = 'renamed'");
    assert.ok((await statementsOf(fx.store.db, () => searcher.warm())).some((s) => ahead.test(s)), 'read again after a write');
  });

  test('an unfiltered vector search asks an index, not the exchange rows, whether its neighbours are still there', async () => {
    const [vector] = await embedder.embed(['bread flour oven']);
    const sql = await statementsOf(fx.store.db, () => vectorSearch(fx.reads, 'core', vector!, 100));
    const check = sql.find((s) => /JOIN exchanges/.test(s))!;
    const plan = (await fx.store.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${check}`, ['core', '[1, 2, 3]'])).map((r) => r.detail);
    const reads = plan.filter((d) => /^SEARCH e\b/.test(d));
    assert.ok(reads.length === 1 && /USING COVERING INDEX exchanges_place/.test(reads[0]!), plan.join('\n'));
  });

  test("a layer's copy in memory finds the neighbours vec0 finds, in the same order, at the same distances", async () => {
    const copies = new VectorCopies(fx.reads, embedder.dimension);
    assert.equal(await copies.warm('core'), true);
    const next = random(31);
    for (let q = 0; q < 40; q++) {
      const text = threeWords(next);
      const [vector] = await embedder.embed([text]);
      for (const k of [10, K]) {
        const exact = await nearest(fx.store.db, 'vec_core', vector!, k);
        const copied = copies.nearest('core', vector!, k)!;
        sameUpToTies(copied.map((h) => ({ id: h.rowid, value: h.distance })), exact.map((h) => ({ id: h.rowid, value: h.distance })), 1e-6, text);
      }
    }
  });

  test('a searcher warmed up scans the copy: its unsure searches ask vec0 nothing, and answer as one that asks vec0', async () => {
    const warmed = createSearcher(fx.reads, embedder);
    await warmed.warm();
    const next = random(37);
    let fused = 0;
    for (let q = 0; q < 30; q++) {
      const text = threeWords(next);
      let r: SearchResult | undefined;
      const sql = await statementsOf(fx.store.db, async () => {
        r = await warmed.search({ text });
      });
      // a fresh searcher has no copy yet: it asks vec0
      const cold = await createSearcher(fx.reads, embedder).search({ text });
      assert.deepEqual(sql.filter((s) => /embedding MATCH/.test(s)), [], text);
      const ranking = (hits: readonly Hit[]) => hits.map((h) => ({ id: h.exchangeId, value: h.score }));
      sameUpToTies(ranking(r!.hits), ranking(cold.hits), 1e-5, text);
      if (r!.hits.some((h) => h.parts.some((p) => /vec/.test(p.signal)))) fused++;
    }
    assert.ok(fused > 0, 'some searches were unsure');
  });

  test('a searcher never warmed (a one-shot search) takes no copy: it asks vec0', async () => {
    const searcher = createSearcher(fx.reads, embedder);
    const next = random(41);
    let knn = 0;
    for (let q = 0; q < 20; q++) {
      const text = threeWords(next);
      const sql = await statementsOf(fx.store.db, () => searcher.search({ text }));
      assert.deepEqual(sql.filter((s) => /_vector_chunks00|SELECT rowid, embedding/.test(s)), [], text);
      if (sql.some((s) => /FROM vector_rows r /.test(s))) {
        knn++;
        assert.ok(sql.some((s) => /embedding MATCH/.test(s)), text);
      }
    }
    assert.ok(knn > 0, 'some searches ran the KNN');
  });

  test('no copy for a query of another dimension, nor for a layer larger than the memory allowed', async () => {
    const copies = new VectorCopies(fx.reads, embedder.dimension);
    await copies.warm('core');
    assert.equal(copies.nearest('core', new Float32Array(8).fill(0.3), 10), undefined);
    const small = new VectorCopies(fx.reads, embedder.dimension, 100 * embedder.dimension * 4);
    assert.equal(await small.warm('core'), false, `${COUNT} vectors, room for 100`);
    const [vector] = await embedder.embed(['bread flour oven']);
    assert.equal(small.nearest('core', vector!, 10), undefined);
  });

  test('a copy taken again reads only the chunks that may have changed: one with a slot deleted, and the latest', async () => {
    const copies = new VectorCopies(fx.reads, embedder.dimension);
    const chunkReads = async () => (await statementsOf(fx.store.db, () => copies.warm('core'))).filter((s) => /_vector_chunks00/.test(s)).length;
    const chunks = (await fx.store.db.get<{ c: number; latest: number }>('SELECT count(*) AS c, max(chunk_id) AS latest FROM vec_core_chunks'))!;
    assert.equal(await chunkReads(), chunks.c, 'the first copy reads every chunk');
    // the whole layer, as vec0 has it: the vectors read in place of the stale copy's, some of them moved
    const exactly = async (text: string) => {
      const [vector] = await embedder.embed([text]);
      const ranked = (hits: VectorHit[]) => hits.map((h) => ({ id: h.rowid, value: h.distance }));
      sameUpToTies(ranked(copies.nearest('core', vector!, COUNT)!), ranked(await nearest(fx.store.db, 'vec_core', vector!, COUNT)), 1e-6, text);
    };

    await fx.store.db.run("UPDATE conversations SET title = 'renamed again'");
    copies.storeChanged();
    assert.equal(await chunkReads(), 1, 'nothing embedded: the latest chunk alone');

    // embedded again: vec0 deletes the old vector (its slot in an older chunk) and writes the new one into the latest
    const first = (await fx.store.db.get<{ rowid: number }>('SELECT min(rowid) AS rowid FROM vec_core_rowids'))!;
    const at = async () => (await fx.store.db.get<{ chunk_id: number }>('SELECT chunk_id FROM vec_core_rowids WHERE rowid = ?', [first.rowid]))!.chunk_id;
    assert.ok(chunks.c >= 3 && (await at()) !== chunks.latest, `${chunks.c} chunks`);
    for (const text of ['violin sonata in d minor', 'kayak paddle river']) {
      const [vector] = await embedder.embed([text]);
      await fx.store.db.transaction(() => putVector(fx.store.db, 'vec_core', first.rowid, vector!));
      copies.storeChanged();
      // the second time the vector is in the latest chunk, written back into the slot it was deleted from: the
      // chunk's validity and rowids are as they were, its vector is not
      assert.equal(await chunkReads(), text.startsWith('violin') ? 2 : 1);
      assert.equal(await at(), chunks.latest);
      const [hit] = copies.nearest('core', vector!, 1)!;
      assert.equal(hit!.rowid, first.rowid, text);
      assert.ok(hit!.distance < 1e-6, `${text}: ${hit!.distance}`);
      await exactly(text);
      await exactly('garden tomato soil');
    }
  });

  // the last four delete exchanges (the last damages vec0's chunks)
  test('after a write, a layer that shrank or grew by more than a quarter is sampled again; a small change keeps the sample', async () => {
    const bounds = new DistanceBounds(fx.reads);
    const [vector] = await embedder.embed(['bread flour oven']);
    const sampling = (sql: string[]) => sql.filter((s) => SAMPLING.test(s)).length;
    await bounds.bound('core', vector!, K);
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT max(n) - 100 FROM exchanges)');
    bounds.storeChanged(await fx.reads.changeStamp());
    assert.equal(sampling(await storeStatementsOf(fx.store, () => bounds.bound('core', vector!, K))), 0, '100 of 2,148 fewer: the same sample');
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT min(n) + 1399 FROM exchanges)');
    assert.equal(sampling(await storeStatementsOf(fx.store, () => bounds.bound('core', vector!, K))), 0, 'not counted again before the searcher says the store changed');
    bounds.storeChanged(await fx.reads.changeStamp());
    assert.equal(sampling(await storeStatementsOf(fx.store, () => bounds.bound('core', vector!, K))), 1, '1,400 of 2,048 left: sampled again');
  });

  test('a bound from a stale sample that lets through fewer than k: asked again unbounded (exact), the layer counted again next time', async () => {
    const bounds = new DistanceBounds(fx.reads);
    const [vector] = await embedder.embed(['garden tomato soil']);
    assert.ok((await bounds.bound('core', vector!, K)) !== undefined, 'sampled while the layer held 1,400 vectors');
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT min(n) + 119 FROM exchanges)');
    await sweepOrphanVectors(fx.store.db);
    const exact = await nearest(fx.store.db, 'vec_core', vector!, K);
    let fast: VectorHit[] = [];
    const sql = await statementsOf(fx.store.db, async () => {
      fast = await bounds.nearest('core', vector!, K);
    });
    assert.deepEqual(fast, exact);
    assert.equal(exact.length, 120, 'all that is left');
    assert.deepEqual(
      sql.filter((s) => /embedding MATCH/.test(s)).map((s) => /distance <=/.test(s)),
      [true, false],
      'the bounded query, then the unbounded one',
    );
    const later = await storeStatementsOf(fx.store, () => bounds.nearest('core', vector!, K));
    assert.equal(later.filter((s) => /count\(\*\)/.test(s)).length, 1, 'counted again');
    assert.deepEqual(later.filter((s) => /row_number\(\)|distance <=/.test(s)), [], '120 vectors: too few to bound, not sampled');
  });

  test('a copy is of the store as it was: after a write vec0 answers until the copy is taken again, which holds what is left', async () => {
    const copies = new VectorCopies(fx.reads, embedder.dimension);
    await copies.warm('core');
    const [vector] = await embedder.embed(['tomato curry harvest']);
    assert.equal(copies.nearest('core', vector!, 100)!.length, 100, '120 vectors');
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT min(n) + 59 FROM exchanges)');
    await sweepOrphanVectors(fx.store.db);
    copies.storeChanged();
    assert.equal(copies.nearest('core', vector!, 100), undefined, 'not the copy of the store as it was');
    assert.equal(await copies.warm('core'), true);
    const exact = await nearest(fx.store.db, 'vec_core', vector!, 100);
    assert.equal(exact.length, 60);
    assert.deepEqual(copies.nearest('core', vector!, 100)!.map((h) => h.rowid), exact.map((h) => h.rowid));
  });

  test("a layer's vectors are read from vec0's chunks, valid slots only; from its scan when the chunks are not laid out as expected", async () => {
    const scan = await fx.store.db.all<{ rowid: number; embedding: Uint8Array }>('SELECT rowid, embedding FROM vec_core');
    assert.equal(scan.length, 60, 'chunks with deleted slots');
    const byRowid = (v: LayerVectors) => new Map(Array.from(v.rowids, (r, i) => [r, [...v.vectors.subarray(i * 100, (i + 1) * 100)]]));
    const want = new Map(scan.map((r) => [r.rowid, [...fromBlob(r.embedding)]]));
    let read: LayerVectors | undefined;
    const chunked = await statementsOf(fx.store.db, async () => {
      read = await layerVectors(fx.store.db, 'core', embedder.dimension);
    });
    assert.deepEqual(byRowid(read!), want);
    assert.ok(!chunked.some((s) => /SELECT rowid, embedding/.test(s)), chunked.join('\n'));
    await fx.store.db.run('UPDATE vec_core_chunks SET rowids = zeroblob(8)'); // not 8 bytes a slot: another layout
    const scanned = await statementsOf(fx.store.db, async () => {
      read = await layerVectors(fx.store.db, 'core', embedder.dimension);
    });
    assert.deepEqual(byRowid(read!), want);
    assert.ok(scanned.some((s) => /SELECT rowid, embedding FROM vec_core/.test(s)), scanned.join('\n'));
  });
});
