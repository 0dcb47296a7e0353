import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import type { Conversation } from '../../src/core/model';
import { rawView } from '../../src/core/rawView';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { defaultAmpRoots, editorAgentRoots } from '../../src/core/sources/agentRoots';
import { ampAdapter } from '../../src/core/sources/amp';
import { defaultDiscovery, discoverSources, transcriptRoots } from '../../src/core/sources/discover';
import { splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const THREAD_ID = 'T-019c4e2a-7b1d-7f30-9a6e-2d8c5f0b4e91';
const THREAD = path.join(FIXTURES, 'amp', 'threads', `${THREAD_ID}.json`);
const OLD_THREAD = path.join(FIXTURES, 'amp', 'sourcegraph.amp', 'threads3', 'T-6a1d9c3e-2f47-4b80-8e15-c7a0b3d94f26.json');
const segment = { minChars: 100, maxPlies: 20 };

async function parse(file: string): Promise<ParseOutput> {
  return ampAdapter.parse({ file, lines: splitLines(await readFile(file), 0, 1, { holdBackPartial: false }).lines });
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

test('a thread: prompts, replies (thinking left out), tool uses and both run shapes; each message spans the lines of its record; a later role counted', async () => {
  const out = await parse(THREAD);
  const conv = only(out);
  assert.deepEqual(conv.meta, {
    agent: 'amp',
    sessionId: THREAD_ID,
    line: 1,
    isSubagent: false,
    project: '/home/dev/lighthouse',
    title: 'Lamp timer from the environment',
    startedAt: '2026-04-03T10:00:00.000Z',
    model: 'claude-sonnet-4-5',
  });
  assert.deepEqual(out.skipped, [{ line: 191, reason: 'unknown-record' }]);
  assert.deepEqual(
    conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`),
    ['prompt 8-20', 'reply 21-60', 'tool-results 61-77', 'reply 78-98', 'tool-results 99-114', 'reply 115-128', 'prompt 129-141', 'reply 142-160', 'tool-results 161-176', 'reply 177-190'],
  );
  const [prompt, reply, results] = conv.messages;
  assert.equal(prompt!.timestamp, '2026-04-03T10:00:05.000Z', "the user message's meta.sentAt");
  assert.equal(prompt!.uuid, `${THREAD_ID}#0`, "the thread's message number: the same thread in the extension's older folder is the same memory");
  assert.equal(reply!.text, 'Reading the lamp controller.');
  assert.equal(reply!.timestamp, '2026-04-03T10:00:09.000Z', "the inference's usage.timestamp");
  assert.deepEqual(results!.toolResults, [{ toolUseId: 'toolu_read1', text: '18:   setTimeout(off, 60 * 60 * 1000);', isError: false }]);
  assert.deepEqual(conv.messages[8]!.toolResults, [{ toolUseId: 'toolu_bash1', text: 'lamp.test.ts: expected 3600000 to be 5400000', isError: true }]);
});

test('a thread: exchanges with their message times; the edit\'s diff gives the lines it changed', async () => {
  const { exchanges } = segmentConversation(only(await parse(THREAD)), segment);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.endedAt, e.datePrecision]),
    [
      [8, 128, '2026-04-03T10:00:05.000Z', '2026-04-03T10:00:21.000Z', 'message'],
      [129, 190, '2026-04-03T10:01:00.000Z', '2026-04-03T10:01:10.000Z', 'message'],
    ],
  );
  // read (read_range 10-30), then edited: the edit's hunk @@ -18,1 +18,3 @@ gives the lines
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/lamp.ts', how: 'edit', lines: [{ start: 18, end: 20 }] }]);
  assert.match(exchanges[1]!.verbatim, /^\[error\] lamp\.test\.ts: expected 3600000/m);
});

