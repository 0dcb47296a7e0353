import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { capPerConversation } from '../../src/core/search/diversity';
import { createSearcher } from '../../src/core/search/searcher';
import type { SearchQuery, SearchResult } from '../../src/core/search/types';
import { CONVERSATIONS, type Fixture, openFixture } from './searchFixture';

// "N more in this conversation": the shop conversation holds three exchanges with "login" (a1, a2, a3); the
// default cap of two per conversation drops one of them on a query of six words or more (LONG; a shorter one sees up
// to six of a conversation: searcher.ts, SHORT_QUERY_TERMS).
const LONG = 'login page null pointer broken cookie';

describe('"N more in this conversation" and the conversation filter', () => {
  let fx: Fixture;
  const keysOf = (r: SearchResult) => r.hits.map((h) => fx.keys.get(h.exchangeId));
  const search = (q: SearchQuery) => createSearcher(fx.reads).search({ mode: 'verbatim/bm25', ...q });

  before(async () => {
    fx = await openFixture();
  });
  after(() => fx?.store.close());

  test('each hit counts the matches of its conversation that the cap left out', async () => {
    const capped = await search({ text: LONG });
    assert.equal(capped.hits.length, 2);
    assert.deepEqual(capped.hits.map((h) => h.more), [1, 1], 'the third login exchange was left out');
    assert.equal(capped.hits[0]!.firstPrompt, 'the login page throws a null pointer error', 'an untitled conversation is named by its first prompt');
    const uncapped = await search({ text: LONG, perConversation: 5 });
    assert.deepEqual(uncapped.hits.map((h) => h.more), [0, 0, 0]);
    assert.ok(uncapped.hits.every((h) => h.firstPrompt === undefined), 'nothing left out: no name needed');
    const lone = await search({ text: 'tomatoes' });
    assert.deepEqual(lone.hits.map((h) => h.more), [0]);
  });

  test('the conversation filter keeps only its exchanges, and all of its matches (no cap)', async () => {
    const shop = (await search({ text: 'login' })).hits[0]!.conversationId;
    const within = await search({ text: 'login error', filters: { conversation: shop } });
    assert.deepEqual(new Set(keysOf(within)), new Set(['a1', 'a2', 'a3']), 'three from one conversation despite the default cap of two');
    assert.ok(within.hits.every((h) => h.more === 0));
    assert.deepEqual(keysOf(await search({ text: 'error', filters: { conversation: shop } })).sort(), ['a1', 'a3'], '"error" of b1 is in another conversation');
    assert.deepEqual(keysOf(await search({ text: 'tomatoes', filters: { conversation: shop } })), []);
  });

  test('the cap counts what it leaves out past the limit too', () => {
    const ranked = [1, 2, 3, 4, 5].map((n) => ({ n }));
    const conv = new Map([[1, 'x'], [2, 'x'], [3, 'y'], [4, 'x'], [5, 'y']]);
    const { kept, left } = capPerConversation(ranked, conv, 1, 1);
    assert.deepEqual(kept, [{ n: 1 }]);
    assert.deepEqual([...left], [['x', 2], ['y', 1]]);
  });

  test('recall: a candidate links to its conversation; the facet alone lists the conversation in order', async () => {
    const own = await openFixture();
    await own.store.close();
    const memory = await Memory.open(path.join(own.dir, 'recall.sqlite'));
    try {
      const answer = await memory.recall({ text: LONG });
      const more = answer.candidates[0]!.more;
      assert.equal(more?.count, 1);
      assert.equal(more?.conversation.label, 'the login page throws a null pointer error');
      const within = await memory.recall({ text: LONG, facets: { conversation: more!.conversation } });
      assert.equal(within.candidates.length, 3, 'the left-out exchange is reached');
      assert.ok(within.candidates.every((c) => c.more === undefined));
      const listing = await memory.recall({ text: ' ', facets: { conversation: more!.conversation } });
      assert.equal(listing.inOrder, true);
      assert.equal(listing.recent, undefined);
      const shop = CONVERSATIONS[0]!.exchanges.map((x) => own.ids.get(x.key));
      assert.deepEqual(listing.candidates.map((c) => c.exchangeId), shop, 'first to last, as Previous/Next walk it');
      const rest = await memory.recall({ text: '', facets: { conversation: more!.conversation }, exclude: [shop[0]!] });
      assert.deepEqual(rest.candidates.map((c) => c.exchangeId), shop.slice(1), '"not these" sets them aside');
    } finally {
      await memory.close();
    }
  });
});
