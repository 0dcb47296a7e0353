import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RoomAssignment } from '../../src/core/distill/types';
import type { FileTouch } from '../../src/core/model';
import { createSearcher } from '../../src/core/search/searcher';
import { type Fixture, type FixtureExchange, openFixture } from './searchFixture';

/**
 * The core layer's own full-text index (distilledCoreFts.ts): a core is weighed against its own length, not against
 * a row that also holds the exchange's search terms, files and rooms.
 */
const room = (key: string): RoomAssignment => ({ type: 'concept', key, label: key, relevance: 0.9 });
const CORE = 'Fixed the flaky login test → The session cookie expired before the retry';
const CONTEXT = 'auth/session.ts';

/** Two exchanges with the same core and detail; `busy` has many search terms, files and rooms, `plain` none. */
const EXCHANGES: FixtureExchange[] = [
  {
    key: 'busy',
    text: 'User: the login test is flaky\nAssistant: The session cookie expired before the retry.',
    startedAt: '2025-01-01T00:00:00Z',
    files: ['src/auth/session.ts', 'src/auth/cookie.ts', 'test/login.test.ts', 'test/helpers/clock.ts'].map((p): FileTouch => ({ path: p, how: 'edit' })),
    distilled: {
      core: CORE,
      context: CONTEXT,
      rooms: [room('authentication'), room('testing'), room('cookies')],
      terms: 'playwright timeout clock skew expiry retry jitter fixture teardown headless chromium tokens refresh middleware',
    },
  },
  { key: 'plain', text: 'User: login test flaky again\nAssistant: Same cause.', startedAt: '2025-01-02T00:00:00Z', distilled: { core: CORE, context: CONTEXT, rooms: [] } },
  // others, so that the core's words are rare enough for BM25 to weigh them
  ...['Drafted a gardening post about tomatoes', 'Renamed the billing columns', 'Upgraded the bundler', 'Wrote the release notes'].map(
    (core, i): FixtureExchange => ({ key: `other${i}`, text: `User: ${core}\nAssistant: done.`, startedAt: '2025-01-03T00:00:00Z', distilled: { core, context: '', rooms: [] } }),
  ),
];

describe('the core layer searches its own full-text index', () => {
  let fx: Fixture;
  before(async () => {
    fx = await openFixture([{ file: 'core.jsonl', agent: 'claude-code', project: '/p/app', exchanges: EXCHANGES }]);
  });
  after(() => fx?.store.close());

  test('two exchanges with the same core rank equally under core, however many search terms, files and rooms one has', async () => {
    const r = await createSearcher(fx.reads).search({ text: 'flaky login cookie', mode: 'core/bm25', perConversation: 5 });
    const score = new Map(r.hits.map((h) => [fx.keys.get(h.exchangeId), h.score]));
    assert.deepEqual([...score.keys()].sort(), ['busy', 'plain']);
    assert.ok(score.get('plain')! > 0);
    assert.equal(score.get('busy'), score.get('plain'));
    // all-facets still reads the other facets: a search term finds the busy one alone
    const terms = await createSearcher(fx.reads).search({ text: 'playwright', mode: 'all-facets/bm25', perConversation: 5 });
    assert.deepEqual(terms.hits.map((h) => fx.keys.get(h.exchangeId)), ['busy']);
    assert.deepEqual((await createSearcher(fx.reads).search({ text: 'playwright', mode: 'core/bm25' })).hits, []);
  });

  test('a distilled object written again, or deleted, is searched as it is now', async () => {
    const db = fx.store.db;
    const n = (await db.get<{ n: number }>("SELECT n FROM exchanges WHERE id LIKE 'other0%'"))!.n;
    const found = async (word: string) =>
      (await createSearcher(fx.reads).search({ text: word, mode: 'core/bm25' })).hits.map((h) => fx.keys.get(h.exchangeId));
    await db.run("UPDATE distilled SET core = 'Drafted a gardening post about cucumbers' WHERE exchange_n = ?", [n]);
    assert.deepEqual(await found('cucumbers'), ['other0']);
    assert.deepEqual(await found('tomatoes'), []);
    await db.run('DELETE FROM distilled WHERE exchange_n = ?', [n]);
    assert.deepEqual(await found('cucumbers'), []);
    assert.deepEqual(await fx.store.check(), { ok: true, problems: [] });
  });

  test('check finds the core index out of step with the distilled rows, and repair rebuilds it', async () => {
    const db = fx.store.db;
    const n = (await db.get<{ n: number }>("SELECT n FROM exchanges WHERE id LIKE 'other1%'"))!.n;
    // written around the triggers: the index loses a row it has, and gains one of no distilled object
    await db.run("INSERT INTO distilled_core_fts(distilled_core_fts, rowid, core, context) SELECT 'delete', exchange_n, core, context FROM distilled WHERE exchange_n = ?", [n]);
    await db.run("INSERT INTO distilled_core_fts(rowid, core, context) VALUES (999999, 'ghost', '')");
    const report = await fx.store.check();
    assert.equal(report.ok, false);
    assert.ok(report.problems.some((p) => /1 distilled exchanges have no row in the core's full-text index/.test(p)), report.problems.join('\n'));
    assert.ok(report.problems.some((p) => /1 rows of the core's full-text index have no distilled exchange/.test(p)), report.problems.join('\n'));
    await fx.store.repair();
    assert.deepEqual(await fx.store.check(), { ok: true, problems: [] });
    const hits = await createSearcher(fx.reads).search({ text: 'billing', mode: 'core/bm25' });
    assert.deepEqual(hits.hits.map((h) => fx.keys.get(h.exchangeId)), ['other1']);
  });
});
