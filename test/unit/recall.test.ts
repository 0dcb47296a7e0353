import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Hit } from '../../src/core/search/types';
import { facetFilters, isConversationListing, isEmptyRequest, refiningTimes, shownFacets, snippetParts, toCandidate, whyMatched } from '../../src/core/recall';
import { isWebviewMessage } from '../../src/protocol';

const hit: Hit = {
  exchangeId: 'e1', agent: 'codex', file: '/t/r.jsonl', lineStart: 1, lineEnd: 9, sessionId: 's', conversationId: 'c',
  startedAt: '2026-11-20T12:00:00Z', score: 1, confidence: 'medium', prompt: 'Add a <b>test</b>\nsecond line',
  parts: [{ signal: 'verbatim/bm25', rank: 1, score: 7.5 }, { signal: 'core/bm25', rank: 3, score: 2 }],
  rooms: [{ id: 'concept:cart', type: 'concept', label: 'Cart' }],
  filesTouched: [{ path: 'src/cart.js', how: 'edit', lines: [{ start: 4, end: 4 }, { start: 9, end: 12 }] }, { path: 'README.md', how: 'mention' }],
  snippet: '…the \u0001cart\u0002 <img src=x onerror=alert(1)> \u0001total\u0002s…', matchedTerms: ['cart', 'total'], more: 0, copies: [],
};

test('splits marked snippets into text pieces (the webview never parses HTML)', () => {
  assert.deepEqual(snippetParts(hit.snippet), [
    { text: '…the ', mark: false }, { text: 'cart', mark: true }, { text: ' <img src=x onerror=alert(1)> ', mark: false },
    { text: 'total', mark: true }, { text: 's…', mark: false },
  ]);
  assert.deepEqual(snippetParts('plain'), [{ text: 'plain', mark: false }]);
  assert.deepEqual(snippetParts('a\u0002b'), [{ text: 'ab', mark: false }], 'a stray end mark is dropped');
  assert.deepEqual(snippetParts('a\u0001b'), [{ text: 'a', mark: false }, { text: 'b', mark: false }], 'an unclosed mark marks nothing');
});

