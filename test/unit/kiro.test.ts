import assert from 'node:assert/strict';
import { appendFile, cp, mkdir, readFile, rm, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultKiroRoots } from '../../src/core/sources/agentRoots';
import { discoverSources, type DiscoveredSource } from '../../src/core/sources/discover';
import { kiroAdapter } from '../../src/core/sources/kiro';
import { kiroDbAdapter } from '../../src/core/sources/kiroCli';
import { splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';
import { buildKiroDb, KIRO_GAUGES, KIRO_TIDES, tidesConversation } from './kiroFixture';

const segment = { minChars: 100, maxPlies: 20 };
const SESSION = '4b7d9f1a-3c5e-4a7b-9d1f-3a5c7e9b1d2f';
const CLI = path.join(FIXTURES, 'kiro', '.kiro', 'sessions', 'cli');

const discover = (agentRoots: string[], workspaceRoots: string[] = []): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots, claudeRoots: [], codexRoots: [], agentRoots, extraRoots: [], includeSubagents: true });

async function files(store: Store): Promise<Array<[string, unknown]>> {
  const out: Array<[string, unknown]> = [];
  for (const e of await store.listExchanges()) out.push([e.prompt.slice(0, 30), (await store.getExchange(e.exchangeId))!.filesTouched]);
  return out;
}

test('Kiro CLI JSONL: the session and its side file (id, project, title, model); prompts dated in seconds, answers by their prompt; an unknown kind counted', async () => {
  const found = await discover([CLI], ['/home/dev/harbour']);
  assert.deepEqual(found.map((s) => [path.basename(s.path), s.adapter, s.project]), [[`${SESSION}.jsonl`, kiroAdapter, '/home/dev/harbour']], 'the .lock, .history and side file are not sessions');
  const file = path.join(CLI, `${SESSION}.jsonl`);
  const side = new Map([[`${SESSION}.json`, await readFile(path.join(CLI, `${SESSION}.json`), 'utf8')]]);
  const out = kiroAdapter.parse({ file, lines: splitLines(await readFile(file), 0, 1, { holdBackPartial: true }).lines, side });
  assert.deepEqual(out.skipped, [{ line: 9, reason: 'unknown-record' }]);
  const conv = out.conversations[0]!;
  assert.deepEqual(conv.meta, {
    agent: 'kiro', sessionId: SESSION, line: 1, isSubagent: false, project: '/home/dev/harbour', title: 'Mooring surcharge over 12 m',
    startedAt: '2025-11-07T09:00:00Z', model: 'claude-sonnet-4.5',
  });
  assert.deepEqual(conv.messages.map((m) => `${m.kind} ${m.line}`), [
    'prompt 1', 'reply 2', 'tool-results 3', 'reply 4', 'prompt 5', 'reply 6', 'reply 7', 'tool-results 8', 'reply 10',
  ]);
  assert.equal(conv.messages[0]!.timestamp, '2025-11-07T09:00:00.000Z');
  assert.equal(conv.messages[1]!.text, 'Let me read the calculator.', 'thinking is not the reply');
  assert.deepEqual(conv.messages[7]!.toolResults.map((r) => [r.toolUseId, r.isError]), [['tooluse_w1', false], ['tooluse_s1', true]]);
  assert.match(conv.messages[7]!.toolResults[1]!.text, /"stdout":"1 failed"/);

  const store = await Store.open(path.join(tempDir('kiro-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]), [[1, 4, '2025-11-07T09:00:00.000Z', 'message'], [5, 10, '2025-11-07T09:05:00.000Z', 'message']]);
    assert.deepEqual((await files(store)).map(([, f]) => f), [
      [{ path: 'src/fees/mooring.ts', how: 'read', lines: [{ start: 1, end: 60 }] }],
      [{ path: 'src/fees/mooring.ts', how: 'edit' }, { path: 'test/fees/mooring.test.ts', how: 'mention' }],
    ], 'a read with its lines; a strReplace write is an edit; a path in a shell command a mention');
  } finally {
    await store.close();
  }
});

test('Kiro CLI JSONL: an appended turn is read from the last exchange, a half-written last line waits; without its side file the session is still read', async () => {
  const dir = path.join(tempDir('kiro-live-'), '.kiro', 'sessions', 'cli');
  await cp(CLI, dir, { recursive: true });
  const file = path.join(dir, `${SESSION}.jsonl`);
  const store = await Store.open(path.join(tempDir('kiro-store-'), 's.sqlite'));
  try {
    await indexSource(store, file, kiroAdapter, segment);
    const prompt = JSON.stringify({ version: 'v1', kind: 'Prompt', data: { content: [{ kind: 'text', data: 'Does the surcharge also apply to multihulls, which the harbour charges by width?' }], meta: { timestamp: 1762506600 } } });
    const answer = JSON.stringify({ version: 'v1', kind: 'AssistantMessage', data: { content: [{ kind: 'text', data: 'No: multihulls go through catamaranFee, which charges by beam and has no length surcharge at all.' }] } });
    await appendFile(file, `${prompt}\n${answer.slice(0, 40)}`);
    await indexSource(store, file, kiroAdapter, segment);
    assert.equal((await store.listExchanges()).length, 2, 'the prompt alone waits for its answer');
    await appendFile(file, `${answer.slice(40)}\n`);
    await indexSource(store, file, kiroAdapter, segment);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.lineStart, e.lineEnd, e.sessionId]).at(-1), [11, 12, SESSION]);

    await rm(path.join(dir, `${SESSION}.json`));
    const bare = await discover([dir]);
    assert.deepEqual(bare.map((s) => [s.adapter, s.project]), [[kiroAdapter, undefined]]);
    assert.deepEqual(await discover([dir], ['/home/dev/harbour']), [], 'no project without its side file: not this workspace');
  } finally {
    await store.close();
  }
});

