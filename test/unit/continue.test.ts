import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { continueAdapter } from '../../src/core/sources/continue';
import { discoverSources } from '../../src/core/sources/discover';
import { splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const SESSIONS = path.join(FIXTURES, 'continue', '.continue', 'sessions');
/** Pretty-printed (current versions), with tool calls, a thinking item and a role of a later version. */
const PRETTY = path.join(SESSIONS, '3b9e1f42-6c1d-4f0e-9a57-2d8c4b1e7a90.json');
/** One line (older versions), the workspace a plain path. */
const ONE_LINE = path.join(SESSIONS, '8f2c0d6e-1a4b-4e3c-b5d7-9e0f1a2b3c4d.json');
/** Another workspace, still titled with Continue's placeholder. */
const OTHER = path.join(SESSIONS, 'c1d2e3f4-0a1b-4c2d-8e3f-5a6b7c8d9e0f.json');

async function parse(file: string, bytes?: Buffer): Promise<ParseOutput> {
  return continueAdapter.parse({ file, lines: splitLines(bytes ?? (await readFile(file)), 0, 1, { holdBackPartial: false }).lines });
}

test('Continue: each history item spans the lines of its record; thinking omitted, a later role counted', async () => {
  const out = await parse(PRETTY);
  assert.deepEqual(out.skipped, [{ line: 185, reason: 'unknown-record' }]);
  const conv = out.conversations[0]!;
  assert.deepEqual(conv.meta, {
    agent: 'continue',
    sessionId: '3b9e1f42-6c1d-4f0e-9a57-2d8c4b1e7a90',
    line: 1,
    isSubagent: false,
    project: '/home/dev/harbour',
    title: 'Case-insensitive harbour codes',
    startedAt: '2025-11-03T09:00:00.000Z', // sessions.json dateCreated: messages carry no time
    model: 'Claude Sonnet 4',
  });
  assert.deepEqual(conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`), [
    'prompt 6-26', 'reply 34-82', 'tool-results 83-90', 'reply 91-118', 'reply 119-125',
    'prompt 126-143', 'reply 144-177', 'tool-results 144-177', 'reply 178-184',
  ]);
  assert.ok(!conv.messages.some((m) => m.text.includes('read the handler before')), 'thinking is not the reply');
  assert.deepEqual(conv.messages[1]!.toolCalls, [{ id: 'call_read_1', name: 'read_file', input: { filepath: 'src/routes/tides.ts' } }]);
  // the output is in the `tool` message and in the call's state: recorded once
  assert.deepEqual(conv.messages.flatMap((m) => m.toolResults), [
    { toolUseId: 'call_read_1', text: 'const station = STATIONS[req.params.code];', isError: false },
    { toolUseId: 'call_new_1', text: "EACCES: permission denied, open 'test/tides-lowercase.test.ts'", isError: true },
  ]);
  assert.equal(conv.messages[5]!.text, 'Now add a test for the lowercase code path in a new file test/tides-lowercase.test.ts, covering brst.\n\n[image]');
});

test('Continue: exchanges with their line ranges, session-precision dates and files touched', async () => {
  const conv = (await parse(PRETTY)).conversations[0]!;
  const { exchanges, dropped } = segmentConversation(conv, segment);
  assert.deepEqual(dropped, []);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision, e.filesTouched]),
    [
      [6, 125, '2025-11-03T09:00:00.000Z', 'session', [{ path: 'src/routes/tides.ts', how: 'edit' }]],
      [126, 184, '2025-11-03T09:00:00.000Z', 'session', [{ path: 'test/tides-lowercase.test.ts', how: 'write' }]],
    ],
  );
});

test('Continue: a one-line document locates each exchange by the byte offset of its record', async () => {
  const conv = (await parse(ONE_LINE)).conversations[0]!;
  assert.equal(conv.meta.project, '/home/dev/harbour');
  assert.equal(conv.meta.title, 'Blank map tiles');
  const { exchanges } = segmentConversation(conv, segment);
  assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.byteStart]), [[1, 1, 12], [1, 1, 417]]);
  // the file the human attached to the second prompt is mentioned by it; the terminal item names no file
  assert.deepEqual(exchanges.map((e) => e.filesTouched), [[], [{ path: 'public/sw.js', how: 'mention' }]]);
  const text = await readFile(ONE_LINE, 'utf8');
  assert.ok(text.slice(417).startsWith('{"message":{"role":"user","content":"Thanks.'), 'the offset is the record');
  assert.notEqual(exchanges[0]!.id, exchanges[1]!.id);
});

test('Continue: the placeholder title is no title; attribution from the records, the index when the head lacks it', async () => {
  const conv = (await parse(OTHER)).conversations[0]!;
  assert.equal(conv.meta.title, undefined);
  assert.equal(conv.meta.project, '/home/dev/gauges', 'a file:// URI as its path');
  assert.equal(await continueAdapter.locateProject!(ONE_LINE, [], []), '/home/dev/harbour', 'sessions.json names it too');
  const found = await discoverSources({
    workspaceRoots: ['/home/dev/harbour'],
    claudeRoots: [],
    codexRoots: [],
    agentRoots: [SESSIONS],
    extraRoots: [],
    includeSubagents: true,
  });
  assert.deepEqual(found.map((s) => [path.basename(s.path), s.adapter.agent, s.project]), [
    ['3b9e1f42-6c1d-4f0e-9a57-2d8c4b1e7a90.json', 'continue', '/home/dev/harbour'],
    ['8f2c0d6e-1a4b-4e3c-b5d7-9e0f1a2b3c4d.json', 'continue', '/home/dev/harbour'],
  ]);
});

test('Continue: a session caught half-written waits for the next run, then is read whole', async () => {
  const dir = path.join(tempDir(), '.continue', 'sessions');
  await cp(SESSIONS, dir, { recursive: true });
  const file = path.join(dir, path.basename(PRETTY));
  const whole = await readFile(file);
  await writeFile(file, whole.subarray(0, Math.floor(whole.length / 2)));
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await assert.rejects(indexSource(store, file, continueAdapter, segment), { code: 'source-unreadable' });
    assert.equal((await store.stats()).exchanges, 0);
    await writeFile(file, whole);
    const r = await indexSource(store, file, continueAdapter, segment);
    assert.notEqual(r, 'unchanged', 'read again although its first read failed');
    assert.deepEqual((await store.listExchanges()).map((e) => [e.lineStart, e.lineEnd]), [[6, 125], [126, 184]]);
  } finally {
    await store.close();
  }
});