test('shapes a hit into a candidate: headline, date, files with lines, rooms, why', () => {
  const c = toCandidate(hit, Date.parse('2026-11-23T12:00:00Z'));
  assert.equal(c.headline, 'Add a <b>test</b>', 'the prompt stands in for an undistilled core (as text, escaped by the webview)');
  assert.equal(c.distilled, false);
  assert.equal(c.when, '3 days ago');
  assert.equal(c.date, '2026-11-20');
  assert.deepEqual(c.files, [{ path: 'src/cart.js', label: 'src/cart.js', how: 'edit', lines: '4, 9–12', touched: 'edited lines 4, 9–12' }, { path: 'README.md', label: 'README.md', how: 'mention', touched: 'mentioned' }]);
  assert.deepEqual(c.rooms, [{ id: 'concept:cart', label: 'Cart' }]);
  assert.equal(c.why, 'Your words “cart”, “total” in the conversation and its summary');
  assert.equal(toCandidate({ ...hit, core: 'Cart test added', context: '2250 cents' }).headline, 'Cart test added');
  // a follow-up's detail line ends with its conversation's title (distill/subject.ts); the card shows the title already
  const titled = { ...hit, core: 'resume → Done', title: 'Cart totals  in cents' };
  assert.equal(toCandidate({ ...titled, context: '2250 cents · Cart totals in cents' }).context, '2250 cents');
  assert.equal(toCandidate({ ...titled, context: 'Cart totals in' }).context, undefined, 'a title cut at a word, alone');
  assert.equal(toCandidate({ ...titled, context: '2250 cents · Cart' }).context, '2250 cents · Cart', 'a detail that is no title item stays');
  assert.equal(toCandidate({ ...hit, context: '2250 cents · Cart totals in cents' }).context, '2250 cents · Cart totals in cents', 'no title shown: kept');
  assert.equal(whyMatched({ matchedTerms: [], parts: [] }), 'Related: none of your words appear in it');
  assert.equal(whyMatched({ matchedTerms: [], parts: [{ signal: 'vec(core)', rank: 17, score: 0.5 }] }), 'Close in meaning to what you wrote');
  const why = whyMatched({ matchedTerms: ['coupon'], parts: [{ signal: 'bm25(verbatim)', rank: 17, score: 3 }, { signal: 'vec(core)', rank: 2, score: 0.5 }] });
  assert.equal(why, 'Your words “coupon” in the conversation; close in meaning too');
  assert.doesNotMatch(why, /bm25|vec|#\d/, 'no signal names or ranks');
});

test('a candidate shows every text from the transcript with its hidden characters written out; ids and paths a click sends back stay (issue 44 item 4)', () => {
  const RLO = '\u202E';
  const c = toCandidate({
    ...hit, prompt: `Open evil${RLO}sts.js`, title: `T${RLO}`, context: `x\u2028y`, rooms: [{ id: 'file:e', type: 'file', label: `evil${RLO}sts.js` }],
    filesTouched: [{ path: `src/evil${RLO}sts.js`, how: 'edit' }], snippet: `…\u0001evil\u0002${RLO}sts.js…`,
    more: 2, firstPrompt: `Open evil${RLO}sts.js`, copies: [{ file: `/t/c${RLO}.md`, lineStart: 1, lineEnd: 2 }],
  });
  assert.equal(c.headline, 'Open evil⟨U+202E⟩sts.js');
  assert.equal(c.title, 'T⟨U+202E⟩');
  assert.equal(c.context, 'x⟨U+2028⟩y');
  assert.deepEqual(c.files, [{ path: `src/evil${RLO}sts.js`, label: 'src/evil⟨U+202E⟩sts.js', how: 'edit', touched: 'edited' }]);
  assert.deepEqual(c.rooms, [{ id: 'file:e', label: 'evil⟨U+202E⟩sts.js' }]);
  assert.deepEqual(c.snippet, [{ text: '…', mark: false }, { text: 'evil', mark: true }, { text: '⟨U+202E⟩sts.js…', mark: false }]);
  assert.equal(c.more?.conversation.label, 'T⟨U+202E⟩');
  assert.deepEqual(c.savedIn, ['/t/c⟨U+202E⟩.md, lines 1–2']);
  assert.deepEqual(shownFacets({ room: { id: 'r', label: `a${RLO}` }, file: `f${RLO}` }), { room: { id: 'r', label: 'a⟨U+202E⟩' }, file: `f${RLO}` }, 'the file filters: it stays as stored');
});

test('turns facets into search filters', () => {
  const now = Date.parse('2026-11-23T00:00:00Z');
  assert.deepEqual(facetFilters({ agent: 'aider', time: 'week', room: { id: 'r', label: 'R' }, file: 'a.ts' }, now), {
    agents: ['aider'], since: '2026-11-16T00:00:00.000Z', room: 'r', file: 'a.ts',
  });
  assert.deepEqual(facetFilters({}), {});
  assert.deepEqual(facetFilters({ conversation: { id: 'conv-1', label: 'Fix the cart' } }), { conversation: 'conv-1' });
});

test('"N more in this conversation": the candidate names the conversation (title, else its first prompt)', () => {
  assert.equal(toCandidate(hit).more, undefined, 'nothing left out: no link');
  const c = toCandidate({ ...hit, more: 3, firstPrompt: 'Why is the cart total off by one cent when a coupon applies twice?\nmore' });
  assert.deepEqual(c.more, { count: 3, conversation: { id: 'c', label: 'Why is the cart total off by one cent when a coupon applies…' } });
  assert.deepEqual(toCandidate({ ...hit, more: 1, title: 'Cart rounding', firstPrompt: 'x' }).more?.conversation, { id: 'c', label: 'Cart rounding' });
});

test('an exchange saved in other transcripts too says where (one memory, shown once)', () => {
  assert.equal(toCandidate(hit).savedIn, undefined);
  const c = toCandidate({ ...hit, copies: [{ file: '/t/r-copy.jsonl', lineStart: 3, lineEnd: 11 }] });
  assert.deepEqual(c.savedIn, ['/t/r-copy.jsonl, lines 3–11']);
});

test('a conversation facet asks something: with text it narrows the search, alone it lists the conversation', () => {
  const conversation = { id: 'c', label: 'C' };
  assert.equal(isEmptyRequest({ text: '', facets: { conversation } }), false);
  assert.equal(isConversationListing({ text: ' ', facets: { conversation } }), true);
  assert.equal(isConversationListing({ text: 'cart', facets: { conversation } }), false);
  assert.equal(isConversationListing({ text: '', facets: {} }), false);
});

test('offers the time chips that narrow the memory: some of its exchanges in the window, some before it', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const span = (oldest: string, newest: string) => refiningTimes({ oldest, newest }, now);
  assert.deepEqual(span('2025-06-01T00:00:00Z', '2026-11-22T00:00:00Z'), ['week', 'month', 'quarter']);
  assert.deepEqual(span('2026-11-10T00:00:00Z', '2026-11-22T00:00:00Z'), ['week'], 'all within a month: only the week narrows');
  assert.deepEqual(span('2026-11-20T00:00:00Z', '2026-11-22T00:00:00Z'), [], 'all from this week: nothing to narrow');
  assert.deepEqual(span('2025-06-01T00:00:00Z', '2025-07-01T00:00:00Z'), [], 'all a year old: every window is empty');
  assert.deepEqual(span('2025-06-01T00:00:00Z', '2026-10-01T00:00:00Z'), ['quarter']);
  assert.deepEqual(refiningTimes({}, now), [], 'no dated exchange');
});

test('checks the shape of messages from the webview', () => {
  assert.ok(isWebviewMessage({ type: 'ready' }));
  assert.ok(isWebviewMessage({ type: 'query', seq: 1, text: 'x', facets: {}, exclude: ['a'] }));
  assert.ok(isWebviewMessage({ type: 'openFile', exchangeId: 'e' }));
  assert.ok(!isWebviewMessage({ type: 'query', seq: '1', text: 'x', facets: {}, exclude: [] }));
  assert.ok(!isWebviewMessage({ type: 'query', seq: 1, text: 'x', facets: {}, exclude: [1] }));
  assert.ok(!isWebviewMessage({ type: 'open' }));
  const query = (facets: unknown) => isWebviewMessage({ type: 'query', seq: 1, text: 'x', facets, exclude: [] });
  assert.ok(query({ conversation: { id: 'c', label: 'Fix the cart' }, room: { id: 'r', label: 'R' } }));
  assert.ok(!query({ conversation: 'c' }), 'a conversation facet is { id, label }');
  assert.ok(!query({ conversation: { id: '', label: 'x' } }), 'an empty id names nothing');
  assert.ok(!query({ conversation: { id: 'c' } }));
  assert.ok(!query({ like: { id: 1, label: 'x' } }));
  assert.ok(!query(null));
  assert.ok(!isWebviewMessage({ type: 'eval', code: 'x' }));
  assert.ok(!isWebviewMessage(null));
  assert.ok(!isWebviewMessage('ready'));
});
