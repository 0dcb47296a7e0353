import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import { RAW_WHOLE_FILE_BYTES } from '../../src/core/rawFile';
import { rawView } from '../../src/core/rawView';
import { editorAgentRoots } from '../../src/core/sources/agentRoots';
import { clineAdapter } from '../../src/core/sources/cline';
import { continueAdapter } from '../../src/core/sources/continue';
import { discoverSources } from '../../src/core/sources/discover';
import { Store } from '../../src/core/store/store';
import { COMPOSER_A, SECRET, writeCursorUserData } from './cursorFixture';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };

/** The selected lines of a raw view. */
function view(v: { text: string; lineStart: number; lineEnd: number }): string {
  return v.text.split('\n').slice(v.lineStart - 1, v.lineEnd).join('\n');
}

/** Each stored exchange's raw view: the selected lines' text. */
async function selections(store: Store, sessionId?: string): Promise<Array<{ lines: [number, number]; text: string }>> {
  const out = [];
  for (const s of await store.listExchanges({})) {
    if (sessionId && s.sessionId !== sessionId) continue;
    const e = (await store.getExchange(s.exchangeId))!;
    const v = await rawView({ ...e, ...(await store.recordRange(e.exchangeId))! });
    out.push({ lines: [v.lineStart, v.lineEnd] as [number, number], text: view(v) });
  }
  return out;
}

