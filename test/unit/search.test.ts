import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RecallError } from '../../src/core/errors';
import { confidenceOf, confidencesByRank } from '../../src/core/search/confidence';
import { createSearcher } from '../../src/core/search/searcher';
import { MARK_END, MARK_START } from '../../src/core/search/snippet';
import type { Searcher, SearchQuery, SearchResult } from '../../src/core/search/types';
import type { Store } from '../../src/core/store/store';
import { type Fixture, openFixture, writeConversation } from './searchFixture';

describe('searcher (lexical) on the hand-made fixture', () => {
  let fx: Fixture;
  let searcher: Searcher;
  const keysOf = (r: SearchResult) => r.hits.map((h) => fx.keys.get(h.exchangeId));
  const search = (q: SearchQuery) => searcher.search(q);

  before(async () => {
    fx = await openFixture();
    searcher = createSearcher(fx.store);
  });
  after(() => fx?.store.close());

  test('verbatim/bm25: only exchanges holding a term, those holding more terms first', async () => {
    const r = await search({ text: 'gardening tomatoes', mode: 'verbatim/bm25', perConversation: 5 });
    assert.deepEqual(keysOf(r), ['c1']);
    const both = await search({ text: 'duplicate migration', mode: 'verbatim/bm25', perConversation: 5 });
    assert.deepEqual(keysOf(both), ['b1']);
    // "login error": a1 and a3 hold both words, a2 only "login", b1 only "error".
    const mixed = await search({ text: 'login error', mode: 'verbatim/bm25', perConversation: 5 });
    assert.deepEqual(new Set(keysOf(mixed).slice(0, 2)), new Set(['a1', 'a3']));
    assert.deepEqual(new Set(keysOf(mixed).slice(2)), new Set(['a2', 'b1']));
  });

  test('every hit carries its score parts, provenance, matched terms and a marked snippet', async () => {
    const r = await search({ text: 'gardening tomatoes', mode: 'verbatim/bm25' });
    const hit = r.hits[0]!;
    assert.equal(hit.parts.length, 1);
    assert.equal(hit.parts[0]!.signal, 'bm25(verbatim)');
    assert.equal(hit.parts[0]!.rank, 1);
    assert.ok(hit.parts[0]!.score > 0, 'bm25 is reported positive, higher is better');
    assert.equal(hit.score, hit.parts[0]!.score);
    assert.equal(hit.agent, 'aider');
    assert.equal(hit.project, '/p/blog');
    assert.match(hit.file, /blog\.history\.md$/);
    assert.deepEqual([hit.lineStart, hit.lineEnd], [1, 9]);
    assert.deepEqual(hit.matchedTerms, ['gardening', 'tomatoes']);
    assert.ok(hit.snippet.includes(`${MARK_START}gardening${MARK_END}`), hit.snippet);
    assert.ok(hit.snippet.includes(`${MARK_START}tomatoes${MARK_END}`), hit.snippet);
    assert.equal(hit.core, 'Drafted a gardening blog post about growing tomatoes.');
    // a room of one exchange is a facet (searchable), not a chip: chips are rooms of the tree (roomStats.ts)
    assert.deepEqual(hit.rooms, []);
    assert.equal(r.mode, 'verbatim/bm25');
    assert.equal(r.semantic, false);
    assert.ok(r.tookMs >= 0);
  });

  test('at most perConversation hits per conversation (default 2)', async () => {
    const all = await search({ text: 'login', mode: 'verbatim/bm25', perConversation: 5 });
    assert.deepEqual(new Set(keysOf(all)), new Set(['a1', 'a2', 'a3']));
    const capped = await search({ text: 'login', mode: 'verbatim/bm25' });
    assert.equal(capped.hits.length, 2);
    const one = await search({ text: 'login', mode: 'verbatim/bm25', perConversation: 1 });
    assert.equal(one.hits.length, 1);
    assert.equal(keysOf(one)[0], keysOf(all)[0]);
  });

  test('limit cuts the list; a bad limit is refused', async () => {
    const r = await search({ text: 'error login tests', mode: 'verbatim/bm25', limit: 1 });
    assert.equal(r.hits.length, 1);
    await assert.rejects(search({ text: 'x', limit: 0 }), (e: unknown) => e instanceof RecallError && e.code === 'bad-argument');
  });

  test('filters: agent, time, file, room, project', async () => {
    const q = { text: 'error login tests migration tomatoes post', mode: 'verbatim/bm25' as const, perConversation: 5, limit: 20 };
    assert.deepEqual(new Set(keysOf(await search({ ...q, filters: { agents: ['codex', 'aider'] } }))), new Set(['b1', 'c1', 'c2']));
    assert.deepEqual(new Set(keysOf(await search({ ...q, filters: { since: '2025-03-01', until: '2025-06-01T23:59:59Z' } }))), new Set(['b1', 'c1']));
    assert.deepEqual(keysOf(await search({ ...q, filters: { file: 'src/auth.ts' } })), ['a1']);
    assert.deepEqual(keysOf(await search({ ...q, filters: { room: 'concept:database' } })), ['b1']);
    assert.deepEqual(new Set(keysOf(await search({ ...q, filters: { project: '/p/blog' } }))), new Set(['c1', 'c2']));
    assert.deepEqual(keysOf(await search({ ...q, filters: { project: '/p/none' } })), []);
  });

  test('"not these": excluded exchanges are gone and the next ones move up', async () => {
    const r = await search({ text: 'login', mode: 'verbatim/bm25', perConversation: 5 });
    const first = r.hits[0]!.exchangeId;
    const without = await search({ text: 'login', mode: 'verbatim/bm25', perConversation: 5, exclude: [first] });
    assert.ok(!without.hits.some((h) => h.exchangeId === first));
    assert.equal(without.hits.length, r.hits.length - 1);
  });

  test('distilled layers search their facets: files and rooms only where the mode includes them', async () => {
    // "Authentication" is only a room label of a1; "004" only a file path of b1.
    assert.deepEqual(keysOf(await search({ text: 'authentication', mode: 'core/bm25' })), []);
    assert.deepEqual(keysOf(await search({ text: 'authentication', mode: 'core+rooms/bm25' })), ['a1']);
    assert.deepEqual(keysOf(await search({ text: 'authentication', mode: 'core+files/bm25' })), []);
    assert.deepEqual(keysOf(await search({ text: 'migrations 004', mode: 'core+files/bm25' })), ['b1']);
    assert.deepEqual(keysOf(await search({ text: 'authentication', mode: 'all-facets/bm25' })), ['a1']);
    // core holds core + context: "1062" is in b1's context only
    assert.deepEqual(keysOf(await search({ text: '1062', mode: 'core/bm25' })), ['b1']);
    // a3 is not distilled: the distilled layers never find it
    assert.ok(!keysOf(await search({ text: 'stale cookie', mode: 'all-facets/bm25' })).includes('a3'));
  });

  test('hostile queries are inert: no error, no syntax reaches FTS5', async () => {
    const hostile = [
      '"', '""', '"login', 'login"', 'NEAR(login error)', 'login NEAR error', 'core: login', 'verbatim:login', '{core}: x',
      '*', 'log*', '^login', '-login', 'login AND', 'OR', 'NOT login', '(', ')', "'; DROP TABLE exchanges; --",
      '1 OR 1=1', '\u0000login', '', '   ', 'x'.repeat(10_000), 'login '.repeat(2_000),
    ];
    for (const text of hostile) {
      for (const mode of ['verbatim/bm25', 'core/bm25', 'all-facets/bm25'] as const) {
        const r = await search({ text, mode });
        assert.ok(Array.isArray(r.hits), `${mode}: ${text.slice(0, 30)}`);
      }
    }
    // the word inside the syntax still finds its exchange
    assert.ok(keysOf(await search({ text: 'NEAR(gardening)', mode: 'verbatim/bm25' })).includes('c1'));
    assert.ok(keysOf(await search({ text: 'core:tomatoes', mode: 'verbatim/bm25' })).includes('c1'));
    assert.equal((await search({ text: '', mode: 'verbatim/bm25' })).hits.length, 0);
    const stats = await fx.store.stats();
    assert.equal(stats.exchanges, 6, 'nothing was dropped');
  });

  test('unknown mode or fusion: a clear bad-argument error', async () => {
    await assert.rejects(search({ text: 'x', mode: 'bogus' as never }), (e: unknown) => e instanceof RecallError && /Unknown search mode/.test(e.message));
    await assert.rejects(search({ text: 'x', fusion: 'weighted:7' }), (e: unknown) => e instanceof RecallError && /Unknown fusion/.test(e.message));
  });

  test('without an embedder, vector modes fall back to lexical and say so', async () => {
    const r = await search({ text: 'gardening tomatoes', mode: 'bm25(v)+vec(d)' });
    assert.equal(r.semantic, false);
    assert.match(r.notice ?? '', /lexical/);
    assert.deepEqual(keysOf(r), ['c1']);
    assert.deepEqual(r.hits[0]!.parts.map((p) => p.signal), ['bm25(verbatim)']);
    const core = await search({ text: 'gardening', mode: 'core/vector' });
    assert.deepEqual(keysOf(core), ['c1']);
    assert.equal(core.hits[0]!.parts[0]!.signal, 'bm25(core)');
    const withNotice = createSearcher(fx.store, undefined, { embedderNotice: 'the model folder /nope does not exist' });
    assert.match((await withNotice.search({ text: 'x', mode: 'core/vector' })).notice ?? '', /^the model folder \/nope does not exist/);
  });

  test('confidence: a full-coverage first hit is high; an unrelated weak match is low', async () => {
    const strong = await search({ text: 'gardening tomatoes', mode: 'verbatim/bm25' });
    assert.equal(strong.confidence, 'high');
    const weak = await search({ text: 'kubernetes helm chart terraform deploy', mode: 'verbatim/bm25' });
    assert.equal(weak.hits.length, 1);
    assert.equal(weak.confidence, 'low');
  });

  test('confidence: words in most exchanges are no evidence; a query of only such words is low', async () => {
    const texts = ['the build broke and we fixed the cache', 'the tests broke and we fixed the mocks', 'the page broke and we fixed the router', 'the deploy broke and we fixed the flux capacitor'];
    const common = await openFixture(
      texts.map((text, i) => ({
        file: `c${i}.jsonl`,
        agent: 'claude-code' as const,
        project: '/p/c',
        exchanges: [{ key: `c${i}`, text: `User: ${text}\nAssistant: Done, ${text}.`, startedAt: '2025-01-01T00:00:00Z' }],
      })),
    );
    try {
      const searcher = createSearcher(common.store);
      const vague = await searcher.search({ text: 'the broke fixed', mode: 'verbatim/bm25' });
      assert.equal(vague.hits.length, 4);
      assert.deepEqual([vague.confidence, vague.hits.map((h) => h.confidence)], ['low', ['low', 'low', 'low', 'low']], 'every hit holds every word: nothing tells them apart');
      const told = await searcher.search({ text: 'the broke fixed flux capacitor', mode: 'verbatim/bm25' });
      assert.deepEqual([common.keys.get(told.hits[0]!.exchangeId), told.confidence], ['c3', 'high']);
    } finally {
      await common.store.close();
    }
  });

  test('confidence follows rank: no hit is labelled above a hit ranked before it', async () => {
    // one of three query words: the first hit is low, and so is its exact tie below it (was: medium); two
    // exchanges, not one saved twice (search/copies.ts would show that once)
    const twins = await openFixture(
      [['one.jsonl', 'page', 'template'], ['two.jsonl', 'form', 'markup']].map(([file, what, how]) => ({
        file: file!,
        agent: 'claude-code' as const,
        project: '/p/t',
        exchanges: [{ key: file!, text: `User: the login ${what} is blank\nAssistant: Restored the login ${how}.`, startedAt: '2025-01-01T00:00:00Z' }],
      })),
    );
    try {
      const r = await createSearcher(twins.store).search({ text: 'login qqqq wwww', mode: 'verbatim/bm25' });
      assert.equal(r.hits.length, 2);
      assert.deepEqual(r.hits.map((h) => h.confidence), ['low', 'low']);
    } finally {
      await twins.store.close();
    }
    assert.deepEqual(
      confidencesByRank([
        { coverage: 0.9, position: 1, relative: 1, margin: 0.01 },
        { coverage: 1, position: 2, relative: 0.99, margin: 0.01 },
        { coverage: 1, position: 3, relative: 0.5, margin: 0.01 },
      ]),
      ['high', 'medium', 'low'],
    );
  });

  test('confidence rules: margin and coverage make a first hit high; near-ties are medium; the rest low', () => {
    const first = { position: 1, relative: 1 };
    assert.equal(confidenceOf({ ...first, coverage: 0.6, margin: 0.2 }), 'high');
    assert.equal(confidenceOf({ ...first, coverage: 0.9, margin: 0.01 }), 'high');
    assert.equal(confidenceOf({ ...first, coverage: 0.6, margin: 0.05 }), 'medium');
    assert.equal(confidenceOf({ ...first, coverage: 0.3, margin: 0.9 }), 'low');
    assert.equal(confidenceOf({ position: 2, relative: 0.95, coverage: 1, margin: 0.05 }), 'medium');
    assert.equal(confidenceOf({ position: 2, relative: 0.5, coverage: 1, margin: 0.5 }), 'low');
  });
});

