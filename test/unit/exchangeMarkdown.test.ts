import assert from 'node:assert/strict';
import { test } from 'node:test';
import MarkdownIt from 'markdown-it';
import { escapeInline, fenced, parseVerbatim, renderExchangeMarkdown } from '../../src/core/exchangeMarkdown';
import type { StoredExchange } from '../../src/core/store/rows';

// a real CommonMark tokenizer configured as VS Code's Markdown preview is (raw HTML on, bare URLs linked)
const markdown = new MarkdownIt({ html: true, linkify: true });

function exchange(verbatim: string, extra: Partial<StoredExchange> = {}): StoredExchange {
  return {
    exchangeId: 'abc123def456', agent: 'claude-code', file: '/t/s.jsonl', lineStart: 3, lineEnd: 9, sessionId: 's1',
    startedAt: '2026-10-03T10:12:00.000Z', prompt: 'Fix it', conversationId: 'c1', isSubagent: false, part: 0,
    plyStart: 0, plyEnd: 3, verbatim, filesTouched: [{ path: 'src/a.ts', how: 'edit', lines: [{ start: 4, end: 6 }] }],
    ...extra,
  };
}

/** The headings that Markdown sees, as their source lines. */
function headings(md: string): string[] {
  const lines = md.split('\n');
  return markdown.parse(md, {}).filter((t) => t.type === 'heading_open').map((t) => lines[t.map![0]]!);
}

/**
 * Every link, image and raw HTML piece that Markdown finds in the document, except bare http(s) URLs in
 * metadata, which the preview links with the URL itself as text (they say where they go).
 */
function linksAndHtml(md: string): string[] {
  const found: string[] = [];
  const walk = (tokens: ReturnType<MarkdownIt['parse']>): void => {
    for (const t of tokens) {
      if (t.type === 'link_open' && !(t.markup === 'linkify' && /^https?:/.test(t.attrGet('href') ?? ''))) found.push(`link ${t.attrGet('href')}`);
      else if (t.type === 'image') found.push(`image ${t.attrGet('src')}`);
      else if (t.type === 'html_block' || t.type === 'html_inline') found.push(`html ${t.content}`);
      if (t.children) walk(t.children);
    }
  };
  walk(markdown.parse(md, {}));
  return found;
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
  // the unclosed fence in the user turn and the tool output's own fences stay inside our longer fences
  assert.deepEqual(headings(md), ['# Fix it', '## Files touched', '## User', '## Assistant']);
  assert.equal(fenced('x ``` y'), '````text\nx ``` y\n````');
});

// issue 18 items 9 and 10: links to commands, and HTML that line-based escaping let through
const HOSTILE_TURNS = [
  '[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20http%3A%2F%2F127.0.0.1%3A9%2Fx%5Cn%22%7D)',
  '[term](command:workbench.action.terminal.new) [ext](vscode://ms-vscode.foo/bar) [file](file:///etc/passwd)',
  '[ref][1]\n\n[1]: command:workbench.action.terminal.new "title"',
  '<command:workbench.action.terminal.new> <https://tracker.example/pixel>',
  '\\`<img src=https://tracker.example/a.png>\\`',
  '[a `b](https://x.example "t`") <meta http-equiv=refresh content="0;url=/x">',
  '- item\n  ```\n  code\n```\n<style>body{display:none}</style>',
  '<a href="command:workbench.action.terminal.new">a</a> <img src=x onerror=alert(1)>',
  '![pixel](https://tracker.example/p.gif) https://bare.example/link www.example.com',
];

test('no link, image or HTML of a transcript survives into the document (a real Markdown tokenizer decides)', () => {
  for (const turn of HOSTILE_TURNS) {
    const md = renderExchangeMarkdown({
      exchange: exchange(`User: ${turn}\n\nAssistant: ${turn}\n[tool] Bash ${turn}\n\n[result] ${turn}\n\n[context] ${turn}`, { title: turn }),
      distilled: { exchangeCore: turn, specificContext: turn, distiller: 'extractive', promptVersion: 'x', distilledTokens: 3, rooms: [{ id: 'r', type: 'concept', key: 'k', label: turn, relevance: 1 }] },
    });
    assert.deepEqual(linksAndHtml(md), [], turn);
  }
});

test('escapes metadata and the distilled object', () => {
  const md = renderExchangeMarkdown({
    exchange: exchange('User: hi there, this is long enough', { title: '<img src=x onerror=alert(1)> [x](javascript:alert(1))', prompt: '' }),
    distilled: {
      exchangeCore: '<script>alert(1)</script>', specificContext: 'a\n# b', distiller: 'extractive', promptVersion: 'x', distilledTokens: 12,
      rooms: [{ id: 'r', type: 'concept', key: 'coupons', label: 'Coupons', relevance: 1 }], facets: [],
    },
  });
  assert.ok(!md.includes('<script>'), 'no raw tag');
  assert.ok(!md.includes('<img'), 'no raw img');
  assert.equal(escapeInline('[x](javascript:alert(1))'), '\\[x\\](javascript:alert(1))');
  assert.deepEqual(headings(md), ['# \\<script\\>alert(1)\\</script\\>', '## Distilled', '## Files touched', '## User']);
  assert.equal(escapeInline('Array<string> & more'), 'Array\\<string\\> \\& more');
  assert.match(md, /Rooms:\*\* Coupons \(concept\)/);
});