test("open raw on Cline's one-line history: each exchange's records, pretty-printed, from its first record to the next exchange's", async () => {
  const store = await Store.open(path.join(tempDir('raw-'), 's.sqlite'));
  try {
    await indexSource(store, path.join(FIXTURES, 'cline', 'saoudrizwan.claude-dev', 'tasks', '1762077600000', 'api_conversation_history.json'), clineAdapter, segment);
    const [first, second] = await selections(store);
    assert.ok(first && second);
    assert.ok(first.text.startsWith('  {\n    "role": "user"') && first.text.includes("show them in the harbour's local time zone"), first.text.slice(0, 200));
    assert.ok(!first.text.includes('zone abbreviation'), 'ends before the second exchange');
    assert.match(second.text, /^ {2}\{\n {4}"role": "user"[\s\S]*\[replace_in_file for 'src\/format.ts'\][\s\S]*zone abbreviation/);
    assert.ok(second.lines[0] > first.lines[1]);
  } finally {
    await store.close();
  }
});

test("open raw on Continue's one-line session: its `history` records pretty-printed, the exchange's selected", async () => {
  const store = await Store.open(path.join(tempDir('raw-'), 's.sqlite'));
  try {
    await indexSource(store, path.join(FIXTURES, 'continue', '.continue', 'sessions', '8f2c0d6e-1a4b-4e3c-b5d7-9e0f1a2b3c4d.json'), continueAdapter, segment);
    const [first, second] = await selections(store);
    assert.deepEqual([first?.lines, second?.lines], [[3, 16], [17, 53]]);
    assert.ok(first!.text.startsWith('  {\n    "message": {\n      "role": "user",\n      "content": "Why does the harbour map render blank tiles'), first!.text.slice(0, 200));
    assert.ok(first!.text.includes('swapping x and y in src/map/tiles.js') && !first!.text.includes('Thanks.'), 'ends before the second exchange');
    assert.match(second!.text, /^ {2}\{\n {4}"message": \{\n {6}"role": "user",\n {6}"content": "Thanks\.[\s\S]*"value": "file:\/\/\/home\/dev\/harbour\/public\/sw\.js"[\s\S]*bump CACHE_VERSION in sw\.js[\s\S]*\n {2}\}$/);
  } finally {
    await store.close();
  }
});

test("open raw on Cursor's database: the conversation's records, the exchange's bubbles selected, no keys or tokens", async () => {
  const root = tempDir('raw-');
  const { db, writer } = await writeCursorUserData(root);
  const store = await Store.open(path.join(tempDir('raw-'), 's.sqlite'));
  try {
    const sources = await discoverSources({ workspaceRoots: ['/home/dev/tidepool'], claudeRoots: [], codexRoots: [], agentRoots: editorAgentRoots(root), extraRoots: [], includeSubagents: true });
    await indexSources(store, sources, segment);
    for (const v of await selections(store)) assert.ok(!v!.text.includes(SECRET));
    const views = await selections(store, COMPOSER_A);
    const a1 = views[0]!;
    assert.equal(a1.text.split('\n')[0], `  {`);
    assert.match(a1.text, new RegExp(`"key": "bubbleId:${COMPOSER_A}:a-u1"[\\s\\S]*"position": 1[\\s\\S]*"key": "bubbleId:${COMPOSER_A}:a-r1"[\\s\\S]*"position": 5`));
    assert.ok(!a1.text.includes('"position": 6'), 'ends at the exchange\'s last bubble');
    const a2 = views[1]!;
    assert.match(a2.text, /"position": 7[\s\S]*"bubble": "\(missing\)"[\s\S]*"position": 10/);
    // bubbles Cursor has since removed: the composer is what is left to show; a removed composer is an error
    const removed = (await rawView({ agent: 'cursor', file: db, sessionId: COMPOSER_A, lineStart: 90, lineEnd: 95, byteStart: 0 }))!;
    assert.equal(view(removed).split('\n')[1], `    "key": "composerData:${COMPOSER_A}",`);
    assert.match(view(removed), /\n {2}\},?$/);
    await assert.rejects(rawView({ agent: 'cursor', file: db, sessionId: 'composer-gone', lineStart: 1, lineEnd: 2, byteStart: 0 }), /The conversation composer-gone is no longer in Cursor's database .*state\.vscdb; its exchanges stay in the index\./);
  } finally {
    await store.close();
    await writer.close();
  }
});

test('open raw on a file whose lines place the exchange: its text as on disk, hidden characters written out, line numbers kept (issue 44 items 1, 4, 5)', async () => {
  const file = path.join(tempDir('raw-'), 'session.md');
  const lines = [
    '# Chat',
    'User: run [LINK](command:workbench.action.terminal.new) and open src/evil\u202Ests.js',
    'Assistant: a line\u2028separator, a paragraph\u2029separator, a lone\rreturn, a\u200Bzero-width space',
    'the end',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  const before = readFileSync(file);
  const v = await rawView({ agent: 'specstory', file, sessionId: 's', lineStart: 2, lineEnd: 3, byteStart: 7 });
  assert.equal(v.text.split('\n').length, lines.length + 1, 'as many lines as the file: no separator became a line break');
  assert.equal(view(v), [
    'User: run [LINK](command:workbench.action.terminal.new) and open src/evil⟨U+202E⟩sts.js',
    'Assistant: a line⟨U+2028⟩separator, a paragraph⟨U+2029⟩separator, a lone⟨U+000D⟩return, a⟨U+200B⟩zero-width space',
  ].join('\n'));
  assert.ok(!/[\u2028\u2029\u202E\u200B\r]/.test(v.text), 'no hidden character is left to draw');
  assert.deepEqual(readFileSync(file), before, 'the file is never rewritten');
});

test('open raw on a file too large for an editor: the exchange\'s lines only, under a line saying which', async () => {
  const file = path.join(tempDir('raw-'), 'huge.jsonl');
  const filler = `${JSON.stringify({ type: 'user', text: 'x'.repeat(1000) })}\n`;
  const count = Math.ceil((RAW_WHOLE_FILE_BYTES + 1) / filler.length);
  const mine = ['{"type":"user","text":"the exchange\u2028asked"}', '{"type":"assistant","text":"and was answered"}'];
  writeFileSync(file, `${filler.repeat(count)}${mine.join('\n')}\n${filler}`);
  const v = await rawView({ agent: 'claude-code', file, sessionId: 's', lineStart: count + 1, lineEnd: count + 2, byteStart: filler.length * count });
  assert.deepEqual([v.lineStart, v.lineEnd], [2, 3]);
  assert.match(v.text.split('\n')[0]!, new RegExp(`^\\[Agent Recall\\] .*huge\\.jsonl is 3[23]\\.\\d MB, too large to show whole: its lines ${count + 1}–${count + 2} \\(the exchange\\) follow`));
  assert.equal(view(v), mine.join('\n').replace('\u2028', '⟨U+2028⟩'));
  // a pretty-printed record's offset may fall inside its first line: the view starts at that line's start
  const mid = await rawView({ agent: 'claude-code', file, sessionId: 's', lineStart: count + 1, lineEnd: count + 1, byteStart: filler.length * count + 5 });
  assert.equal(view(mid), mine[0]!.replace('\u2028', '⟨U+2028⟩'));
});

test('open raw on a transcript that is gone says so', async () => {
  const file = path.join(tempDir('raw-'), 'deleted.jsonl');
  await assert.rejects(rawView({ agent: 'claude-code', file, sessionId: 's', lineStart: 1, lineEnd: 2, byteStart: 0 }), /The transcript .*deleted\.jsonl no longer exists; its exchanges stay in the index\./);
});
