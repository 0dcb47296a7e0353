import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultCrushRoots } from '../../src/core/sources/agentRoots';
import { crushAdapter } from '../../src/core/sources/crush';
import { type DiscoverOptions, discoverSources } from '../../src/core/sources/discover';
import { segmentConversation } from '../../src/core/segment';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { buildCrushDb, type CrushMessage, insertCrushMessage, insertCrushSession, part } from './crushFixture';
import { tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const T0 = 1772442000; // 2026-03-02T09:00:00Z in Unix seconds, as Crush writes its times
const S1 = '5d2f9a1c-7e3b-4c8d-9f10-2a6b4c8e1d03';
const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAA'.repeat(2000);

/** The badge session: an attachment, tool calls and results (one an error, one with a whole file as metadata), a `!` command, a failed turn, a summary. */
const BADGE: CrushMessage[] = [
  {
    id: 'm01', role: 'user', createdAt: T0,
    parts: [
      part('text', { text: 'Colour the expiry badge in src/ui/badge.tsx red when an item expires within two days.' }),
      part('binary', { Path: 'docs/palette.md', MIMEType: 'text/markdown', Data: Buffer.from('# Palette\nred: #d33').toString('base64') }),
      part('image_url', { url: `data:image/png;base64,${IMAGE}` }),
      part('finish', { reason: 'stop', time: T0 }),
    ],
  },
  {
    id: 'm02', role: 'assistant', createdAt: T0 + 2, finishedAt: T0 + 4, model: 'claude-sonnet-4-5',
    parts: [
      part('reasoning', { thinking: 'The badge colour is chosen in one place.', signature: 'sig' }),
      part('text', { text: 'Reading the badge component.' }),
      part('tool_call', { id: 'call_v', name: 'view', input: JSON.stringify({ file_path: 'src/ui/badge.tsx', offset: 20, limit: 30 }), finished: true }),
      part('finish', { reason: 'tool_use', time: T0 + 4 }),
    ],
  },
  { id: 'm03', role: 'tool', createdAt: T0 + 5, parts: [part('tool_result', { tool_call_id: 'call_v', name: 'view', content: '21|  const colour = days < 0 ? "grey" : "green";', is_error: false })] },
  {
    id: 'm04', role: 'assistant', createdAt: T0 + 6, finishedAt: T0 + 7, model: 'claude-sonnet-4-5',
    parts: [part('tool_call', { id: 'call_e', name: 'edit', input: JSON.stringify({ file_path: 'src/ui/badge.tsx', old_string: '"green"', new_string: 'days <= 2 ? "red" : "green"' }), finished: true })],
  },
  {
    id: 'm05', role: 'tool', createdAt: T0 + 7,
    parts: [part('tool_result', { tool_call_id: 'call_e', name: 'edit', content: '<result>Content replaced in file</result>', metadata: JSON.stringify({ old_content: 'x'.repeat(50_000), new_content: 'y'.repeat(50_000) }), is_error: false })],
  },
  {
    id: 'm06', role: 'assistant', createdAt: T0 + 8, finishedAt: T0 + 9, model: 'claude-sonnet-4-5',
    parts: [part('text', { text: 'The badge is red when days <= 2 and green otherwise; an expired item stays grey.' }), part('finish', { reason: 'end_turn', time: T0 + 9 })],
  },
  {
    id: 'm07', role: 'user', createdAt: T0 + 60,
    parts: [part('text', { text: 'Does the badge test pass now? If not, fix the snapshot rather than the colours.' }), part('shell_command', { command: 'npm test -- badge', output: 'FAIL src/ui/badge.test.tsx\n  snapshot mismatch', exit_code: 1 })],
  },
  { id: 'm08', role: 'assistant', createdAt: T0 + 61, finishedAt: T0 + 62, parts: [part('finish', { reason: 'error', time: T0 + 62, message: 'rate limit exceeded' })] },
  { id: 'm09', role: 'assistant', createdAt: T0 + 120, finishedAt: T0 + 121, summary: true, parts: [part('text', { text: 'Summary: the badge turns red two days before expiry; its snapshot test fails.' })] },
  // a flat part, as another project's reader assumed Crush writes them, and a part type of a later version
  { id: 'm10', role: 'user', createdAt: T0 + 180, parts: [{ type: 'text', text: 'Update the badge snapshot in src/ui/__snapshots__/badge.test.tsx.snap and run the test again.' }, part('hologram', { beam: 1 })] },
  {
    id: 'm11', role: 'assistant', createdAt: T0 + 190, finishedAt: T0 + 195, model: 'claude-sonnet-4-5',
    parts: [part('text', { text: 'Updated the snapshot: the two-day badge is red in it now, and npm test -- badge passes.' }), part('finish', { reason: 'end_turn', time: T0 + 195 })],
  },
  { id: 'm12', role: 'assistant', createdAt: T0 + 200, parts: '[{"type":"text","data":{"te' },
];

/** A project with Crush's database in its `.crush` folder: the badge session, its title session, a task's session, another session. */
async function larder(root: string): Promise<{ project: string; file: string; db: Db }> {
  const project = path.join(root, 'larder');
  const file = path.join(project, '.crush', 'crush.db');
  await mkdir(path.dirname(file), { recursive: true });
  const db = await buildCrushDb(file);
  await insertCrushSession(db, S1, 'Expiry badge colours', T0);
  for (const m of BADGE) await insertCrushMessage(db, S1, m);
  await insertCrushSession(db, `title-${S1}`, 'Generate a title', T0 + 1, S1);
  await insertCrushMessage(db, `title-${S1}`, { id: 't01', role: 'user', createdAt: T0 + 1, parts: [part('text', { text: 'Generate a concise title for: Colour the expiry badge red when an item expires within two days.' })] });
  await insertCrushMessage(db, `title-${S1}`, { id: 't02', role: 'assistant', createdAt: T0 + 1, parts: [part('text', { text: 'Expiry badge colours' })] });
  await insertCrushSession(db, 'call_agent_1', 'Find badge tests', T0 + 70, S1);
  await insertCrushMessage(db, 'call_agent_1', { id: 'a01', role: 'user', createdAt: T0 + 70, parts: [part('text', { text: 'Find every test that renders the expiry badge and list the files with the case each one covers.' })] });
  await insertCrushMessage(db, 'call_agent_1', { id: 'a02', role: 'assistant', createdAt: T0 + 75, finishedAt: T0 + 76, parts: [part('text', { text: 'Only src/ui/badge.test.tsx renders it: a snapshot of the three colours and a test of the two-day boundary.' })] });
  return { project, file, db };
}

const discover = (roots: Partial<DiscoverOptions>): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [], includeSubagents: true, ...roots });

