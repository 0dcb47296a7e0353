import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultUserDataDirs, editorAgentRoots } from '../../src/core/sources/agentRoots';
import { cursorAdapter } from '../../src/core/sources/cursor';
import { defaultDiscovery, discoverSources, type DiscoveredSource } from '../../src/core/sources/discover';
import { traeAdapter, traeGlobalAdapter } from '../../src/core/sources/trae';
import { holdsTraeSessions } from '../../src/core/sources/traeDb';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';
import { buildTraeUserData, HARBOUR, harbourValue, TRAE_GAUGES, TRAE_GLOBAL, TRAE_TIDES, tidesSession } from './traeFixture';

const segment = { minChars: 100, maxPlies: 20 };

const discover = (extraRoots: string[], workspaceRoots: string[]): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots, claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots, includeSubagents: true });

test("Trae: a workspace database's sessions (times in ms, s and ISO; an answer told by its plan); entries that are not sessions and unknown messages counted", async () => {
  const { harbourDb, dbs } = await buildTraeUserData(tempDir('trae-'));
  try {
    const out = traeAdapter.parse({ file: harbourDb, lines: await traeAdapter.readRecords!(harbourDb) });
    assert.deepEqual(out.skipped, [
      { line: 1, reason: 'malformed-json' }, { line: 2, reason: 'malformed-json' }, { line: 9, reason: 'unknown-record' }, { line: 10, reason: 'not-an-object' },
    ], 'an entry without sessionId and a string in the list (first: they have no time); a system message; a message that is a number');
    assert.deepEqual(out.conversations.map((c) => c.meta.sessionId), [TRAE_GAUGES, TRAE_TIDES], 'oldest first');
    const [gauges, tides] = out.conversations;
    assert.deepEqual(tides!.meta, { agent: 'trae', sessionId: TRAE_TIDES, line: 1, isSubagent: false, startedAt: '2025-11-10T09:00:00.000Z', model: 'doubao-seed-code' });
    assert.deepEqual(tides!.messages.map((m) => `${m.kind} ${m.line} ${m.timestamp}`), [
      'prompt 2 2025-11-10T09:00:00.000Z', 'reply 3 2025-11-10T09:00:20.000Z', 'prompt 6 2025-11-10T09:01:00.000Z', 'reply 7 2025-11-10T09:01:30.000Z',
    ], 'positions in the session (1 is the session)');
    assert.match(tides!.messages[3]!.text, /^Add formatTideLocal\(t\) in src\/tides\/format\.ts[\s\S]*\nUse it in the tide table/, 'an empty answer told by its plan items');
    assert.deepEqual(gauges!.messages.map((m) => m.timestamp), ['2025-11-07T08:00:00.000Z', '2025-11-07T08:00:30.000Z'], 'epoch seconds; an ISO string as written');
    assert.equal(gauges!.meta.model, 'doubao-1.5-pro', 'named by a message when the session names none');
  } finally {
    for (const db of dbs) await db.close();
  }
});

test("Trae: discovered by layout under a root (only this workspace's database that holds Trae's key; the global one without a workspace), read from a lock-free copy", async () => {
  const root = tempDir('trae-');
  const { user, harbourDb, plainDb, otherDb, globalDb, dbs } = await buildTraeUserData(root);
  const store = await Store.open(path.join(tempDir('trae-store-'), 's.sqlite'));
  try {
    assert.equal((await readFile(harbourDb)).readUInt8(18), 1, "VS Code's storage: a rollback-journal database");
    assert.deepEqual([await holdsTraeSessions(harbourDb), await holdsTraeSessions(plainDb)], [true, false]);
    const found = await discover([root], [HARBOUR]);
    assert.deepEqual(found.map((s) => [path.relative(user, s.path), s.adapter, s.project ?? s.within]), [
      [path.join('globalStorage', 'state.vscdb'), traeGlobalAdapter, [HARBOUR]], [path.relative(user, harbourDb), traeAdapter, HARBOUR],
    ], "VS Code's own workspace database (no Trae key) and another project's are passed over; the global one's sessions are kept by the project they name");
    assert.deepEqual((await discover([root], [])).map((s) => [s.path, s.adapter]), [
      [globalDb, traeGlobalAdapter], [harbourDb, traeAdapter], [otherDb, traeAdapter],
    ], 'without a workspace: every database holding Trae\'s key');
    assert.equal(cursorAdapter.claimsPath!(globalDb), false, "Trae's global database is not Cursor's");
    const global = traeGlobalAdapter.parse({ file: globalDb, lines: await traeGlobalAdapter.readRecords!(globalDb) }).conversations;
    assert.deepEqual(global.map((c) => [c.meta.sessionId, c.meta.project, c.messages.length]), [[TRAE_GLOBAL, undefined, 2]]);

    const report = await indexSources(store, found, segment);
    assert.deepEqual(report.failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.agent, e.sessionId, e.project, e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]), [
      ['trae', TRAE_GAUGES, HARBOUR, 2, 3, '2025-11-07T08:00:00.000Z', 'message'],
      ['trae', TRAE_TIDES, HARBOUR, 2, 3, '2025-11-10T09:00:00.000Z', 'message'],
      ['trae', TRAE_TIDES, HARBOUR, 6, 7, '2025-11-10T09:01:00.000Z', 'message'],
    ]);
    const planned = (await store.getExchange(rows[2]!.exchangeId))!;
    assert.deepEqual(planned.filesTouched, [], 'no tool calls are recorded; a path in prose counts only when the file exists');
    assert.equal(await tmpCopies(), 0, 'no copy left behind');
  } finally {
    for (const db of dbs) await db.close();
    await store.close();
  }
});

