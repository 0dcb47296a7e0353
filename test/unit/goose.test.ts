import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultGooseRoots } from '../../src/core/sources/agentRoots';
import { type DiscoverOptions, discoverSources } from '../../src/core/sources/discover';
import { gooseDbAdapter, gooseLegacyAdapter } from '../../src/core/sources/goose';
import { segmentConversation } from '../../src/core/segment';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { addGooseMessage, buildGooseDb, type GooseMessage, insertGooseSession, text, toolRequest, toolResponse } from './gooseFixture';
import { tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const LARDER = '/home/dev/larder';
const T0 = 1772355600; // 2026-03-01T09:00:00Z, in Unix seconds as Goose writes `created`
const FILE = `${LARDER}/src/pantry/expiry.ts`;

const discover = (roots: Partial<DiscoverOptions>): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [], includeSubagents: true, ...roots });

/** The larder session: prompts, text_editor calls with their responses (a copy for the user, an error), a compaction summary. */
const PANTRY: GooseMessage[] = [
  { role: 'user', created: T0, content: [text('The pantry list shows yoghurt as fresh two days after its expiry date. Where does src/pantry/expiry.ts compare the dates?')] },
  {
    role: 'assistant', created: T0 + 5,
    content: [{ type: 'thinking', thinking: 'Look at the comparison first.', signature: 's' }, text('Reading the comparison.'), toolRequest('call_1', 'developer__text_editor', { command: 'view', path: FILE, view_range: [10, 40] })],
  },
  {
    role: 'user', created: T0 + 6,
    content: [toolResponse('call_1', [
      { type: 'text', text: '10: export function isFresh(item, today) {\n11:   return item.expires >= today.getDate();', annotations: { audience: ['assistant'] } },
      { type: 'text', text: '(the same file, as shown to the user)', annotations: { audience: ['user'], priority: 0 } },
    ])],
  },
  {
    role: 'assistant', created: T0 + 9,
    content: [text('It compares a day of the month with a date.'), toolRequest('call_2', 'developer__text_editor', { command: 'str_replace', path: FILE, old_str: 'today.getDate()', new_str: 'startOfDay(today)' })],
  },
  { role: 'user', created: T0 + 10, content: [{ type: 'toolResponse', id: 'call_2', toolResult: { status: 'error', error: '-32603: old_str matched twice' } }] },
  {
    role: 'assistant', created: T0 + 12,
    content: [toolRequest('call_3', 'developer__text_editor', { command: 'insert', path: FILE, insert_line: 11, new_str: 'const day = startOfDay(today);\nreturn item.expires >= day;\n' })],
  },
  // the older response shape: the content list as the value itself
  { role: 'user', created: T0 + 13, content: [{ type: 'toolResponse', id: 'call_3', toolResult: { status: 'success', value: [{ type: 'text', text: 'Inserted 2 lines after line 11.' }] } }] },
  {
    role: 'assistant', created: T0 + 15,
    content: [text('isFresh compared the expiry date with today.getDate(), a day of the month, so anything expiring later in a month looked fresh; it now compares with startOfDay(today).'), { type: 'futureBlock', payload: 1 }],
  },
  // Goose's compaction: a summary the model reads and the user never sees
  { role: 'user', created: T0 + 60, content: [text('Summary so far: isFresh in src/pantry/expiry.ts now compares whole days.')], metadata: { userVisible: false, agentVisible: true } },
  { role: 'user', created: T0 + 120, content: [text('Also make the shopping list skip items that are already expired, like the yoghurt in this photo.'), { type: 'image', data: 'iVBORw0KGgo'.repeat(50), mimeType: 'image/png' }] },
  { role: 'assistant', created: T0 + 125, content: [toolRequest('call_4', 'developer__shell', { command: 'rg -n "isFresh" src/shopping/list.ts' }), { type: 'toolRequest', id: 'call_5', toolCall: { status: 'error', error: 'invalid JSON in arguments' } }] },
  { role: 'user', created: T0 + 126, content: [toolResponse('call_4', [{ type: 'text', text: 'src/shopping/list.ts:4: import { isFresh } from "../pantry/expiry";' }])] },
  { role: 'assistant', created: T0 + 130, content: [text('The shopping list now filters with isFresh before it groups items by aisle, so the expired yoghurt no longer appears on it.')] },
];

