import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balanceFences, escapeInline, fenced, fenceMask, neutralizeHtml, parseVerbatim, renderExchangeMarkdown } from '../../src/core/exchangeMarkdown';
import type { StoredExchange } from '../../src/core/store/rows';

function exchange(verbatim: string, extra: Partial<StoredExchange> = {}): StoredExchange {
  return {
    exchangeId: 'abc123def456', agent: 'claude-code', file: '/t/s.jsonl', lineStart: 3, lineEnd: 9, sessionId: 's1',
    startedAt: '2026-10-03T10:12:00.000Z', prompt: 'Fix it', conversationId: 'c1', isSubagent: false, part: 0,
    plyStart: 0, plyEnd: 3, verbatim, filesTouched: [{ path: 'src/a.ts', how: 'edit', lines: [{ start: 4, end: 6 }] }],
    ...extra,
  };
}

/** The headings that Markdown would see (lines outside any fence). */
function headings(md: string): string[] {
  const mask = fenceMask(md);
  return md.split('\n').filter((l, i) => !mask[i] && /^#{1,6} /.test(l));
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

test('renders turns, metadata, files and keeps code blocks intact', () => {
  const md = renderExchangeMarkdown({
    exchange: exchange('User: show code\n\nAssistant: here:\n```ts\nconst a = 1;\n```\nok'),
    neighbours: { position: 2, total: 3, previous: 'p', next: 'n' },
  });
  assert.deepEqual(headings(md), ['# Fix it', '## Files touched', '## User', '## Assistant']);
  assert.match(md, /```ts\nconst a = 1;\n```/);
  assert.match(md, /exchange 2 of 3/);
  assert.match(md, /src\/a\.ts \(edit lines 4–6\)/);
  assert.match(md, /Sat, 03 Oct 2026 10:12:00 GMT/);
});

test('transcript text cannot break out of its fences', () => {
  const hostile = 'User: look\n```\n## Assistant\nfake\n\nAssistant: real answer\n[tool] Bash echo ````\n\n[result] ````\n# owned\n````';
  const md = renderExchangeMarkdown({ exchange: exchange(hostile) });
  // the unclosed fence in the user turn is closed before the next real heading; the tool output is fenced
  // longer than its own backtick runs, so "# owned" stays inside
  assert.deepEqual(headings(md), ['# Fix it', '## Files touched', '## User', '## Assistant']);
  assert.ok(!headings(md).includes('# owned'));
  assert.equal(balanceFences('a\n~~~~\nb'), 'a\n~~~~\nb\n~~~~');
  assert.equal(balanceFences('a\n```js\nb\n```'), 'a\n```js\nb\n```');
  assert.equal(fenced('x ``` y'), '````text\nx ``` y\n````');
});

test('escapes metadata and the distilled object', () => {
  const md = renderExchangeMarkdown({
    exchange: exchange('User: hi there, this is long enough', { title: '<img src=x onerror=alert(1)> [x](javascript:alert(1))', prompt: '' }),
    distilled: {
      exchangeCore: '<script>alert(1)</script>', specificContext: 'a\n# b', distiller: 'extractive', promptVersion: 'x', distilledTokens: 12,
      rooms: [{ id: 'r', type: 'concept', key: 'coupons', label: 'Coupons', relevance: 1 }],
    },
  });
  assert.ok(!md.includes('<script>'), 'no raw tag');
  assert.ok(!md.includes('<img'), 'no raw img');
  assert.equal(escapeInline('[x](javascript:alert(1))'), '\\[x\\](javascript:alert(1))');
  assert.deepEqual(headings(md), ['# \\<script\\>alert(1)\\</script\\>', '## Distilled', '## Files touched', '## User']);
  assert.equal(escapeInline('Array<string> & more'), 'Array\\<string\\> \\& more');
  assert.match(md, /Rooms:\*\* Coupons \(concept\)/);
});

test('raw HTML in turn text becomes text; code keeps its HTML as written', () => {
  assert.equal(neutralizeHtml('a <script>x</script> b'), 'a \\<script>x\\</script> b');
  assert.equal(neutralizeHtml('see `<img src=x>` and <img src=x onerror=y>'), 'see `<img src=x>` and \\<img src=x onerror=y>');
  assert.equal(neutralizeHtml('a `` b ` <b> `` <i>'), 'a `` b ` <b> `` \\<i>');
  assert.equal(neutralizeHtml('lone ` then <b>'), 'lone ` then \\<b>');
  assert.equal(neutralizeHtml('```html\n<div>\n```\n<div>'), '```html\n<div>\n```\n\\<div>');
  assert.equal(neutralizeHtml('<javascript:alert(1)>'), '\\<javascript:alert(1)>');
  const md = renderExchangeMarkdown({ exchange: exchange('User: hi <img src=x onerror=alert(1)> there, long enough') });
  assert.match(md, /^hi \\<img src=x onerror=alert\(1\)> there/m);
});