/**
 * The MATCH expressions of the BM25 statements `run` sends, in order. A split query's statements run on two
 * connections (Store.reader), the lead's first.
 */
async function bm25Statements<T>(store: Store, run: () => Promise<T>): Promise<{ matches: string[]; result: T }> {
  const matches: string[] = [];
  const connections = [store.db, (await store.reader())!];
  const originals = connections.map((c) => c.all.bind(c));
  connections.forEach((c, i) => {
    c.all = (<R>(sql: string, params?: unknown[]) => {
      if (/\bMATCH\b/.test(sql) && /bm25\(/.test(sql)) matches.push(String(params?.[0]));
      return originals[i]!<R>(sql, params as never);
    }) as typeof c.all;
  });
  try {
    return { matches, result: await run() };
  } finally {
    connections.forEach((c, i) => (c.all = originals[i]!));
  }
}

describe('BM25 on verbatim over more exchanges than the candidate budget', () => {
  // 600 exchanges, a budget of 100: the query's rarest words lead, only their exchanges are scored.
  const BUDGET = 100;
  const exchanges = Array.from({ length: 600 }, (_, i) => {
    const words = [`question ${i} about the widget`];
    if (i % 5 === 0) words.push('gearbox'); // with the next line: 188 exchanges (31%), too many to lead
    if (i % 7 === 0) words.push('gearbox gearbox');
    if (i % 4 === 0) words.push('sprocket'); // 150 exchanges, none a zeppelin's
    if ([3, 10, 14, 33].includes(i)) words.push('zeppelin');
    return { key: `x${i}`, text: `User: ${words.join(' ')}\nAssistant: the widget answer number ${i}.`, startedAt: '2025-01-01T00:00:00Z' };
  });
  const all = { perConversation: 600, limit: 50, mode: 'verbatim/bm25' as const };

  test('the lead words find the candidates; the rest add their part, as in the unsplit ranking', async () => {
    const fx = await openFixture([{ file: 'big.jsonl', agent: 'claude-code', project: '/p/big', exchanges }]);
    try {
      const split = createSearcher(fx.store, undefined, { candidateBudget: BUDGET });
      const whole = createSearcher(fx.store, undefined, { candidateBudget: 1_000_000 });
      const keys = (r: SearchResult) => r.hits.map((h) => fx.keys.get(h.exchangeId));
      // zeppelin (4 exchanges) leads; gearbox only reorders them, then fills the list
      const r = await split.search({ text: 'zeppelin gearbox', ...all });
      assert.deepEqual(keys(r).slice(0, 2), ['x14', 'x10'], 'the zeppelins holding "gearbox" come first');
      assert.deepEqual(new Set(keys(r).slice(2, 4)), new Set(['x3', 'x33']));
      const unsplit = await whole.search({ text: 'zeppelin gearbox', ...all });
      assert.deepEqual(r.hits.map((h) => h.score), unsplit.hits.map((h) => h.score), 'the same scores as the unsplit query');
      // "widget" is in every exchange: too common to add anything, it is left out
      const common = await split.search({ text: 'zeppelin widget', ...all });
      assert.deepEqual(new Set(keys(common)), new Set(['x3', 'x10', 'x14', 'x33']));
      assert.match(common.hits[0]!.snippet, /\u0001widget\u0002/, 'the snippet still marks every query word');
      assert.deepEqual(common.hits[0]!.matchedTerms, ['zeppelin'], 'a word in every exchange is no reason why it matched');
      const only = await split.search({ text: 'widget', ...all });
      assert.deepEqual(only.hits[0]!.matchedTerms, ['widget'], 'unless nothing else matched');
      // fewer lead exchanges than asked for: exchanges holding only the rest fill the list, after them
      const filled = await split.search({ text: 'zeppelin sprocket', ...all });
      assert.equal(filled.hits.length, 50);
      assert.deepEqual(new Set(keys(filled).slice(0, 4)), new Set(['x3', 'x10', 'x14', 'x33']));
      assert.ok(keys(filled).slice(4).every((k) => Number(k!.slice(1)) % 4 === 0), 'then sprockets');
      const alone = await split.search({ text: 'widget', ...all });
      assert.equal(alone.hits.length, 50, 'a query of common words alone still searches them');
    } finally {
      await fx.store.close();
    }
  });

  test('an exchange holding only rest words still comes first when it outscores the lead words\' exchanges', async () => {
    // "alpha" (120 long exchanges) leads, "beta" (160 others, one short and saying it ten times) is rest
    const filler = 'lorem ipsum dolor sit amet '.repeat(12);
    const many = Array.from({ length: 600 }, (_, i) => ({
      key: `m${i}`,
      text: `User: note ${i}${i % 5 === 0 ? ` alpha ${filler}` : ''}${i % 3 === 1 && i % 5 !== 0 ? ' beta' : ''}${i === 1 ? ' beta'.repeat(9) : ''}\nAssistant: ok ${i}.`,
      startedAt: '2025-01-01T00:00:00Z',
    }));
    const fx = await openFixture([{ file: 'many.jsonl', agent: 'claude-code', project: '/p/many', exchanges: many }]);
    try {
      const split = await createSearcher(fx.store, undefined, { candidateBudget: 150 }).search({ text: 'alpha beta', mode: 'verbatim/bm25', perConversation: 600 });
      const whole = await createSearcher(fx.store, undefined, { candidateBudget: 1_000_000 }).search({ text: 'alpha beta', mode: 'verbatim/bm25', perConversation: 600 });
      assert.equal(fx.keys.get(whole.hits[0]!.exchangeId), 'm1');
      assert.deepEqual(split.hits.map((h) => h.exchangeId), whole.hits.map((h) => h.exchangeId));
    } finally {
      await fx.store.close();
    }
  });

  test('when rest words join the lead, only the exchanges they bring are scored again', async () => {
    // "alpha" leads; "beta" (in 160 exchanges, m1 saying it ten times) could outscore alpha's exchanges, so it
    // joins the lead in a second pass, which must leave the exchanges holding "alpha" (scored in full) alone
    const filler = 'lorem ipsum dolor sit amet '.repeat(12);
    const many = Array.from({ length: 600 }, (_, i) => ({
      key: `m${i}`,
      text: `User: note ${i}${i % 5 === 0 ? ` alpha ${filler}` : ''}${i % 3 === 1 ? ' beta' : ''}${i % 4 === 1 ? ' gamma' : ''}${i === 1 ? ' beta'.repeat(9) : ''}\nAssistant: ok ${i}.`,
      startedAt: '2025-01-01T00:00:00Z',
    }));
    const fx = await openFixture([{ file: 'many.jsonl', agent: 'claude-code', project: '/p/many', exchanges: many }]);
    try {
      const query = { text: 'alpha beta gamma', mode: 'verbatim/bm25' as const, perConversation: 600 };
      const whole = await createSearcher(fx.store, undefined, { candidateBudget: 1_000_000 }).search(query);
      const db = fx.store.db;
      const { matches, result: split } = await bm25Statements(fx.store, () => createSearcher(fx.store, undefined, { candidateBudget: 150 }).search(query));
      assert.deepEqual(split.hits.map((h) => h.exchangeId), whole.hits.map((h) => h.exchangeId));
      assert.deepEqual(split.hits.map((h) => h.score), whole.hits.map((h) => h.score));
      // the statements after the first pass (lead, then rest AND lead) match no exchange holding "alpha"
      assert.ok(matches.length > 2, `a second pass ran: ${matches.join(' | ')}`);
      for (const match of matches.slice(2)) {
        const count = await db.get<{ c: number }>(`SELECT count(*) AS c FROM exchanges_fts WHERE exchanges_fts MATCH ? AND rowid IN (SELECT rowid FROM exchanges_fts WHERE exchanges_fts MATCH '"alpha"')`, [match]);
        assert.equal(count?.c, 0, `${match} scores exchanges holding "alpha" again`);
      }
    } finally {
      await fx.store.close();
    }
  });

  test('a second pass scores the exchanges holding only the words that joined the lead only when those could reach the threshold', async () => {
    // "alpha" (120 exchanges, each with beta, gamma and delta too) leads and fills the first ten; beta, gamma and
    // delta together could still outscore them, so beta joins the lead, but beta alone (at most 2.2 x its IDF)
    // cannot: only the exchanges holding beta and gamma or delta are scored in that pass
    const many = Array.from({ length: 1200 }, (_, i) => {
      const words = [`note ${i}`];
      if (i % 10 === 0) words.push('alpha beta gamma delta');
      else {
        if (i % 6 === 1) words.push('beta');
        if (i % 5 === 2) words.push('gamma');
        if (i % 4 === 3) words.push('delta');
      }
      return { key: `m${i}`, text: `User: ${words.join(' ')}\nAssistant: ok ${i}.`, startedAt: '2025-01-01T00:00:00Z' };
    });
    const fx = await openFixture([{ file: 'many.jsonl', agent: 'claude-code', project: '/p/many', exchanges: many }]);
    try {
      const query = { text: 'alpha beta gamma delta', mode: 'verbatim/bm25' as const, perConversation: 600 };
      const whole = await createSearcher(fx.store, undefined, { candidateBudget: 1_000_000 }).search(query);
      const { matches, result: split } = await bm25Statements(fx.store, () => createSearcher(fx.store, undefined, { candidateBudget: 150 }).search(query));
      assert.deepEqual(split.hits.map((h) => h.exchangeId), whole.hits.map((h) => h.exchangeId));
      assert.deepEqual(split.hits.map((h) => h.score), whole.hits.map((h) => h.score));
      assert.deepEqual(matches.slice(0, 2), ['"alpha"', '("beta" OR "gamma" OR "delta") AND ("alpha")'], 'alpha leads');
      assert.ok(matches.length > 2, `a second pass ran: ${matches.join(' | ')}`);
      for (const match of matches.slice(2)) assert.match(match, /^\("gamma" OR "delta"\) AND \(/, `${match} scores exchanges holding only "beta"`);
    } finally {
      await fx.store.close();
    }
  });

  test('the statistics follow the store: among more exchanges a word is no longer common', async () => {
    const fx = await openFixture([{ file: 'big.jsonl', agent: 'claude-code', project: '/p/big', exchanges }]);
    try {
      const split = createSearcher(fx.store, undefined, { candidateBudget: BUDGET });
      const before = await split.search({ text: 'zeppelin widget', ...all });
      assert.equal(before.hits.length, 4, '"widget" is in every exchange: left out');
      const more = Array.from({ length: 1500 }, (_, i) => ({ key: `z${i}`, text: `User: gadget ${i}\nAssistant: a gadget reply ${i}.`, startedAt: '2025-01-02T00:00:00Z' }));
      await writeConversation(fx.store, fx.dir, { file: 'more.jsonl', agent: 'codex', project: '/p/big', exchanges: more }, fx.ids, fx.keys);
      const after = await split.search({ text: 'zeppelin widget', ...all });
      assert.equal(after.hits.length, 50, '"widget" is now in 29% of exchanges: it fills the list');
    } finally {
      await fx.store.close();
    }
  });
});