test("the extension's older one-line thread: a compaction summary is context, results in Anthropic's shape, dated by the thread; open raw shows its messages", async () => {
  const conv = only(await parse(OLD_THREAD));
  assert.deepEqual(conv.messages.map((m) => m.kind), ['context', 'prompt', 'reply', 'tool-results', 'reply']);
  assert.match(conv.messages[0]!.text, /^Earlier: the fog horn schedule/);
  assert.deepEqual(conv.messages[3]!.toolResults, [{ toolUseId: 'tu1', text: 'src/horn.ts:4:export const INTERVAL = 30_000;', isError: false }]);
  const [e] = segmentConversation(conv, segment).exchanges;
  assert.deepEqual([e!.startedAt, e!.datePrecision], ['2026-01-01T00:00:00.000Z', 'session'], 'no message time: the thread\'s creation, approximate');

  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await indexSource(store, OLD_THREAD, ampAdapter, segment);
    const [row] = await store.listExchanges({});
    const stored = (await store.getExchange(row!.exchangeId))!;
    const v = await rawView({ ...stored, ...(await store.recordRange(stored.exchangeId))! });
    assert.ok(v);
    const selected = v.text.split('\n').slice(v.lineStart - 1, v.lineEnd).join('\n');
    assert.match(v.text, /^\/\/ the `messages` records of T-6a1d9c3e/);
    assert.ok(selected.includes('"summary": "Earlier: the fog horn schedule') && selected.includes('every 30 seconds'), selected);
  } finally {
    await store.close();
  }
});

test('a thread caught half-written is read again after a pause; one that stays cut is an error that keeps what was stored', async () => {
  const dir = path.join(tempDir(), 'threads');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${THREAD_ID}.json`);
  const whole = await readFile(THREAD);
  const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    // Amp finishes its rewrite while the first read is paused
    await writeFile(file, cut);
    const finished = setTimeout(() => writeFileSync(file, whole), 30);
    const read = await indexSource(store, file, ampAdapter, segment);
    clearTimeout(finished);
    assert.notEqual(read, 'unchanged');
    assert.equal((await store.stats()).exchanges, 2);
    // now it stays cut: nothing stored is lost, and the next run reads it again
    await writeFile(file, cut);
    await assert.rejects(indexSource(store, file, ampAdapter, segment), /not a complete JSON document.*read again/);
    assert.equal((await store.stats()).exchanges, 2);
    await writeFile(file, whole);
    // read again: the bytes it had when stored, so there is nothing to parse (sources.file_hash); its time is stored
    assert.equal(await indexSource(store, file, ampAdapter, segment), 'unchanged');
    assert.equal((await store.getSource(file))?.mtimeMs, Math.floor(statSync(file).mtimeMs));
    assert.equal((await store.stats()).exchanges, 2);
  } finally {
    await store.close();
  }
});

test("discovery by layout: Amp's threads and the extension's older threads3 found; the same thread in both is one memory", async () => {
  const root = tempDir();
  await cp(path.join(FIXTURES, 'amp'), root, { recursive: true });
  await cp(THREAD, path.join(root, 'sourcegraph.amp', 'threads3', `${THREAD_ID}.json`));
  const found = await discoverSources({ workspaceRoots: ['/home/dev/lighthouse'], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
  assert.deepEqual(found.map((s) => [path.relative(root, s.path), s.adapter.agent, s.project]), [
    [path.join('sourcegraph.amp', 'threads3', `${THREAD_ID}.json`), 'amp', '/home/dev/lighthouse'],
    [path.join('sourcegraph.amp', 'threads3', 'T-6a1d9c3e-2f47-4b80-8e15-c7a0b3d94f26.json'), 'amp', '/home/dev/lighthouse'],
    [path.join('threads', `${THREAD_ID}.json`), 'amp', '/home/dev/lighthouse'],
  ]);
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    const report = await indexSources(store, found, segment);
    assert.deepEqual(report.failed, []);
    assert.equal((await store.stats()).exchanges, 3, 'two of the thread, one of the older thread: the copy adds none');
  } finally {
    await store.close();
  }
});

test('default locations: $XDG_DATA_HOME/amp/threads (~/.local/share by default) and the extension\'s threads3 in each editor; watched like every root', () => {
  assert.deepEqual(defaultAmpRoots({}), [path.join(os.homedir(), '.local', 'share', 'amp', 'threads')]);
  assert.deepEqual(defaultAmpRoots({ XDG_DATA_HOME: '/x/data' }), [path.join('/x/data', 'amp', 'threads')]);
  assert.ok(editorAgentRoots('/ud').includes(path.join('/ud', 'User', 'globalStorage', 'sourcegraph.amp', 'threads3')));
  const roots = transcriptRoots(defaultDiscovery({ workspaceRoots: ['/w'], userDataDirs: ['/ud'] }, { XDG_DATA_HOME: '/x/data' }));
  assert.ok(roots.includes(path.join('/x/data', 'amp', 'threads')), roots.join(', '));
});