test('Crush: parts unwrapped from their {type, data} envelopes, Unix seconds, a task\'s session a subagent\'s, the title session left out; a damaged row and an unknown part counted', async () => {
  const { file, db } = await larder(tempDir('crush-'));
  try {
    const lines = await crushAdapter.readRecords!(file);
    const out = crushAdapter.parse({ file, lines });
    assert.deepEqual(out.conversations.map((c) => c.meta), [
      { agent: 'crush', sessionId: S1, line: 1, isSubagent: false, title: 'Expiry badge colours', startedAt: '2026-03-02T09:00:00.000Z', model: 'claude-sonnet-4-5' },
      { agent: 'crush', sessionId: 'call_agent_1', line: 1, isSubagent: true, parentSessionId: S1, title: 'Find badge tests', startedAt: '2026-03-02T09:01:10.000Z' },
    ]);
    const at = (id: string): number => lines.findIndex((l) => l.text.includes(`"id":"${id}"`)) + 1;
    assert.deepEqual(out.skipped, [{ line: at('m10'), reason: 'unknown-record' }, { line: at('m12'), reason: 'malformed-json' }]);
    const badge = out.conversations[0]!;
    assert.deepEqual(badge.messages.map((m) => `${m.kind} ${m.line} ${m.uuid}`), [
      'prompt 2 m01', 'reply 3 m02', 'tool-results 4 m03', 'reply 5 m04', 'tool-results 6 m05', 'reply 7 m06',
      'prompt 8 m07', 'context 8 m07#shell', 'reply 9 m08', 'context 10 m09', 'prompt 11 m10', 'reply 12 m11',
    ]);
    const [prompt, view, viewed] = badge.messages;
    assert.equal(prompt!.text, 'Colour the expiry badge in src/ui/badge.tsx red when an item expires within two days.\n\n[image]');
    assert.deepEqual(prompt!.touched, [{ path: 'docs/palette.md', how: 'mention' }], 'an attached file is a mention');
    assert.equal(prompt!.timestamp, '2026-03-02T09:00:00.000Z', 'seconds, not milliseconds (not 1970)');
    assert.equal(view!.text, 'Reading the badge component.', 'reasoning is not the reply');
    assert.deepEqual(view!.toolCalls, [{ id: 'call_v', name: 'view', input: { file_path: 'src/ui/badge.tsx', offset: 20, limit: 30 }, lines: [{ start: 21, end: 50 }] }]);
    assert.deepEqual(viewed!.toolResults, [{ toolUseId: 'call_v', text: '21|  const colour = days < 0 ? "grey" : "green";', isError: false }]);
    assert.equal(badge.messages[7]!.text, '$ npm test -- badge\nFAIL src/ui/badge.test.tsx\n  snapshot mismatch\n(exit code 1)', 'a command the user ran is context');
    assert.equal(badge.messages[8]!.text, '[error] rate limit exceeded', 'a failed turn says why');
    assert.equal(badge.messages[9]!.text, 'Summary: the badge turns red two days before expiry; its snapshot test fails.', "Crush's summary is context");
    assert.equal(badge.messages[10]!.text, 'Update the badge snapshot in src/ui/__snapshots__/badge.test.tsx.snap and run the test again.');
    // what is never read: an attachment's data, an inline image, a tool's metadata (the edit's whole file)
    const text = lines.map((l) => l.text).join('\n');
    assert.ok(!text.includes(IMAGE.slice(0, 100)) && !text.includes('xxxxxxxxxx') && !text.includes(Buffer.from('# Palette').toString('base64')));
  } finally {
    await db.close();
  }
});

