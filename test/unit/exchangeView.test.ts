import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeInline, parseVerbatim, readableMarkdown } from '../../src/core/exchangeMarkdown';
import { exchangeView, readableDate, toolsSummary } from '../../src/core/exchangeView';
import type { StoredExchange } from '../../src/core/store/rows';

function exchange(verbatim: string, extra: Partial<StoredExchange> = {}): StoredExchange {
  return {
    exchangeId: 'abc123def456', agent: 'claude-code', file: '/t/s.jsonl', lineStart: 3, lineEnd: 9, sessionId: 's1',
    startedAt: '2026-10-03T10:12:00.000Z', prompt: 'Fix it', conversationId: 'c1', isSubagent: false, part: 0,
    plyStart: 0, plyEnd: 3, verbatim, filesTouched: [{ path: 'src/a.ts', how: 'edit', lines: [{ start: 4, end: 6 }] }],
    ...extra,
  };
}

test('splits the verbatim rendering into turns and tool blocks', () => {
  const blocks = parseVerbatim('User: why?\n\nAssistant: because\n[tool] Read src/a.ts\n\n[result] ok\n\nAssistant: done');
  assert.deepEqual(blocks, [
    { kind: 'user', text: 'why?' },
    { kind: 'assistant', text: 'because' },
    { kind: 'tools', lines: ['[tool] Read src/a.ts', '[result] ok'] },
    { kind: 'assistant', text: 'done' },
  ]);
});

test('shapes the exchange viewer: title, readable date, approximate dates said so, card, files, turns', () => {
  const now = Date.parse('2026-11-03T10:12:00Z');
  const distilled = { exchangeCore: 'Fixed the rounding', specificContext: 'Math.round', distiller: 'offline', promptVersion: 'x', distilledTokens: 9,
    rooms: [{ id: 'r', type: 'concept' as const, key: 'rounding', label: 'Rounding', relevance: 1 }] };
  const v = exchangeView(exchange('User: show code\n\nAssistant: here\n[tool] Read src/a.ts'), distilled, { position: 2, total: 3, previous: 'p', next: 'n' }, now);
  assert.equal(v.title, 'Fixed the rounding', 'the distilled core when the conversation has no title');
  assert.equal(v.date, 'Sat 3 Oct 2026, 10:12 UTC');
  assert.equal(v.when, '1 month ago');
  assert.equal(v.approximate, undefined);
  assert.equal(v.position, 'exchange 2 of 3');
  assert.deepEqual(v.card, { context: 'Math.round', rooms: ['Rounding'], distiller: 'offline' }, 'the card does not repeat the title');
  assert.equal(exchangeView(exchange('User: hi', { title: 'Coupons' }), distilled).card?.core, 'Fixed the rounding', 'under a conversation title the card says the core');
  assert.deepEqual(v.files, [{ path: 'src/a.ts', label: 'src/a.ts', how: 'edit', lines: '4–6', touched: 'edited lines 4–6' }]);
  assert.deepEqual(v.turns.map((t) => t.kind), ['user', 'assistant', 'tools']);
  assert.deepEqual(v.copies, []);
  const copied = exchangeView(exchange('User: hi', { copies: [{ file: '/t/other.md', lineStart: 4, lineEnd: 9 }] }));
  assert.deepEqual(copied.copies, ['/t/other.md, lines 4–9'], 'the same conversation saved in another file');
  const titled = exchangeView(exchange('User: hi', { title: 'Coupon rounding', datePrecision: 'session' }), undefined, undefined, now);
  assert.equal(titled.title, 'Coupon rounding', "the conversation's title first");
  assert.equal(titled.approximate, 'approximate: when its session started');
  assert.equal(exchangeView(exchange('User: hi', { datePrecision: 'file-name' })).approximate, 'approximate: from the file name');
  assert.equal(readableDate(undefined), 'unknown date');
});

test('escapes one-line metadata for Markdown surfaces', () => {
  assert.equal(escapeInline('[x](javascript:alert(1))'), '\\[x\\](javascript:alert(1))');
  assert.equal(escapeInline('Array<string> & more'), 'Array\\<string\\> \\& more');
  assert.equal(escapeInline('a\n# b'), 'a # b');
});

