import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultUserDataDirs, editorAgentRoots } from '../../src/core/sources/agentRoots';
import { discoverSources } from '../../src/core/sources/discover';
import { kiroIdeAdapter } from '../../src/core/sources/kiroIde';
import { kiroIdeChatAdapter } from '../../src/core/sources/kiroIdeChat';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const SESSION_ID = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
const HASH = '96caab6bd58f20364486fff7694497e6';

async function kiroUserData(): Promise<{ storage: string; session: string; chat: string; log: string }> {
  const userData = path.join(tempDir('kiro-ide-'), 'Kiro');
  const storage = path.join(userData, 'User', 'globalStorage', 'kiro.kiroagent');
  await cp(path.join(FIXTURES, 'kiro-ide', 'kiro.kiroagent'), storage, { recursive: true });
  assert.ok(editorAgentRoots(userData).includes(storage));
  return {
    storage,
    session: path.join(storage, 'workspace-sessions', 'L2hvbWUvZGV2L2hhcmJvdXI=', `${SESSION_ID}.json`),
    chat: path.join(storage, HASH, '5e4d3c2b1a0f9e8d7c6b5a4938271605.chat'),
    log: path.join(storage, HASH, '414d1636299d2b9e4ce7e17fb11f63e9', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'),
  };
}

test('Kiro IDE: a session with its execution log (what the agent said and did), an older .chat; both found under kiro.kiroagent and tied to the workspace', async () => {
  const { storage, session, chat } = await kiroUserData();
  const found = await discoverSources({ workspaceRoots: ['/home/dev/harbour'], claudeRoots: [], codexRoots: [], agentRoots: [storage], extraRoots: [], includeSubagents: true });
  assert.deepEqual(found.map((s) => [s.path, s.adapter, s.project]).sort(), [[chat, kiroIdeChatAdapter, '/home/dev/harbour'], [session, kiroIdeAdapter, '/home/dev/harbour']].sort());

  const out = kiroIdeAdapter.parse({ file: session, lines: await kiroIdeAdapter.readRecords!(session) });
  const conv = out.conversations[0]!;
  assert.deepEqual(conv.meta, { agent: 'kiro', sessionId: SESSION_ID, line: 1, isSubagent: false, project: '/home/dev/harbour', title: 'Harbour berth availability', startedAt: '2025-11-08T11:06:40.000Z' });
  assert.deepEqual(conv.messages.map((m) => `${m.kind} ${m.line}`), ['context 2', 'prompt 3', 'reply 4', 'prompt 5', 'reply 6']);
  assert.equal(conv.messages[1]!.text, 'Why does berthsFree in src/berths/availability.ts count a berth as free while its booking ends today?', 'the wrapper dropped');
  assert.match(conv.messages[2]!.text, /^berthsFree compares the booking's end date/, "the execution's say, not the prompt log");
  assert.deepEqual(conv.messages[2]!.touched, [{ path: 'src/berths/availability.ts', how: 'read' }, { path: 'src/berths/availability.ts', how: 'edit' }]);
  assert.match(conv.messages[4]!.text, /^berthsFree now treats/, 'no execution log: the entry\'s own content');

  const older = kiroIdeChatAdapter.parse({ file: chat, lines: [{ text: await readFile(chat, 'utf8'), line: 1, offset: 0, bytes: 0 }] });
  assert.deepEqual(older.skipped, [{ line: 1, reason: 'unknown-record' }]);
  assert.deepEqual(older.conversations[0]!.messages.map((m) => m.kind), ['context', 'prompt', 'reply'], "the rules are context; Kiro's acknowledgement is no answer");
  assert.deepEqual([older.conversations[0]!.meta.startedAt, older.conversations[0]!.meta.model], ['2025-11-07T07:20:00.000Z', 'claude-sonnet-4']);

  const store = await Store.open(path.join(tempDir('kiro-ide-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const rows = await store.listExchanges();
    assert.equal(rows.length, 3);
    assert.ok(rows.every((e) => e.agent === 'kiro' && e.datePrecision === 'session'));
    const first = rows.find((e) => /count a berth as free/.test(e.prompt))!;
    assert.deepEqual((await store.getExchange(first.exchangeId))!.filesTouched, [{ path: 'src/berths/availability.ts', how: 'edit' }]);
    const view = (await rawView({ agent: 'kiro', file: session, sessionId: SESSION_ID, lineStart: first.lineStart, lineEnd: first.lineEnd, byteStart: 0 }))!;
    assert.match(view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n'), /kiro-ide-message[\s\S]*"executionId": "exec-1"[\s\S]*"actionType": "replace"/);
  } finally {
    await store.close();
  }
});

test('Kiro IDE: a session whose execution log is rewritten is read again; a session file caught half-written waits for the next run', async () => {
  const { session, log } = await kiroUserData();
  const store = await Store.open(path.join(tempDir('kiro-ide-store-'), 's.sqlite'));
  try {
    await indexSource(store, session, kiroIdeAdapter, segment);
    assert.equal(await indexSource(store, session, kiroIdeAdapter, segment), 'unchanged');
    const execution = JSON.parse(await readFile(log, 'utf8')) as { actions: Array<{ output?: { message: string } }> };
    execution.actions[1]!.output!.message = 'berthsFree compares the end date with today using a strict <, so a booking ending today frees its berth at midnight.';
    await writeFile(log, JSON.stringify(execution));
    assert.notEqual(await indexSource(store, session, kiroIdeAdapter, segment), 'unchanged');
    const rows = await store.listExchanges();
    assert.ok((await store.getExchange(rows.find((e) => /count a berth/.test(e.prompt))!.exchangeId))!.verbatim.includes('frees its berth at midnight'));

    const whole = await readFile(session);
    await writeFile(session, whole.subarray(0, 200));
    await assert.rejects(indexSource(store, session, kiroIdeAdapter, segment), { code: 'source-unreadable' });
    assert.equal((await store.listExchanges()).length, rows.length, 'what was stored stays');
  } finally {
    await store.close();
  }
});

test("Kiro's user-data folder is a default editor folder of the CLI", () => {
  assert.ok(defaultUserDataDirs({ XDG_CONFIG_HOME: '/x/config' }, 'linux').includes('/x/config/Kiro'));
});
