import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultWarpRoots } from '../../src/core/sources/agentRoots';
import { discoverSources, type DiscoveredSource } from '../../src/core/sources/discover';
import { utcTime, warpAdapter } from '../../src/core/sources/warp';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const HARBOUR = '/home/dev/harbour';
const TIDES = '4c1f8a2e-7b3d-4e9f-a1c5-d2e3f4a5b6c7';
const GAUGES = '5d2a9b3f-8c4e-4fa0-b2d6-e3f4a5b6c7d8';

const query = (text: string): string => JSON.stringify([{ Query: { text, context: [{ Directory: { pwd: HARBOUR } }], referenced_attachments: {} } }]);

/** Warp's `warp.sqlite` as its persistence writes it (schema.rs; WAL): two conversations' prompts, a row of a later input kind, one whose input is cut short. */
async function buildWarpDb(file: string, wal = true): Promise<Db> {
  await mkdir(path.dirname(file), { recursive: true });
  const db = await Db.open(file);
  if (wal) await db.exec('PRAGMA journal_mode = WAL');
  await db.exec(`CREATE TABLE agent_conversations (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL, conversation_data TEXT NOT NULL, last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE agent_tasks (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL, task_id TEXT NOT NULL, task BLOB NOT NULL, last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE ai_queries (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL, conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL, input TEXT NOT NULL,
      working_directory TEXT, output_status TEXT NOT NULL, model_id TEXT NOT NULL DEFAULT '', planning_model_id TEXT NOT NULL DEFAULT '', coding_model_id TEXT NOT NULL DEFAULT '');`);
  const add = (exchange: string, conversation: string, ts: string, input: string, cwd: string | null): Promise<unknown> =>
    db.run('INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [exchange, conversation, ts, input, cwd, '"Completed"', 'claude-4-sonnet']);
  await add('ex-1', TIDES, '2025-11-15 09:00:00.123456', query('The tide table prints UTC times; which function formats them and where is it called from?'), HARBOUR);
  await add('ex-2', TIDES, '2025-11-15 09:02:00', query('Switch it to Europe/Paris local time with Intl.DateTimeFormat, and keep the CSV export in UTC.'), HARBOUR);
  await add('ex-3', TIDES, '2025-11-15 09:03:00', JSON.stringify([{ ActionResult: { id: 'r1' } }]), HARBOUR);
  await add('ex-4', TIDES, '2025-11-15 09:04:00', '[{"Query": {"text": "cut sh', HARBOUR);
  await add('ex-g1', GAUGES, '2025-11-14 17:00:00', query('Why does listGauges return decommissioned stations along with the live ones?'), '/home/dev/gauges');
  await db.run("INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, 't1', x'0a0474617369')", [TIDES]);
  return db;
}

test('Warp: the prompts of each conversation (its answers are not in the database), dated in UTC; a later input kind and a cut-short input counted', async () => {
  const file = path.join(tempDir('warp-'), 'warp-terminal', 'warp.sqlite');
  const warp = await buildWarpDb(file);
  try {
    const out = warpAdapter.parse({ file, lines: await warpAdapter.readRecords!(file) });
    assert.deepEqual(out.skipped.map((s) => s.reason).sort(), ['malformed-json', 'unknown-record']);
    assert.deepEqual(out.conversations.map((c) => [c.meta.sessionId, c.meta.project, c.meta.model]), [[GAUGES, '/home/dev/gauges', 'claude-4-sonnet'], [TIDES, HARBOUR, 'claude-4-sonnet']]);
    const tides = out.conversations[1]!;
    assert.deepEqual(tides.messages.map((m) => [m.kind, m.line, m.timestamp, m.uuid]), [
      ['prompt', 2, '2025-11-15T09:00:00.123Z', 'ex-1'], ['prompt', 3, '2025-11-15T09:02:00.000Z', 'ex-2'],
    ]);
    assert.match(tides.messages[0]!.text, /^The tide table prints UTC times/);
  } finally {
    await warp.close();
  }
  assert.equal(utcTime('2025-11-15 09:00:00'), '2025-11-15T09:00:00.000Z');
  assert.equal(utcTime('yesterday'), undefined);
});

test("Warp: found in its state folder, this workspace's conversations kept, its prompts one exchange; a new prompt reads its conversation again; open raw; a database not in WAL mode read from a copy", async () => {
  const root = path.join(tempDir('warp-'), 'warp-terminal');
  const file = path.join(root, 'warp.sqlite');
  const warp = await buildWarpDb(file);
  const store = await Store.open(path.join(tempDir('warp-store-'), 's.sqlite'));
  try {
    const found = await discoverSources({ workspaceRoots: [HARBOUR], claudeRoots: [], codexRoots: [], agentRoots: [root], extraRoots: [], includeSubagents: true });
    assert.deepEqual(found.map((s) => [s.path, s.adapter.agent, s.within]), [[file, 'warp', [HARBOUR]]]);
    const reads: Array<readonly string[] | undefined> = [];
    const groups = warpAdapter.recordGroups!;
    const src: DiscoveredSource = { ...found[0]!, adapter: { ...warpAdapter, recordGroups: { fingerprints: groups.fingerprints, read: (f, ids) => (reads.push(ids), groups.read(f, ids)) } } };
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.agent, e.sessionId, e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]), [['warp', TIDES, 2, 3, '2025-11-15T09:00:00.123Z', 'message']],
      "no answer ends an exchange: a conversation's prompts are one; the other project's left out");

    await warp.run('INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ['ex-5', TIDES, '2025-11-15 09:10:00', query('Now add a test that a summer date prints 14:05 for 12:05 UTC.'), HARBOUR, '"Completed"', 'claude-4-sonnet']);
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    assert.deepEqual(reads, [undefined, [TIDES]]);
    assert.deepEqual((await store.listExchanges()).map((e) => [e.lineStart, e.lineEnd]), [[2, 6]]);

    const view = (await rawView({ agent: 'warp', file, sessionId: TIDES, lineStart: 2, lineEnd: 3, byteStart: 0 }))!;
    assert.match(view.text.split('\n')[0]!, /^\/\/ Warp conversation 4c1f8a2e-.*prompts' rows/);
    assert.match(view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n'), /"exchange_id": "ex-1"[\s\S]*"exchange_id": "ex-2"/);
  } finally {
    await warp.close();
    await store.close();
  }
  const journal = path.join(tempDir('warp-'), 'warp-terminal', 'warp.sqlite');
  const old = await buildWarpDb(journal, false);
  try {
    assert.equal((await readFile(journal)).readUInt8(18), 1, 'a rollback-journal database');
    assert.equal(warpAdapter.parse({ file: journal, lines: await warpAdapter.readRecords!(journal) }).conversations.length, 2);
  } finally {
    await old.close();
  }
});

test("Warp's state folder per platform", () => {
  const home = os.homedir();
  assert.deepEqual(defaultWarpRoots({ XDG_STATE_HOME: '/x/state' }, 'linux'), ['/x/state/warp-terminal']);
  assert.deepEqual(defaultWarpRoots({}, 'linux'), [path.join(home, '.local', 'state', 'warp-terminal')]);
  assert.deepEqual(defaultWarpRoots({}, 'darwin'), [
    path.join(home, 'Library', 'Group Containers', '2BBY89MBSN.dev.warp', 'Library', 'Application Support', 'dev.warp.Warp-Stable'),
    path.join(home, 'Library', 'Application Support', 'dev.warp.Warp-Stable'),
  ]);
  assert.deepEqual(defaultWarpRoots({ LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local' }, 'win32'), [path.join('C:\\Users\\dev\\AppData\\Local', 'warp', 'Warp', 'data')]);
});