/** A Goose database with the larder session, one of another project, a hidden one, a subagent's, and a damaged row. */
async function larderDb(dir: string): Promise<{ file: string; db: Db }> {
  const file = path.join(dir, 'goose', 'sessions', 'sessions.db');
  await mkdir(path.dirname(file), { recursive: true });
  const db = await buildGooseDb(file);
  await insertGooseSession(db, { id: '20260301_1', workingDir: LARDER, name: 'Pantry expiry dates', createdAt: '2026-03-01 09:00:00', model: 'gpt-5' });
  for (const m of PANTRY) await addGooseMessage(db, '20260301_1', m);
  await db.run("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20260301_1', 'assistant', '[{\"type\":\"text\",\"te', ?)", [T0 + 131]);
  await insertGooseSession(db, { id: '20260301_2', workingDir: '/home/dev/orchard', description: 'Apple varieties', createdAt: '2026-03-01T10:00:00Z' });
  await addGooseMessage(db, '20260301_2', { role: 'user', created: T0 + 3600, content: [text('Which apple varieties in data/varieties.csv ripen before September, and which of them keep through the winter?')] });
  await addGooseMessage(db, '20260301_2', { role: 'assistant', created: T0 + 3610, content: [text('Discovery and Katy ripen in August; neither keeps, so the winter list in data/varieties.csv starts with Cox.')] });
  await insertGooseSession(db, { id: '20260301_3', workingDir: LARDER, name: 'hidden', type: 'hidden', createdAt: '2026-03-01 09:30:00' });
  await addGooseMessage(db, '20260301_3', { role: 'user', created: T0 + 1800, content: [text('Goose talking to itself about something the user never asked, at length, to name a session.')] });
  await insertGooseSession(db, { id: '20260301_4', workingDir: LARDER, name: 'Check expiry tests', type: 'sub_agent', createdAt: '2026-03-01 09:01:00' });
  await addGooseMessage(db, '20260301_4', { role: 'user', created: T0 + 61, content: [text('Run the pantry tests and report which of them cover the expiry comparison in src/pantry/expiry.ts.')] });
  await addGooseMessage(db, '20260301_4', { role: 'assistant', created: T0 + 70, content: [text('Two tests cover it: expiry.test.ts checks the same-day case and the month boundary; both pass with the whole-day comparison.')] });
  return { file, db };
}

test('Goose database: each session its records, the user\'s sessions only; blocks read, tool responses meant for the model, a damaged row and an unknown block counted', async () => {
  const { file, db } = await larderDb(tempDir('goose-'));
  try {
    const out = gooseDbAdapter.parse({ file, lines: await gooseDbAdapter.readRecords!(file) });
    assert.deepEqual(out.conversations.map((c) => c.meta), [
      { agent: 'goose', sessionId: '20260301_1', line: 1, isSubagent: false, project: LARDER, title: 'Pantry expiry dates', startedAt: '2026-03-01T09:00:00.000Z', model: 'gpt-5' },
      { agent: 'goose', sessionId: '20260301_4', line: 1, isSubagent: true, project: LARDER, title: 'Check expiry tests', startedAt: '2026-03-01T09:01:00.000Z' },
      { agent: 'goose', sessionId: '20260301_2', line: 1, isSubagent: false, project: '/home/dev/orchard', title: 'Apple varieties', startedAt: '2026-03-01T10:00:00.000Z' },
    ], 'the hidden session is left out; the older `description` is a title');
    // the damaged row's record and the unknown block's, by their places in the order read
    const lines = (await gooseDbAdapter.readRecords!(file)).map((l) => JSON.parse(l.text) as Record<string, unknown>);
    const damaged = lines.findIndex((r) => r['damaged'] === true) + 1;
    const future = lines.findIndex((r) => JSON.stringify(r).includes('futureBlock')) + 1;
    assert.deepEqual(out.skipped, [{ line: future, reason: 'unknown-record' }, { line: damaged, reason: 'malformed-json' }].sort((a, b) => a.line - b.line));
    const pantry = out.conversations[0]!;
    assert.deepEqual(pantry.messages.map((m) => `${m.kind} ${m.line}`), [
      'prompt 2', 'reply 3', 'tool-results 4', 'reply 5', 'tool-results 6', 'reply 7', 'tool-results 8', 'reply 9',
      'context 10', 'prompt 11', 'reply 12', 'tool-results 13', 'reply 14',
    ]);
    const [, view, viewed, , failed] = pantry.messages;
    assert.equal(view!.text, 'Reading the comparison.', 'reasoning is not the reply');
    assert.equal(view!.timestamp, '2026-03-01T09:00:05.000Z', 'Unix seconds');
    assert.deepEqual(viewed!.toolResults, [{ toolUseId: 'call_1', text: '10: export function isFresh(item, today) {\n11:   return item.expires >= today.getDate();', isError: false }], "the user's copy is not read twice");
    assert.deepEqual(failed!.toolResults, [{ toolUseId: 'call_2', text: '-32603: old_str matched twice', isError: true }]);
    assert.equal(pantry.messages[8]!.text, 'Summary so far: isFresh in src/pantry/expiry.ts now compares whole days.', 'a summary the user never saw is context');
    assert.equal(pantry.messages[9]!.text, 'Also make the shopping list skip items that are already expired, like the yoghurt in this photo.\n\n[image]');
    assert.deepEqual(pantry.messages[10]!.toolCalls.map((c) => c.name), ['developer__shell'], 'a tool request Goose could not parse is no call');
  } finally {
    await db.close();
  }
});

