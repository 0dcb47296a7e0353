import assert from 'node:assert/strict';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import type { Conversation } from '../../src/core/model';
import { rawView } from '../../src/core/rawView';
import { discoverSources } from '../../src/core/sources/discover';
import { openCodeAdapter, openCodeDbAdapter } from '../../src/core/sources/opencode';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';
import { buildOpenCodeDb } from './opencodeDb';

const segment = { minChars: 100, maxPlies: 20 };
const DATA = path.join(FIXTURES, 'opencode', 'opencode');
const STORAGE = path.join(DATA, 'storage');
const HARBOUR = path.join(STORAGE, 'session', '4f6b0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c', 'ses_5f1a2b3c4d5eHarbourTides01.json');

const discover = (roots: string[], workspaceRoots: string[] = []): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots, claudeRoots: [], codexRoots: [], agentRoots: roots, extraRoots: [], includeSubagents: true });

async function parseJsonLayout(file: string): Promise<{ conv: Conversation; skipped: unknown }> {
  const out = openCodeAdapter.parse({ file, lines: await openCodeAdapter.readRecords!(file) });
  assert.equal(out.conversations.length, 1);
  return { conv: out.conversations[0]!, skipped: out.skipped };
}

/** The exchanges of a store as the tests compare them across layouts. */
async function rows(store: Store): Promise<Array<[string, number, number, string | undefined, string]>> {
  const out: Array<[string, number, number, string | undefined, string]> = [];
  for (const s of await store.listExchanges()) {
    const e = (await store.getExchange(s.exchangeId))!;
    out.push([e.exchangeId, e.lineStart, e.lineEnd, e.startedAt, JSON.stringify(e.filesTouched)]);
  }
  return out.sort((a, b) => a[1] - b[1]);
}

