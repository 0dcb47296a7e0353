import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { embedStore } from '../../src/core/embed/stage';
import { WordVectorEmbedder } from '../../src/core/embed/wordVectorEmbedder';
import { BOUNDED_FROM, boundFromSample, DistanceBounds, SAMPLE_SIZE } from '../../src/core/search/distanceBound';
import { createSearcher } from '../../src/core/search/searcher';
import type { SearchResult } from '../../src/core/search/types';
import { vectorSearch } from '../../src/core/search/vector';
import { sweepOrphanVectors } from '../../src/core/store/vectorStore';
import { statementsOf } from './helpers';
import { type FixtureExchange, type Fixture, openFixture } from './searchFixture';

const ROOT = path.resolve(__dirname, '../../..');
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
    const bounds = new DistanceBounds(fx.store.db);
    const next = random(11);
    let bounded = 0;
    for (let q = 0; q < 40; q++) {
      const text = Array.from({ length: 3 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
      const [vector] = await embedder.embed([text]);
      const exact = await vectorSearch(fx.store.db, 'core', vector!, K);
      let fast: Awaited<ReturnType<typeof vectorSearch>> = [];
      const sql = await statementsOf(fx.store.db, async () => {
        fast = await vectorSearch(fx.store.db, 'core', vector!, K, undefined, bounds);
      });
      assert.deepEqual(fast, exact, text);
      assert.equal(exact.length, K);
      const knn = sql.filter((s) => /embedding MATCH/.test(s));
      if (knn.length === 1 && /AND distance <= \?/.test(knn[0]!)) bounded++; // the bound alone sufficed
    }
    assert.ok(bounded >= 38, `the bound alone answered ${bounded} of 40 queries`);
  });

  test('a sample of about SAMPLE_SIZE vectors is read once, not per search', async () => {
    const bounds = new DistanceBounds(fx.store.db);
    const [vector] = await embedder.embed(['database migration']);
    const first = await statementsOf(fx.store.db, () => vectorSearch(fx.store.db, 'core', vector!, K, undefined, bounds));
    const sampling = (sql: string[]) => sql.filter((s) => /row_number\(\)/.test(s)).length;
    assert.equal(sampling(first), 1);
    const second = await statementsOf(fx.store.db, () => vectorSearch(fx.store.db, 'core', vector!, K, undefined, bounds));
    assert.equal(sampling(second), 0);
  });

  test('a query of another dimension (the store embedded again by another model) gets no bound', async () => {
    const bounds = new DistanceBounds(fx.store.db);
    assert.equal(await bounds.bound('core', new Float32Array(8).fill(0.3), K), undefined);
  });

  test('a layer too small for the bound to pay (N * k under BOUNDED_FROM) is not even sampled', async () => {
    assert.ok(COUNT * 100 < BOUNDED_FROM && COUNT * K >= BOUNDED_FROM);
    const bounds = new DistanceBounds(fx.store.db);
    const [vector] = await embedder.embed(['database migration']);
    const sql = await statementsOf(fx.store.db, async () => assert.equal(await bounds.bound('core', vector!, 100), undefined));
    assert.deepEqual(sql.filter((s) => /row_number\(\)/.test(s)), []);
  });

  test('with a plan the store has not changed since, a search asks neither for the model nor for vector rows', async () => {
    const searcher = createSearcher(fx.store, embedder);
    const query = { text: 'tomato curry harvest' };
    await searcher.search(query);
    const asks = (sql: string[]) => sql.filter((s) => /embedding_model|FROM vector_rows WHERE layer = \? LIMIT 1/.test(s)).length;
    assert.equal(asks(await statementsOf(fx.store.db, () => searcher.search(query))), 0);
    await fx.store.db.run("UPDATE conversations SET title = 'renamed'");
    assert.equal(asks(await statementsOf(fx.store.db, () => searcher.search(query))), 2, 'asked again after a write');
  });

  test('selective: a confident search runs no KNN, an unsure one runs it after BM25 (vec0 cannot stop a started one)', async () => {
    const searcher = createSearcher(fx.store, embedder);
    const reader = (await fx.store.reader())!;
    const next = random(23);
    const knn = (sql: string[]) => sql.filter((s) => /embedding MATCH/.test(s)).length;
    let unsure = 0;
    for (let q = 0; q < 30; q++) {
      const text = Array.from({ length: 3 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
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
    const searcher = createSearcher(fx.store, embedder);
    const next = random(29);
    const apart = /SELECT n, conversation_id FROM exchanges/;
    let fusedSearches = 0;
    for (let q = 0; q < 30; q++) {
      const text = Array.from({ length: 3 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
      let r: SearchResult | undefined;
      const sql = await statementsOf(fx.store.db, async () => {
        r = await searcher.search({ text });
      });
      if (!sql.some((s) => /embedding MATCH/.test(s))) continue;
      fusedSearches++;
      assert.deepEqual(sql.filter((s) => apart.test(s)), [], text);
      assert.ok(r!.hits.length > 0, text);
    }
    assert.ok(fusedSearches > 0, 'some searches ran the KNN');
  });

  test('warming takes the sample a bounded search will need, once; a layer too small for a bound is not sampled', async () => {
    const bounds = new DistanceBounds(fx.store.db);
    const sampling = (sql: string[]) => sql.filter((s) => /row_number\(\)/.test(s)).length;
    assert.equal(sampling(await statementsOf(fx.store.db, () => bounds.warm('core', 100))), 0, 'N * k under BOUNDED_FROM');
    assert.equal(sampling(await statementsOf(fx.store.db, () => bounds.warm('core', K))), 1);
    assert.equal(sampling(await statementsOf(fx.store.db, () => bounds.warm('core', K))), 0, 'taken already');
    const [vector] = await embedder.embed(['database migration']);
    const sql = await statementsOf(fx.store.db, () => bounds.bound('core', vector!, K));
    assert.equal(sampling(sql), 0, 'the search finds it taken');
  });

  test("a searcher's warm-up reads what its first search would: after it, that search reads no lengths, vector space nor layer", async () => {
    const searcher = createSearcher(fx.store, embedder);
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
    const sql = await statementsOf(fx.store.db, () => vectorSearch(fx.store.db, 'core', vector!, 100));
    const check = sql.find((s) => /JOIN exchanges/.test(s))!;
    const plan = (await fx.store.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${check}`, ['core', '[1, 2, 3]'])).map((r) => r.detail);
    const reads = plan.filter((d) => /^SEARCH e\b/.test(d));
    assert.ok(reads.length === 1 && /USING COVERING INDEX exchanges_place/.test(reads[0]!), plan.join('\n'));
  });

  // the last two delete exchanges
  test('after a write, a layer that shrank or grew by more than a quarter is sampled again; a small change keeps the sample', async () => {
    const bounds = new DistanceBounds(fx.store.db);
    const [vector] = await embedder.embed(['bread flour oven']);
    const sampling = (sql: string[]) => sql.filter((s) => /row_number\(\)/.test(s)).length;
    await bounds.bound('core', vector!, K);
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT max(n) - 100 FROM exchanges)');
    bounds.storeChanged();
    assert.equal(sampling(await statementsOf(fx.store.db, () => bounds.bound('core', vector!, K))), 0, '100 of 2,148 fewer: the same sample');
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT min(n) + 1399 FROM exchanges)');
    assert.equal(sampling(await statementsOf(fx.store.db, () => bounds.bound('core', vector!, K))), 0, 'not counted again before the searcher says the store changed');
    bounds.storeChanged();
    assert.equal(sampling(await statementsOf(fx.store.db, () => bounds.bound('core', vector!, K))), 1, '1,400 of 2,048 left: sampled again');
  });

  test('a bound from a stale sample that lets through fewer than k: asked again unbounded (exact), the layer counted again next time', async () => {
    const bounds = new DistanceBounds(fx.store.db);
    const [vector] = await embedder.embed(['garden tomato soil']);
    assert.ok((await bounds.bound('core', vector!, K)) !== undefined, 'sampled while the layer held 1,400 vectors');
    await fx.store.db.run('DELETE FROM exchanges WHERE n > (SELECT min(n) + 119 FROM exchanges)');
    await sweepOrphanVectors(fx.store.db);
    const exact = await vectorSearch(fx.store.db, 'core', vector!, K);
    let fast: Awaited<ReturnType<typeof vectorSearch>> = [];
    const sql = await statementsOf(fx.store.db, async () => {
      fast = await vectorSearch(fx.store.db, 'core', vector!, K, undefined, bounds);
    });
    assert.deepEqual(fast, exact);
    assert.equal(exact.length, 120, 'all that is left');
    assert.deepEqual(
      sql.filter((s) => /embedding MATCH/.test(s)).map((s) => /distance <=/.test(s)),
      [true, false],
      'the bounded query, then the unbounded one',
    );
    const later = await statementsOf(fx.store.db, () => vectorSearch(fx.store.db, 'core', vector!, K, undefined, bounds));
    assert.equal(later.filter((s) => /count\(\*\)/.test(s)).length, 1, 'counted again');
    assert.deepEqual(later.filter((s) => /row_number\(\)|distance <=/.test(s)), [], '120 vectors: too few to bound, not sampled');
  });
});