test('Goose database: exchanges dated by their messages, with the files text_editor viewed (its range), edited and inserted into (the lines inserted)', async () => {
  const { file, db } = await larderDb(tempDir('goose-'));
  try {
    const [pantry] = gooseDbAdapter.parse({ file, lines: await gooseDbAdapter.readRecords!(file) }).conversations;
    const { exchanges, dropped } = segmentConversation(pantry!, { ...segment, workspaceRoot: LARDER });
    assert.deepEqual(dropped, []);
    assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.endedAt, e.datePrecision]), [
      [2, 10, '2026-03-01T09:00:00.000Z', '2026-03-01T09:01:00.000Z', 'message'],
      [11, 14, '2026-03-01T09:02:00.000Z', '2026-03-01T09:02:10.000Z', 'message'],
    ]);
    assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/pantry/expiry.ts', how: 'edit', lines: [{ start: 12, end: 13 }] }]);
    assert.deepEqual(exchanges[1]!.filesTouched, [{ path: 'src/shopping/list.ts', how: 'mention' }]);
  } finally {
    await db.close();
  }
});

test('Goose database: discovered by its layout, one source of every project, the workspace\'s sessions kept; read while Goose holds a write transaction', async () => {
  const dir = tempDir('goose-');
  const { file, db } = await larderDb(dir);
  const store = await Store.open(path.join(tempDir('goose-store-'), 's.sqlite'));
  try {
    const found = await discover({ workspaceRoots: [LARDER], extraRoots: [dir] });
    assert.deepEqual(found.map((s) => [s.path, s.adapter, s.within]), [[file, gooseDbAdapter, [LARDER]]]);
    await db.exec('BEGIN IMMEDIATE');
    await addGooseMessage(db, '20260301_2', { role: 'user', created: T0 + 3700, content: [text('uncommitted')] });
    const report = await indexSources(store, found, segment);
    await db.exec('COMMIT'); // never locked out by the reader
    assert.deepEqual(report.failed, []);
    const sessions = (await store.listExchanges()).map((e) => e.sessionId).sort();
    assert.deepEqual(sessions, ['20260301_1', '20260301_1', '20260301_4'], "only the workspace's sessions (the subagent's too)");
    assert.deepEqual((await store.stats()).skippedLines, { 'malformed-json': 1, 'unknown-record': 1 }, 'the damaged row and the unknown block are counted');
  } finally {
    await store.close();
    await db.close();
  }
});