test('OpenCode JSON files: a session with its messages and parts, one record per line; reasoning and steps silent, an unknown part counted', async () => {
  const { conv, skipped } = await parseJsonLayout(HARBOUR);
  assert.deepEqual(skipped, [{ line: 16, reason: 'unknown-record' }], 'the part type of a later version');
  assert.deepEqual(conv.meta, {
    agent: 'opencode',
    sessionId: 'ses_5f1a2b3c4d5eHarbourTides01',
    line: 1,
    isSubagent: false,
    project: '/home/dev/harbour',
    title: 'Local tide times',
    startedAt: '2025-11-04T08:59:50.000Z',
    model: 'claude-sonnet-4',
  });
  // line 1 the session; then each message's record followed by its parts'
  assert.deepEqual(conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd} ${m.uuid}`), [
    'prompt 2-5 msg_a01', 'context 2-5 msg_a01#context', 'reply 6-13 msg_a02', 'tool-results 6-13 msg_a02#results',
    'reply 14-16 msg_a03', 'prompt 17-18 msg_a04', 'reply 19-21 msg_a05', 'tool-results 19-21 msg_a05#results', 'context 19-21 msg_a05#error',
  ]);
  const [prompt, context, reply, results] = conv.messages;
  assert.equal(prompt!.text, 'The tide API returns times in UTC but the harbour office wants local time. Convert the times in src/tides/format.ts to Europe/Paris and keep the ISO format.');
  assert.equal(prompt!.timestamp, '2025-11-04T09:00:00.000Z');
  assert.match(context!.text, /^\[file src\/tides\/format\.ts\]\n\nCalled the Read tool/, 'what OpenCode added to the prompt is context');
  assert.equal(reply!.text, "I'll read the formatter first.", 'reasoning is not the reply');
  assert.deepEqual(reply!.toolCalls.map((c) => [c.id, c.name]), [['toolu_read_1', 'read'], ['toolu_edit_1', 'edit']]);
  assert.deepEqual(results!.toolResults[0], { toolUseId: 'toolu_read_1', text: 'export function formatTide(t) { return t.toISOString(); }', isError: false });
  assert.deepEqual(conv.messages[7]!.toolResults, [
    { toolUseId: 'toolu_write_1', text: "EACCES: permission denied, open '/home/dev/harbour/src/tides/height.ts'", isError: true },
  ]);
  assert.equal(conv.messages[8]!.text, '[opencode error] Overloaded');
});

test('OpenCode JSON files: exchanges by record range, dated by their messages, with the files their tool parts touched', async () => {
  const { conv } = await parseJsonLayout(HARBOUR);
  const { exchanges, dropped } = segmentConversation(conv, segment);
  assert.deepEqual(dropped, []);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision, e.filesTouched]),
    [
      [2, 16, '2025-11-04T09:00:00.000Z', 'message', [{ path: 'src/tides/format.ts', how: 'edit' }]],
      [17, 21, '2025-11-04T09:10:00.000Z', 'message', [{ path: 'src/tides/height.ts', how: 'write' }]],
    ],
  );
});

test('OpenCode JSON files: discovery walks only the session files and keeps the sessions whose directory is in the workspace', async () => {
  const found = await discover([DATA], ['/home/dev/harbour']);
  assert.deepEqual(found.map((s) => [s.path, s.adapter, s.project]), [[HARBOUR, openCodeAdapter, '/home/dev/harbour']]);
  const all = await discover([DATA]);
  assert.deepEqual(all.map((s) => s.project).sort(), ['/home/dev/gauges', '/home/dev/harbour']);
  const gauges = openCodeAdapter.parse({ file: all[1]!.path, lines: await openCodeAdapter.readRecords!(all[1]!.path) });
  assert.equal(gauges.conversations[0]!.meta.title, undefined, "OpenCode's placeholder title is no title");
});

test('OpenCode JSON files: a part caught half-written waits for the next run; a new message is picked up', async () => {
  const data = path.join(tempDir(), 'opencode');
  await cp(DATA, data, { recursive: true });
  const session = path.join(data, path.relative(DATA, HARBOUR));
  const part = path.join(data, 'storage', 'part', 'msg_a03', 'prt_a03a.json');
  const whole = await readFile(part);
  await writeFile(part, whole.subarray(0, 40));
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await assert.rejects(indexSource(store, session, openCodeAdapter, segment), { code: 'source-unreadable' });
    assert.equal((await store.stats()).exchanges, 0, 'nothing recorded from a half-written session');
    await writeFile(part, whole);
    assert.notEqual(await indexSource(store, session, openCodeAdapter, segment), 'unchanged');
    assert.deepEqual((await rows(store)).map((r) => [r[1], r[2]]), [[2, 16], [17, 21]]);
    assert.equal(await indexSource(store, session, openCodeAdapter, segment), 'unchanged');
    // OpenCode writes a new message and its part: the session's state changes with them
    await mkdir(path.join(data, 'storage', 'part', 'msg_a06'), { recursive: true });
    const msg = { id: 'msg_a06', sessionID: 'ses_5f1a2b3c4d5eHarbourTides01', role: 'user', time: { created: 1762247500000 } };
    await writeFile(path.join(data, 'storage', 'message', 'ses_5f1a2b3c4d5eHarbourTides01', 'msg_a06.json'), JSON.stringify(msg, null, 2));
    const text = 'Which time zone database does formatInZone use, and is it updated when the harbour office changes its DST rules?';
    await writeFile(path.join(data, 'storage', 'part', 'msg_a06', 'prt_a06a.json'), JSON.stringify({ id: 'prt_a06a', messageID: 'msg_a06', type: 'text', text }, null, 2));
    assert.notEqual(await indexSource(store, session, openCodeAdapter, segment), 'unchanged');
    assert.deepEqual((await rows(store)).map((r) => [r[1], r[2]]), [[2, 16], [17, 21], [22, 23]]);
  } finally {
    await store.close();
  }
});

test('OpenCode SQLite: read-only while OpenCode holds a write transaction in WAL mode; one source of every project, the workspace\'s sessions kept; same exchanges as the JSON files; one memory across layouts', async () => {
  const data = path.join(tempDir(), 'opencode');
  await mkdir(data, { recursive: true });
  const file = path.join(data, 'opencode.db');
  const opencode = await buildOpenCodeDb(STORAGE, file);
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  const jsonStore = await Store.open(path.join(tempDir(), 'j.sqlite'));
  try {
    // both sessions, each with record positions of its own (the second's start again at 1)
    const parsed = openCodeDbAdapter.parse({ file, lines: await openCodeDbAdapter.readRecords!(file) });
    assert.deepEqual(parsed.conversations.map((c) => [c.meta.sessionId, c.meta.project, c.messages[0]!.line]), [
      ['ses_5f1a2b3c4d5eHarbourTides01', '/home/dev/harbour', 2],
      ['ses_6a7b8c9d0e1fGaugesRename02', '/home/dev/gauges', 2],
    ]);
    // OpenCode is mid-write: an uncommitted message of its own
    await opencode.exec('BEGIN IMMEDIATE');
    await opencode.run("INSERT INTO message VALUES ('msg_a07', 'ses_5f1a2b3c4d5eHarbourTides01', 1762247600000, 1762247600000, '{\"role\":\"user\"}')");
    const found = await discover([data], ['/home/dev/harbour']);
    assert.deepEqual(found.map((s) => [s.path, s.adapter, s.within]), [[file, openCodeDbAdapter, ['/home/dev/harbour']]]);
    const report = await indexSources(store, found, segment);
    assert.deepEqual(report.failed, []);
    await opencode.exec('COMMIT'); // never locked out by the reader
    await indexSource(jsonStore, HARBOUR, openCodeAdapter, segment);
    assert.deepEqual(await rows(store), await rows(jsonStore), 'only the workspace\'s session; same ids, record ranges, dates and files');
    // the same session read through both layouts (OpenCode migrated it) is one memory
    const both = await indexSource(store, HARBOUR, openCodeAdapter, segment);
    assert.deepEqual(both, { bytes: (both as { bytes: number }).bytes, inserted: 0, kept: 0, duplicates: 2 });
    assert.equal((await store.listExchanges()).length, 2);
    // the committed message grew the write-ahead log: read again (a prompt without parts adds nothing)
    assert.notEqual(await indexSource(jsonStore, file, openCodeDbAdapter, segment), 'unchanged');
    assert.equal(await indexSource(jsonStore, file, openCodeDbAdapter, segment), 'unchanged');
  } finally {
    await store.close();
    await jsonStore.close();
    await opencode.close();
  }
});

test('open raw: an OpenCode exchange shows its session\'s records, its own chosen, read from the session files or the database', async () => {
  const data = path.join(tempDir(), 'opencode');
  await mkdir(data, { recursive: true });
  const file = path.join(data, 'opencode.db');
  const opencode = await buildOpenCodeDb(STORAGE, file);
  try {
    for (const source of [HARBOUR, file]) {
      const view = (await rawView({ agent: 'opencode', file: source, sessionId: 'ses_5f1a2b3c4d5eHarbourTides01', lineStart: 17, lineEnd: 21, byteStart: 0 }))!;
      const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
      const ids = [...chosen.matchAll(/^ {4}"(message|part)": \{[\s\S]*?^ {6}"id": "(\w+)"/gm)].map((m) => `${m[1]} ${m[2]}`);
      assert.deepEqual(ids, ['message msg_a04', 'part prt_a04a', 'message msg_a05', 'part prt_a05a', 'part prt_a05b'], source);
      assert.ok(view.text.includes('"id": "msg_a03"') && !chosen.includes('msg_a03'), 'the rest of the session is shown, not chosen');
    }
    await assert.rejects(rawView({ agent: 'opencode', file, sessionId: 'ses_gone', lineStart: 2, lineEnd: 3, byteStart: 0 }), /no longer in/);
  } finally {
    await opencode.close();
  }
});

test('OpenCode SQLite: a database in rollback-journal mode is never opened and says so in the index report', async () => {
  const data = path.join(tempDir(), 'opencode');
  await mkdir(data, { recursive: true });
  const file = path.join(data, 'opencode.db');
  const opencode = await buildOpenCodeDb(STORAGE, file);
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await opencode.exec('PRAGMA journal_mode = DELETE');
    assert.equal((await readFile(file)).readUInt8(18), 1, 'a rollback-journal database');
    const report = await indexSources(store, await discover([data]), segment);
    assert.deepEqual(report.failed.map((f) => f.path), [file]);
    assert.match(report.failed[0]!.error, /^OpenCode's database .*opencode\.db is not in WAL mode \(it uses a rollback journal\), so it is not read/);
    assert.equal((await store.stats()).exchanges, 0);
  } finally {
    await opencode.close();
    await store.close();
  }
});

/** Issue 44, item 12: an empty or zeroed opencode.db was reported as "uses a rollback journal". */
test('OpenCode SQLite: an empty, zeroed or foreign opencode.db is reported as what it is, not as a rollback journal', async () => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['empty', Buffer.alloc(0), /^OpenCode's database .*opencode\.db is empty \(0 bytes\)/],
    ['zeroed', Buffer.alloc(8192), /^OpenCode's database .*opencode\.db is damaged: its header is all zeros/],
    ['foreign', Buffer.from('PK\x03\x04 a zip archive, not a database'.padEnd(4096, '.')), /^OpenCode's database .*opencode\.db is not a SQLite database/],
  ];
  for (const [kind, bytes, message] of cases) {
    const data = path.join(tempDir(), 'opencode');
    await mkdir(data, { recursive: true });
    const file = path.join(data, 'opencode.db');
    await writeFile(file, bytes);
    const store = await Store.open(path.join(tempDir(), 's.sqlite'));
    try {
      const report = await indexSources(store, await discover([data]), segment);
      assert.deepEqual(report.failed.map((f) => f.path), [file], kind);
      assert.match(report.failed[0]!.error, message, kind);
      assert.doesNotMatch(report.failed[0]!.error, /rollback journal/, kind);
    } finally {
      await store.close();
    }
  }
});