test('shows every text from the transcript with its hidden characters written out; paths a click sends back stay as stored (issue 44 item 4)', () => {
  const RLO = '\u202E';
  const distilled = { exchangeCore: `Renamed evil${RLO}sts.js`, specificContext: `a\u2028b`, distiller: 'offline', promptVersion: 'x', distilledTokens: 9,
    rooms: [{ id: 'r', type: 'file' as const, key: 'k', label: `src/evil${RLO}sts.js`, relevance: 1 }] };
  const v = exchangeView(exchange(`User: open src/evil${RLO}sts.js\n\nAssistant: done\u200B\n[tool] Read src/evil${RLO}sts.js`, {
    title: `Title ${RLO}x`, gitBranch: `main${RLO}`, file: `/t/s${RLO}.jsonl`, filesTouched: [{ path: `src/evil${RLO}sts.js`, how: 'edit' }],
  }), distilled);
  assert.equal(v.title, 'Title ⟨U+202E⟩x');
  assert.equal(v.tab, 'Title ⟨U+202E⟩x', 'the tab title too');
  assert.equal(exchangeView(exchange('User: x', { title: `${'x'.repeat(38)}${RLO}yz` })).tab, `${'x'.repeat(38)}⟨U+202E⟩…`, 'a tab title is cut before its characters are written out');
  assert.deepEqual(v.files, [{ path: `src/evil${RLO}sts.js`, label: 'src/evil⟨U+202E⟩sts.js', how: 'edit', touched: 'edited' }]);
  assert.deepEqual(v.card, { core: 'Renamed evil⟨U+202E⟩sts.js', context: 'a⟨U+2028⟩b', rooms: ['src/evil⟨U+202E⟩sts.js'], distiller: 'offline' });
  assert.deepEqual(v.turns, [
    { kind: 'user', text: 'open src/evil⟨U+202E⟩sts.js' },
    { kind: 'assistant', text: 'done⟨U+200B⟩' },
    { kind: 'tools', lines: ['[tool] Read src/evil⟨U+202E⟩sts.js'], summary: '1 tool call' },
  ]);
  assert.match(v.session, /on branch main⟨U\+202E⟩$/);
  assert.match(v.transcript, /^\/t\/s⟨U\+202E⟩\.jsonl, lines/);
  // without a title, the headline (core/format.ts) shows them too
  assert.equal(exchangeView(exchange(`User: x`, {}), distilled).title, 'Renamed evil⟨U+202E⟩sts.js');
});

test('tool groups say what they hold with the right number: "1 tool call", "2 tool calls", outputs alone as outputs', () => {
  assert.equal(toolsSummary(['[tool] Read a']), '1 tool call');
  assert.equal(toolsSummary(['[tool] Read a', '[result] x', '[tool] Edit a']), '2 tool calls');
  assert.equal(toolsSummary(['[result] ok']), '1 tool output', 'a lone output is no "1 tool calls"');
  assert.equal(toolsSummary(['[result] ok', '[error] no']), '2 tool outputs');
  const v = exchangeView(exchange('User: x\n\n[result] ok\n\nAssistant: done'));
  assert.deepEqual(v.turns[1], { kind: 'tools', lines: ['[result] ok'], summary: '1 tool output' });
});

test("an export's run-together bold titles get a paragraph each; empty code fences go; code stays as written (issue 39)", () => {
  // as SpecStory exports Copilot's thinking titles and tool calls
  const exported = [
    '**Inspecting context_store.py for SQLite****Investigating SQLite concurrency issues**',
    '',
    'I plan to add retries.**Correcting parameter name****Analyzing SQLite**',
    '```',
    '',
    '```',
    '**Adjusting import order**',
    '```python',
    '```',
    '**Preparing final response**Simultaneous writes timed out.',
    '```',
    '```',
    'Done: `a****b` stays.',
    '```',
    'x = "**a****b**"',
    '```',
  ].join('\n');
  assert.equal(readableMarkdown(exported), [
    '**Inspecting context_store.py for SQLite**',
    '',
    '**Investigating SQLite concurrency issues**',
    '',
    'I plan to add retries.',
    '',
    '**Correcting parameter name**',
    '',
    '**Analyzing SQLite**',
    '',
    '**Adjusting import order**',
    '',
    '**Preparing final response**',
    '',
    'Simultaneous writes timed out.',
    '',
    'Done: `a****b` stays.',
    '```',
    'x = "**a****b**"',
    '```',
  ].join('\n'));
  const v = exchangeView(exchange(`User: why locked?\n\nAssistant: ${exported}`));
  const answer = v.turns[1] as { text: string };
  assert.doesNotMatch(answer.text.split('Done')[0]!, /\*\*\*\*/, 'no literal asterisks outside code');
  assert.doesNotMatch(answer.text, /```\n\n```/, 'no empty fence');
  assert.equal(readableMarkdown('plain **bold** text\n\n    indented ****'), 'plain **bold** text\n\n    indented ****');
});
