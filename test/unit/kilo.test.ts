import assert from 'node:assert/strict';
import { cp, mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultKiloRoots, editorAgentRoots } from '../../src/core/sources/agentRoots';
import { kiloLegacyAdapter } from '../../src/core/sources/cline';
import { discoverSources } from '../../src/core/sources/discover';
import { splitLines } from '../../src/core/sources/lines';
import { kiloAdapter, kiloDbAdapter, openCodeDbAdapter } from '../../src/core/sources/opencode';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';
import { buildOpenCodeDb } from './opencodeDb';

const segment = { minChars: 100, maxPlies: 20 };
const TASK_ID = '3c5e7a9b-1d2f-4a6b-8c0e-2f4a6b8c0d1e';
const OPENCODE_STORAGE = path.join(FIXTURES, 'opencode', 'opencode', 'storage');
const HARBOUR_SESSION = 'ses_5f1a2b3c4d5eHarbourTides01';

const discover = (agentRoots: string[], workspaceRoots: string[] = []): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots, claudeRoots: [], codexRoots: [], agentRoots, extraRoots: [], includeSubagents: true });

test('Kilo Code legacy task: found by its extension folder as Kilo, its workspace from the environment details; the Cline-style history read, dated by its first UI message', async () => {
  const userData = tempDir('kilo-legacy-');
  const tasks = path.join(userData, 'User', 'globalStorage', 'kilocode.kilo-code', 'tasks');
  await cp(path.join(FIXTURES, 'kilo', 'kilocode.kilo-code', 'tasks'), tasks, { recursive: true });
  assert.ok(editorAgentRoots(userData).includes(tasks), "a default root of every editor's user data");
  const found = await discover([tasks], ['/home/dev/harbour']);
  assert.deepEqual(found.map((s) => [s.adapter, s.project]), [[kiloLegacyAdapter, '/home/dev/harbour']]);
  assert.deepEqual(await discover([tasks], ['/home/dev/gauges']), [], "another workspace's");

  const file = path.join(tasks, TASK_ID, 'api_conversation_history.json');
  const side = new Map([['ui_messages.json', await readFile(path.join(tasks, TASK_ID, 'ui_messages.json'), 'utf8')]]);
  const out = kiloLegacyAdapter.parse({ file, lines: splitLines(await readFile(file), 0, 1, { holdBackPartial: false }).lines, side });
  const conv = out.conversations[0]!;
  assert.deepEqual(conv.meta, { agent: 'kilo', sessionId: TASK_ID, line: 1, isSubagent: false, startedAt: '2025-11-05T09:00:00.000Z' });
  assert.deepEqual(conv.messages.filter((m) => m.kind === 'prompt').map((m) => m.text), [
    'The tide height chart in src/tides/height.ts draws metres, but the harbour office reads feet. Add a unit switch that defaults to metres.',
    'Round feet to one decimal, not two.',
  ]);
  assert.ok(!conv.messages.some((m) => /environment_details|Current Mode/.test(m.text)), 'what Kilo injected is dropped');

  const store = await Store.open(path.join(tempDir('kilo-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const exchanges = await store.listExchanges();
    assert.deepEqual(exchanges.map((e) => [e.agent, e.startedAt, e.datePrecision]), [
      ['kilo', '2025-11-05T09:00:00.000Z', 'session'], ['kilo', '2025-11-05T09:00:00.000Z', 'session'],
    ]);
    const first = (await store.getExchange(exchanges.find((e) => /unit switch/.test(e.prompt))!.exchangeId))!;
    // the UI message Kilo was still streaming (partial) names no file
    assert.deepEqual(first.filesTouched, [{ path: 'src/tides/height.ts', how: 'edit' }]);
  } finally {
    await store.close();
  }
});

test('Kilo Code database (kilo.db, OpenCode\'s schema): its sessions are Kilo\'s, with ids of their own beside the same sessions in an OpenCode database', async () => {
  const base = tempDir('kilo-db-');
  const kiloData = path.join(base, 'kilo');
  const openCodeData = path.join(base, 'opencode');
  await mkdir(kiloData, { recursive: true });
  await mkdir(openCodeData, { recursive: true });
  const kiloFile = path.join(kiloData, 'kilo.db');
  const kilo = await buildOpenCodeDb(OPENCODE_STORAGE, kiloFile);
  const opencode = await buildOpenCodeDb(OPENCODE_STORAGE, path.join(openCodeData, 'opencode.db'));
  const store = await Store.open(path.join(tempDir('kilo-store-'), 's.sqlite'));
  try {
    const found = await discover([kiloData, openCodeData], ['/home/dev/harbour']);
    assert.deepEqual(found.map((s) => [path.relative(base, s.path), s.adapter]), [['kilo/kilo.db', kiloDbAdapter], ['opencode/opencode.db', openCodeDbAdapter]]);
    const report = await indexSources(store, found, segment);
    assert.deepEqual(report.failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => e.agent).sort(), ['kilo', 'kilo', 'opencode', 'opencode'], 'two memories: one per agent');
    const kiloIds = new Set(rows.filter((e) => e.agent === 'kilo').map((e) => e.exchangeId));
    assert.ok(rows.filter((e) => e.agent === 'opencode').every((e) => !kiloIds.has(e.exchangeId)));

    const view = (await rawView({ agent: 'kilo', file: kiloFile, sessionId: HARBOUR_SESSION, lineStart: 17, lineEnd: 21, byteStart: 0 }))!;
    assert.match(view.text.split('\n')[0]!, /^\/\/ Kilo Code session ses_5f1a2b3c4d5eHarbourTides01/);
    assert.match(view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n'), /"id": "msg_a04"/);

    await kilo.exec('PRAGMA journal_mode = DELETE');
    const again = await indexSources(await Store.open(path.join(tempDir('kilo-store-'), 's.sqlite')), [found[0]!], segment);
    assert.match(again.failed[0]!.error, /^Kilo Code's database .*kilo\.db is not in WAL mode/);
  } finally {
    await kilo.close();
    await opencode.close();
    await store.close();
  }
});

test("Kilo Code's other database names (a channel's kilo-<channel>.db, a development channel's opencode-<channel>.db in Kilo's folder, KILO_DB) and its JSON storage", async () => {
  const base = tempDir('kilo-names-');
  const kiloData = path.join(base, 'kilo');
  await mkdir(kiloData, { recursive: true });
  for (const name of ['kilo-beta.db', 'opencode-dev.db']) await (await buildOpenCodeDb(OPENCODE_STORAGE, path.join(kiloData, name))).close();
  await cp(OPENCODE_STORAGE, path.join(kiloData, 'storage'), { recursive: true });
  const found = await discover([kiloData]);
  assert.deepEqual(
    found.map((s) => [path.relative(kiloData, s.path), s.adapter.agent, s.adapter.lineFormat]),
    [
      ['kilo-beta.db', 'kilo', 'sqlite'],
      ['opencode-dev.db', 'kilo', 'sqlite'],
      [path.join('storage', 'session', '4f6b0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c', `${HARBOUR_SESSION}.json`), 'kilo', 'files'],
      [path.join('storage', 'session', 'global', 'ses_6a7b8c9d0e1fGaugesRename02.json'), 'kilo', 'files'],
    ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
  );
  const session = found.find((s) => s.adapter === kiloAdapter)!;
  const parsed = kiloAdapter.parse({ file: session.path, lines: await kiloAdapter.readRecords!(session.path) });
  assert.equal(parsed.conversations[0]!.meta.agent, 'kilo');
  const { exchanges } = segmentConversation(parsed.conversations[0]!, segment);
  assert.ok(exchanges.length > 0 && exchanges.every((e) => e.agent === 'kilo'));

  assert.deepEqual(defaultKiloRoots({ XDG_DATA_HOME: '/x/data' }), ['/x/data/kilo']);
  assert.deepEqual(defaultKiloRoots({ XDG_DATA_HOME: '/x/data', KILO_DB: 'kilo-test.db' }), ['/x/data/kilo', '/x/data/kilo/kilo-test.db']);
  assert.deepEqual(defaultKiloRoots({ XDG_DATA_HOME: '/x/data', KILO_DB: '/tmp/other/kilo-mine.db' }), ['/x/data/kilo', '/tmp/other/kilo-mine.db']);
  assert.equal(kiloDbAdapter.matchesPath('/tmp/other/kilo-mine.db'), true);
  assert.equal(kiloDbAdapter.matchesPath('/tmp/other/opencode-dev.db'), false, "not in Kilo's folder: OpenCode's");
});