test('Goose database: one Goose has only begun to create (no tables yet) holds nothing and fails nothing', async () => {
  const file = path.join(tempDir('goose-'), 'goose', 'sessions', 'sessions.db');
  await mkdir(path.dirname(file), { recursive: true });
  const db = await Db.open(file);
  try {
    await db.exec('PRAGMA journal_mode = WAL; CREATE TABLE schema_version (version INTEGER PRIMARY KEY)');
    assert.deepEqual(await gooseDbAdapter.recordGroups!.fingerprints(file), new Map());
    assert.deepEqual(await gooseDbAdapter.recordGroups!.read(file), []);
    assert.deepEqual(await gooseDbAdapter.readRecords!(file), []);
  } finally {
    await db.close();
  }
});

test('Goose database: the first schema (no name, session type, model or message metadata) is read; one in rollback-journal mode says so', async () => {
  const dir = tempDir('goose-');
  const file = path.join(dir, 'goose', 'sessions', 'sessions.db');
  await mkdir(path.dirname(file), { recursive: true });
  const db = await buildGooseDb(file, true);
  const store = await Store.open(path.join(tempDir('goose-store-'), 's.sqlite'));
  try {
    await insertGooseSession(db, { id: '20251020_1', workingDir: LARDER, description: 'Freezer labels', createdAt: '2025-10-20 08:00:00' }, true);
    await addGooseMessage(db, '20251020_1', { role: 'user', created: 1760947200, content: [text('Print freezer labels with the date each item was frozen, from src/freezer/labels.ts.')] }, true);
    await addGooseMessage(db, '20251020_1', { role: 'assistant', created: 1760947230, content: [text('labels.ts now prints the frozen-on date under each name, taken from the item\'s frozenAt field.')] }, true);
    const [conv] = gooseDbAdapter.parse({ file, lines: await gooseDbAdapter.readRecords!(file) }).conversations;
    assert.deepEqual(conv!.meta, { agent: 'goose', sessionId: '20251020_1', line: 1, isSubagent: false, project: LARDER, title: 'Freezer labels', startedAt: '2025-10-20T08:00:00.000Z' });
    assert.deepEqual(conv!.messages.map((m) => [m.kind, m.timestamp]), [['prompt', '2025-10-20T08:00:00.000Z'], ['reply', '2025-10-20T08:00:30.000Z']]);
    await db.exec('PRAGMA journal_mode = DELETE');
    const report = await indexSources(store, await discover({ extraRoots: [dir] }), segment);
    assert.deepEqual(report.failed.map((f) => f.path), [file]);
    assert.match(report.failed[0]!.error, /^Goose's database .*sessions\.db is not in WAL mode \(it uses a rollback journal\), so it is not read/);
  } finally {
    await store.close();
    await db.close();
  }
});

test('Goose database: a new message reads its session alone again; a session Goose rewrote whole (compaction) keeps its exchange ids', async () => {
  const { file, db } = await larderDb(tempDir('goose-'));
  const store = await Store.open(path.join(tempDir('goose-store-'), 's.sqlite'));
  const reads: Array<readonly string[] | undefined> = [];
  const groups = gooseDbAdapter.recordGroups!;
  const adapter = { ...gooseDbAdapter, recordGroups: { fingerprints: groups.fingerprints, read: (f: string, ids?: readonly string[]) => (reads.push(ids), groups.read(f, ids)) } };
  const ids = async (): Promise<string[]> => (await store.listExchanges()).map((e) => e.exchangeId).sort();
  try {
    await indexSource(store, file, adapter, segment);
    const before = await ids();
    assert.equal(before.length, 4);
    assert.equal(await indexSource(store, file, adapter, segment), 'unchanged');
    await addGooseMessage(db, '20260301_2', { role: 'user', created: T0 + 4000, content: [text('And which of the winter keepers in data/varieties.csv are good for cooking rather than eating raw?')] });
    await addGooseMessage(db, '20260301_2', { role: 'assistant', created: T0 + 4010, content: [text('Bramley and Howgate Wonder are the cookers among the keepers; the list marks them with use=cooking now.')] });
    await indexSource(store, file, adapter, segment);
    assert.deepEqual(reads.slice(1), [['20260301_2']], 'only the session that changed is read again');
    assert.equal((await ids()).length, 5);
    // Goose's replace_conversation: every row of the session deleted and inserted again, with new row ids
    const rows = await db.all<{ role: string; content_json: string; created_timestamp: number; metadata_json: string }>(
      "SELECT role, content_json, created_timestamp, metadata_json FROM messages WHERE session_id = '20260301_1' ORDER BY id");
    await db.transaction(async () => {
      await db.run("DELETE FROM messages WHERE session_id = '20260301_1'");
      for (const r of rows) await db.run("INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES ('20260301_1', ?, ?, ?, ?)", [r.role, r.content_json, r.created_timestamp, r.metadata_json]);
    });
    await indexSource(store, file, adapter, segment);
    assert.deepEqual(reads.slice(2), [['20260301_1']]);
    assert.equal((await ids()).length, 5);
    assert.deepEqual((await ids()).filter((id) => before.includes(id)).length, 4, 'the rewritten session\'s exchanges keep their ids');
  } finally {
    await store.close();
    await db.close();
  }
});

/** A session as Goose before 1.10 wrote it: its metadata line, then one message per line. */
function legacyFile(messages: readonly GooseMessage[]): string {
  const metadata = { working_dir: LARDER, description: 'Pantry expiry dates', schedule_id: null, message_count: messages.length, total_tokens: 1200 };
  return [metadata, ...messages].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

test('Goose JSONL (before 1.10): metadata line then messages; a half-written last line waits; the same session imported into the database is one memory', async () => {
  const dir = tempDir('goose-');
  const legacy = path.join(dir, 'goose', 'sessions', '20260301_1.jsonl');
  await mkdir(path.dirname(legacy), { recursive: true });
  const whole = legacyFile(PANTRY);
  const cut = whole.lastIndexOf('{"role"');
  await writeFile(legacy, whole.slice(0, cut + 30)); // Goose caught mid-line
  const store = await Store.open(path.join(tempDir('goose-store-'), 's.sqlite'));
  const { file, db } = await larderDb(dir);
  try {
    const found = await discover({ workspaceRoots: [LARDER], extraRoots: [dir] });
    assert.deepEqual(found.map((s) => [path.basename(s.path), s.adapter, s.project]), [
      ['20260301_1.jsonl', gooseLegacyAdapter, LARDER],
      ['sessions.db', gooseDbAdapter, undefined],
    ]);
    const parsed = gooseLegacyAdapter.parse({ file: legacy, lines: (await readFile(legacy, 'utf8')).split('\n').slice(0, -1).map((t, i) => ({ text: t, line: i + 1, offset: 0, bytes: t.length + 1 })) });
    assert.deepEqual(parsed.conversations[0]!.meta, { agent: 'goose', sessionId: '20260301_1', line: 1, isSubagent: false, project: LARDER, title: 'Pantry expiry dates', startedAt: '2026-03-01T09:00:00.000Z' });
    const spans = async (): Promise<number[][]> => (await store.listExchanges()).map((e) => [e.lineStart, e.lineEnd]).sort((a, b) => a[0]! - b[0]!);
    await indexSource(store, legacy, gooseLegacyAdapter, segment);
    assert.deepEqual(await spans(), [[2, 10], [11, 13]], 'the line being written is held back');
    await writeFile(legacy, whole);
    await indexSource(store, legacy, gooseLegacyAdapter, segment);
    assert.deepEqual(await spans(), [[2, 10], [11, 14]], 'the last exchange read again from its start, whole');
    // Goose 1.10 imported the file into its database: the same messages, the same memory
    const both = await indexSources(store, [{ path: file, adapter: gooseDbAdapter, within: [LARDER] }], segment);
    assert.deepEqual(both.failed, []);
    assert.equal(both.duplicates, 2, "the database's copy of the session adds nothing");
    assert.equal((await store.listExchanges()).length, 3, 'the subagent session is the only new one');
  } finally {
    await store.close();
    await db.close();
  }
});

test('Goose: a legacy file outside Goose\'s folder is known by its metadata line; "open raw" shows a database session\'s records, a JSONL file is opened itself', async () => {
  const dir = tempDir('goose-copy-');
  await writeFile(path.join(dir, 'pantry.jsonl'), legacyFile(PANTRY.slice(0, 2)));
  assert.deepEqual((await discover({ extraRoots: [dir] })).map((s) => [s.adapter, s.project]), [[gooseLegacyAdapter, LARDER]]);
  const { file, db } = await larderDb(tempDir('goose-'));
  try {
    const view = (await rawView({ agent: 'goose', file, sessionId: '20260301_1', lineStart: 11, lineEnd: 14, byteStart: 0 }))!;
    const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
    assert.match(view.text, /^\/\/ Goose session 20260301_1: its session and message records/);
    assert.ok(chosen.includes('Also make the shopping list skip') && chosen.includes('filters with isFresh') && !chosen.includes('Reading the comparison'));
    assert.ok(!view.text.includes('iVBORw0KGgo'), "an image's data is never read");
    await assert.rejects(rawView({ agent: 'goose', file, sessionId: '20990101_1', lineStart: 2, lineEnd: 3, byteStart: 0 }), /no longer in/);
    // a JSONL file is its own text, at the exchange's lines
    const own = await rawView({ agent: 'goose', file: path.join(dir, 'pantry.jsonl'), sessionId: 'pantry', lineStart: 2, lineEnd: 3, byteStart: 0 });
    assert.deepEqual([own.lineStart, own.lineEnd], [2, 3]);
    assert.equal(own.text, await readFile(path.join(dir, 'pantry.jsonl'), 'utf8'));
  } finally {
    await db.close();
  }
});

test("Goose: the newer developer tools' files by their names, `read`'s lines counted from 0", () => {
  const messages: GooseMessage[] = [
    { role: 'user', created: T0, content: [text('Which of the pantry checks in src/pantry/expiry.ts still compare days of the month instead of whole dates?')] },
    {
      role: 'assistant', created: T0 + 4,
      content: [
        toolRequest('r1', 'developer__read', { path: FILE, offset: 9, limit: 20 }),
        toolRequest('w1', 'developer__write', { path: `${LARDER}/src/pantry/days.ts`, content: 'export const DAY_MS = 86_400_000;\n' }),
      ],
    },
    { role: 'user', created: T0 + 5, content: [toolResponse('r1', [{ type: 'text', text: 'isFresh, isStale' }]), toolResponse('w1', [{ type: 'text', text: 'written' }])] },
    { role: 'assistant', created: T0 + 9, content: [text('isFresh and isStale both compared getDate(); both now use whole days from src/pantry/days.ts.')] },
  ];
  const lines = legacyFile(messages).split('\n').slice(0, -1).map((t, i) => ({ text: t, line: i + 1, offset: 0, bytes: t.length + 1 }));
  const [conv] = gooseLegacyAdapter.parse({ file: '/x/goose/sessions/20260301_9.jsonl', lines }).conversations;
  const { exchanges } = segmentConversation(conv!, { ...segment, workspaceRoot: LARDER });
  assert.deepEqual(exchanges[0]!.filesTouched, [
    { path: 'src/pantry/days.ts', how: 'write' },
    { path: 'src/pantry/expiry.ts', how: 'read', lines: [{ start: 10, end: 29 }] },
  ]);
});

test("Goose's sessions folder: XDG data on Linux and macOS, Block\\goose\\data on Windows, GOOSE_PATH_ROOT over both", () => {
  assert.deepEqual(defaultGooseRoots({ XDG_DATA_HOME: '/x/data' }, 'linux'), ['/x/data/goose/sessions']);
  assert.deepEqual(defaultGooseRoots({}, 'darwin'), [path.join(os.homedir(), '.local', 'share', 'goose', 'sessions')]);
  assert.deepEqual(defaultGooseRoots({ APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32'), [path.join('C:/Users/u/AppData/Roaming', 'Block', 'goose', 'data', 'sessions')]);
  assert.deepEqual(defaultGooseRoots({ GOOSE_PATH_ROOT: '/srv/goose', XDG_DATA_HOME: '/x/data' }, 'linux'), ['/srv/goose/data/sessions']);
  assert.deepEqual(defaultGooseRoots({ GOOSE_PATH_ROOT: 'relative' }, 'linux'), [path.join(os.homedir(), '.local', 'share', 'goose', 'sessions')], 'Goose ignores a relative root');
});