test('Crush: exchanges dated to the second by their messages, with the files the view (its lines, counted from 0) and edit calls touched', async () => {
  const { file, db, project } = await larder(tempDir('crush-'));
  try {
    const [badge] = crushAdapter.parse({ file, lines: await crushAdapter.readRecords!(file) }).conversations;
    const { exchanges } = segmentConversation({ ...badge!, meta: { ...badge!.meta, project } }, { ...segment, workspaceRoot: project });
    assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.endedAt]), [
      [2, 7, '2026-03-02T09:00:00.000Z', '2026-03-02T09:00:08.000Z'],
      [8, 10, '2026-03-02T09:01:00.000Z', '2026-03-02T09:02:00.000Z'],
      [11, 12, '2026-03-02T09:03:00.000Z', '2026-03-02T09:03:10.000Z'],
    ]);
    assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/ui/badge.tsx', how: 'edit' }, { path: 'docs/palette.md', how: 'mention' }]);
  } finally {
    await db.close();
  }
});

test("Crush: found in the workspace's `.crush` folder and under a named root; a data directory elsewhere through projects.json, tied to the project it lists", async () => {
  const root = tempDir('crush-');
  const { project, file, db } = await larder(root);
  // a project whose data directory was set elsewhere (`--data-dir`), listed by Crush in its global data folder
  const orchard = path.join(root, 'orchard');
  const elsewhere = path.join(root, 'crush-data', 'orchard');
  await mkdir(orchard, { recursive: true });
  await mkdir(elsewhere, { recursive: true });
  const other = await buildCrushDb(path.join(elsewhere, 'crush.db'));
  const global = path.join(root, 'global-crush');
  await mkdir(global, { recursive: true });
  await writeFile(path.join(global, 'projects.json'), JSON.stringify({
    projects: [
      { path: orchard, data_dir: elsewhere, last_accessed: '2026-03-02T10:00:00Z' },
      { path: path.join(project, 'src'), data_dir: path.join(project, '.crush'), last_accessed: '2026-03-02T09:00:00Z' },
      { path: '/gone', data_dir: '/gone/.crush', last_accessed: '2026-01-01T00:00:00Z' },
    ],
  }, null, 2));
  try {
    await insertCrushSession(other, 'o1', 'Pruning calendar', T0);
    assert.deepEqual((await discover({ workspaceRoots: [project] })).map((s) => [s.path, s.adapter, s.project]), [[file, crushAdapter, project]], "the workspace's own database");
    assert.deepEqual((await discover({ extraRoots: [root] })).map((s) => [s.path, s.project]), [[path.join(elsewhere, 'crush.db'), orchard], [file, project]], 'by layout under a named root (the list there too)');
    const listed = await discover({ workspaceRoots: [orchard], agentRoots: [global] });
    assert.deepEqual(listed.map((s) => [s.path, s.adapter, s.project]), [[path.join(elsewhere, 'crush.db'), crushAdapter, orchard]], 'listed with the folder Crush ran in');
    assert.deepEqual((await discover({ workspaceRoots: [project], agentRoots: [global] })).map((s) => [s.path, s.project]), [[file, project]], "the `.crush` folder's parent, not the folder Crush ran in");
  } finally {
    await other.close();
    await db.close();
  }
});