test('Trae: a write under way is waited out (never locked); one changed session is the only one read again; open raw at its messages; a value that is not JSON says so and keeps what was read', async () => {
  const root = tempDir('trae-');
  const { harbourDb, dbs } = await buildTraeUserData(root);
  const trae = dbs[0]!;
  const store = await Store.open(path.join(tempDir('trae-store-'), 's.sqlite'));
  try {
    const found = (await discover([root], [HARBOUR])).find((s) => s.path === harbourDb);
    await trae.exec('BEGIN IMMEDIATE');
    await trae.run("INSERT INTO ItemTable VALUES ('workbench.panel.height', '300')");
    assert.ok(await stat(`${harbourDb}-journal`).then(() => true, () => false), 'a hot journal beside the database');
    const busy = await indexSources(store, [found!], segment);
    assert.match(busy.failed[0]!.error, /^Trae's database .*state\.vscdb was being written each time it was copied; it is read again on the next run\.$/);
    await trae.exec('COMMIT');

    const reads: Array<readonly string[] | undefined> = [];
    const groups = traeAdapter.recordGroups!;
    const src: DiscoveredSource = { ...found!, adapter: { ...traeAdapter, recordGroups: { fingerprints: groups.fingerprints, read: (f, ids) => (reads.push(ids), groups.read(f, ids)) } } };
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    // Trae rewrites its whole value: the tide session gains an exchange, the gauge session is as it was
    const more = tidesSession([
      { role: 'user', content: 'Does the CSV export still write UTC after this change, with the Z suffix the harbour office expects?', timestamp: Date.parse('2025-11-10T09:03:00.000Z') },
      { role: 'assistant', content: 'Yes: the CSV export still calls formatTide, which returns toISOString() with the Z suffix; only the table uses formatTideLocal.', timestamp: Date.parse('2025-11-10T09:03:20.000Z') },
    ]);
    await trae.run("UPDATE ItemTable SET value = ? WHERE key = 'memento/icube-ai-agent-storage'", [JSON.stringify(harbourValue(more))]);
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    assert.deepEqual(reads, [undefined, [TRAE_TIDES]]);
    assert.equal((await store.listExchanges()).filter((e) => e.sessionId === TRAE_TIDES).length, 3);

    const view = (await rawView({ agent: 'trae', file: harbourDb, sessionId: TRAE_TIDES, lineStart: 6, lineEnd: 7, byteStart: 0 }))!;
    const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
    assert.match(view.text.split('\n')[0]!, /^\/\/ Trae session b8f1c2d3-.*its entry and its messages/);
    assert.match(chosen, /Intl\.DateTimeFormat[\s\S]*formatTideLocal/);
    assert.ok(!chosen.includes('an hour late'), 'not the first exchange');

    await trae.run("UPDATE ItemTable SET value = ? WHERE key = 'memento/icube-ai-agent-storage'", ['{"list": [{"sessionId": "b8f1']);
    const cut = await indexSources(store, [src], segment);
    assert.match(cut.failed[0]!.error, /^Trae's chat storage in .*state\.vscdb is not JSON \(.*\); it is read again on the next run\.$/);
    assert.equal((await store.listExchanges()).length, 4, 'what was read stays');
  } finally {
    for (const db of dbs) await db.close();
    await store.close();
  }
});

test("Trae's user-data folders per platform, searched like VS Code's", () => {
  const home = os.homedir();
  const linux = defaultUserDataDirs({ XDG_CONFIG_HOME: '/x/config' }, 'linux');
  assert.deepEqual(linux.filter((d) => /trae/i.test(d)), ['/x/config/Trae', '/x/config/Trae CN', '/x/config/TRAE SOLO CN']);
  assert.ok(defaultUserDataDirs({}, 'darwin').includes(path.join(home, 'Library', 'Application Support', 'Trae')));
  assert.ok(defaultUserDataDirs({ APPDATA: 'C:\\Users\\dev\\AppData\\Roaming' }, 'win32').includes(path.join('C:\\Users\\dev\\AppData\\Roaming', 'Trae CN')));
  const roots = defaultDiscovery({ workspaceRoots: [HARBOUR], userDataDirs: ['/x/config/Trae'] }).agentRoots!;
  assert.ok(editorAgentRoots('/x/config/Trae').every((r) => roots.includes(r)));
  assert.ok(roots.includes(path.join('/x/config/Trae', 'User', 'globalStorage', 'state.vscdb')));
});

async function tmpCopies(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(os.tmpdir())).filter((n) => n.startsWith('agent-recall-db-')).length;
}