test("Kiro CLI database: read from a lock-free copy (rollback journal), the conversation's newest row wins over its older key, a damaged value counted", async () => {
  const data = path.join(tempDir('kiro-db-'), 'kiro-cli');
  await mkdir(data, { recursive: true });
  const file = path.join(data, 'data.sqlite3');
  const kiro = await buildKiroDb(file);
  const store = await Store.open(path.join(tempDir('kiro-store-'), 's.sqlite'));
  try {
    assert.equal((await readFile(file)).readUInt8(18), 1, 'a rollback-journal database');
    const parsed = kiroDbAdapter.parse({ file, lines: await kiroDbAdapter.readRecords!(file) });
    assert.deepEqual(parsed.skipped.map((s) => s.reason), ['malformed-json']);
    assert.deepEqual(parsed.conversations.map((c) => [c.meta.sessionId, c.meta.project, c.messages.length]), [
      [KIRO_GAUGES, '/home/dev/gauges', 2], [KIRO_TIDES, '/home/dev/harbour', 6],
    ]);
    const tides = parsed.conversations[1]!;
    assert.deepEqual(tides.meta.model, 'claude-sonnet-4.5');
    // position 1 is the conversation; a turn's user side comes before its reply, a pair [user, assistant] reads the same
    assert.deepEqual(tides.messages.map((m) => `${m.kind} ${m.line}`), ['prompt 2', 'reply 2', 'tool-results 3', 'reply 3', 'prompt 4', 'reply 4']);
    assert.deepEqual([tides.messages[1]!.timestamp, tides.messages[2]!.toolResults[0]!.toolUseId], ['2025-11-08T09:00:05.000Z', 'tooluse_k1']);

    // Kiro is mid-write: its journal is beside the database; the copy waits for a quiet moment, Kiro is never held off
    await kiro.exec('BEGIN IMMEDIATE');
    await kiro.run("INSERT INTO state VALUES ('telemetry', 'x')");
    assert.ok(await stat(`${file}-journal`).then(() => true, () => false), 'a hot journal');
    const found = await discover([data], ['/home/dev/harbour']);
    assert.deepEqual(found.map((s) => [s.adapter, s.within]), [[kiroDbAdapter, ['/home/dev/harbour']]]);
    const busy = await indexSources(store, found, segment);
    assert.match(busy.failed[0]!.error, /^Kiro CLI's database .*data\.sqlite3 was being written each time it was copied/);
    await kiro.exec('COMMIT');
    const reads: Array<readonly string[] | undefined> = [];
    const groups = kiroDbAdapter.recordGroups!;
    const src: DiscoveredSource = { ...found[0]!, adapter: { ...kiroDbAdapter, recordGroups: { fingerprints: groups.fingerprints, read: (f, ids) => (reads.push(ids), groups.read(f, ids)) } } };
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.sessionId, e.lineStart, e.lineEnd, e.startedAt]), [[KIRO_TIDES, 2, 3, '2025-11-08T09:00:00Z'], [KIRO_TIDES, 4, 4, '2025-11-08T09:05:00Z']]);
    assert.deepEqual((await files(store)).map(([, f]) => f), [
      [{ path: 'src/tides/chart.ts', how: 'read', lines: [{ start: 10, end: 48 }] }],
      [{ path: 'src/tides/chart.ts', how: 'edit' }],
    ]);
    assert.equal(await readdirTmp(), 0, 'no copy left behind');

    // Kiro saves the tide conversation again with one more turn: only it is read again
    const more = tidesConversation([{ user: { content: { Prompt: { prompt: 'Does the chart still show the gap when two readings in a row are null?' } }, timestamp: '2025-11-08T09:09:00Z' },
      assistant: { Response: { message_id: 'msg-k4', content: 'Yes: every null reading is dropped, so two in a row leave a wider gap and the line joins the readings on either side of it.' } } }]);
    await kiro.run('UPDATE conversations_v2 SET value = ?, updated_at = ? WHERE key = ? AND conversation_id = ?', [JSON.stringify(more), 1762592900000, '/home/dev/harbour', KIRO_TIDES]);
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    assert.deepEqual(reads, [undefined, [KIRO_TIDES]]);
    assert.equal((await store.listExchanges()).length, 3);

    const view = (await rawView({ agent: 'kiro', file, sessionId: KIRO_TIDES, lineStart: 4, lineEnd: 4, byteStart: 0 }))!;
    const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
    assert.match(chosen, /skip readings whose height is null/);
    assert.ok(!chosen.includes('Which function converts'));
  } finally {
    await kiro.close();
    await store.close();
  }
});

async function readdirTmp(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(os.tmpdir())).filter((n) => n.startsWith('agent-recall-db-')).length;
}

test("Kiro CLI's folders per platform", () => {
  const home = os.homedir();
  assert.deepEqual(defaultKiroRoots({ XDG_DATA_HOME: '/x/data' }, 'linux'), [path.join(home, '.kiro', 'sessions', 'cli'), '/x/data/kiro-cli']);
  assert.deepEqual(defaultKiroRoots({}, 'darwin')[1], path.join(home, 'Library', 'Application Support', 'kiro-cli'));
  assert.deepEqual(defaultKiroRoots({ LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local' }, 'win32')[1], path.join('C:\\Users\\dev\\AppData\\Local', 'kiro-cli'));
});