test('Crush: a message streaming within one second, and one finishing, read its session again; a new message reads its session alone', async () => {
  const { project, file, db } = await larder(tempDir('crush-'));
  const store = await Store.open(path.join(tempDir('crush-store-'), 's.sqlite'));
  const reads: Array<readonly string[] | undefined> = [];
  const groups = crushAdapter.recordGroups!;
  const adapter = { ...crushAdapter, recordGroups: { fingerprints: groups.fingerprints, read: (f: string, ids?: readonly string[]) => (reads.push(ids), groups.read(f, ids)) } };
  const replies = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const e of await store.listExchanges()) out.push((await store.getExchange(e.exchangeId))!.verbatim);
    return out;
  };
  try {
    await indexSource(store, file, adapter, segment, project);
    assert.equal(await indexSource(store, file, adapter, segment, project), 'unchanged');
    // Crush starts a reply and rewrites its parts as it streams; `updated_at` keeps the same second
    const streamed = (t: string): string => JSON.stringify([part('text', { text: t })]);
    await insertCrushMessage(db, 'call_agent_1', { id: 'a03', role: 'user', createdAt: T0 + 80, parts: [part('text', { text: 'Which of those tests fails when the badge turns red a day earlier, and why does the boundary test miss it?' })] });
    await insertCrushMessage(db, 'call_agent_1', { id: 'a04', role: 'assistant', createdAt: T0 + 81, parts: [part('text', { text: 'The boundary' })] });
    await db.run('UPDATE messages SET updated_at = ? WHERE id = ?', [T0 + 81, 'a04']);
    await indexSource(store, file, adapter, segment, project);
    assert.deepEqual(reads.slice(1), [['call_agent_1']], 'only the session that changed');
    await db.run('UPDATE messages SET parts = ?, updated_at = ? WHERE id = ?', [streamed('The boundary test checks day 2 only; the snapshot test fails at day 3 because'), T0 + 81, 'a04']);
    await indexSource(store, file, adapter, segment, project);
    assert.deepEqual(reads.slice(2), [['call_agent_1']], 'read again: the reply grew in the same second');
    await db.run('UPDATE messages SET parts = ?, finished_at = ?, updated_at = ? WHERE id = ?', [streamed('The boundary test checks day 2 only; the snapshot test fails at day 3 because its snapshot was taken with the old rule.'), T0 + 81, T0 + 81, 'a04']);
    await indexSource(store, file, adapter, segment, project);
    assert.deepEqual(reads.slice(3), [['call_agent_1']], 'read again: the reply finished');
    assert.ok((await replies()).some((v) => v.includes('its snapshot was taken with the old rule')), 'the finished reply is stored');
    assert.equal(await indexSource(store, file, adapter, segment, project), 'unchanged');
  } finally {
    await store.close();
    await db.close();
  }
});

test('Crush: a database in rollback-journal mode says so; one without Crush\'s tables (being created) gives nothing; "open raw" shows a session\'s records', async () => {
  const { project, file, db } = await larder(tempDir('crush-'));
  const empty = path.join(tempDir('crush-empty-'), '.crush', 'crush.db');
  await mkdir(path.dirname(empty), { recursive: true });
  const fresh = await buildEmpty(empty);
  const store = await Store.open(path.join(tempDir('crush-store-'), 's.sqlite'));
  try {
    const view = (await rawView({ agent: 'crush', file, sessionId: S1, lineStart: 8, lineEnd: 10, byteStart: 0 }))!;
    const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
    assert.match(view.text, new RegExp(`^// Crush session ${S1}: its session and message records`));
    assert.deepEqual([...chosen.matchAll(/"id": "(m\d\d)"/g)].map((m) => m[1]), ['m07', 'm08', 'm09']);
    assert.equal((await crushAdapter.recordGroups!.read(empty)).length, 0);
    assert.deepEqual(await crushAdapter.recordGroups!.fingerprints(empty), new Map());
    await db.exec('PRAGMA journal_mode = DELETE');
    await assert.rejects(indexSource(store, file, crushAdapter, segment, project), /^RecallError: Crush's database .*crush\.db is not in WAL mode/);
  } finally {
    await fresh.close();
    await store.close();
    await db.close();
  }
});

test("Crush's global data folder: CRUSH_GLOBAL_DATA, else XDG data, ~/.local/share/crush; %LOCALAPPDATA%\\crush on Windows", () => {
  assert.deepEqual(defaultCrushRoots({ CRUSH_GLOBAL_DATA: '/c', XDG_DATA_HOME: '/x' }, 'linux'), ['/c']);
  assert.deepEqual(defaultCrushRoots({ XDG_DATA_HOME: '/x' }, 'win32'), ['/x/crush']);
  assert.deepEqual(defaultCrushRoots({}, 'darwin'), [path.join(os.homedir(), '.local', 'share', 'crush')]);
  assert.deepEqual(defaultCrushRoots({ LOCALAPPDATA: 'C:/Users/u/AppData/Local' }, 'win32'), [path.join('C:/Users/u/AppData/Local', 'crush')]);
});

/** A database Crush has just created, before its migrations ran. */
async function buildEmpty(file: string): Promise<Db> {
  const db = await Db.open(file);
  await db.exec('PRAGMA journal_mode = WAL; CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER)');
  return db;
}
