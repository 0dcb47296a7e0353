import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { decompress } from 'fzstd';
import { indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { defaultZedRoots } from '../../src/core/sources/agentRoots';
import { discoverSources, type DiscoveredSource } from '../../src/core/sources/discover';
import { zedAdapter } from '../../src/core/sources/zed';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';
import { buildZedDb, THREAD_GAUGES, THREAD_SUBAGENT, THREAD_TIDES, ZED_CURRENT, ZED_CURRENT_ZSTD } from './zedFixture';

const segment = { minChars: 100, maxPlies: 20 };

async function zedData(): Promise<{ root: string; file: string }> {
  const root = path.join(tempDir('zed-'), 'zed', 'threads');
  await mkdir(root, { recursive: true });
  return { root, file: path.join(root, 'threads.db') };
}

const parseDb = async (file: string): Promise<ParseOutput> => zedAdapter.parse({ file, lines: await zedAdapter.readRecords!(file) });

test('Zed: the fixture row is a real zstd frame (streamed, no content size) of the 0.3.0 document', () => {
  assert.equal(ZED_CURRENT_ZSTD.readUInt32LE(0), 0xfd2fb528, 'the zstd magic number');
  assert.equal(new TextDecoder().decode(decompress(ZED_CURRENT_ZSTD)), ZED_CURRENT);
});

test('Zed threads.db: zstd and JSON rows, both document shapes; a truncated frame, an unknown data_type and an unknown message are counted, every other thread read', async () => {
  const { file } = await zedData();
  const zed = await buildZedDb(file);
  try {
    const out = await parseDb(file);
    assert.deepEqual(out.conversations.map((c) => c.meta.sessionId), [THREAD_GAUGES, THREAD_TIDES, THREAD_SUBAGENT], 'oldest first');
    const reasons = out.skipped.map((s) => s.reason).sort();
    assert.deepEqual(reasons, ['malformed-json', 'malformed-json', 'unknown-record'], 'two unreadable rows, one message kind of a later version');
    const tides = out.conversations[1]!;
    assert.deepEqual(tides.meta, {
      agent: 'zed', sessionId: THREAD_TIDES, line: 1, isSubagent: false, project: '/home/dev/harbour',
      title: 'Tide times in local time', startedAt: '2025-11-06T10:00:00+00:00', model: 'claude-sonnet-4-5',
    });
    // position 1 is the thread; then one record per element of messages ("Resume" at 5 gives nothing)
    assert.deepEqual(tides.messages.map((m) => `${m.kind} ${m.line}`), [
      'prompt 2', 'context 2', 'reply 3', 'tool-results 3', 'reply 4', 'tool-results 4', 'prompt 6', 'reply 7',
    ]);
    const [prompt, context, reply, results] = tides.messages;
    assert.equal(prompt!.text, 'The tide API returns UTC. Make formatTide print harbour local time (Europe/Paris) and keep the ISO format.');
    assert.equal(context!.text, 'export function formatTide(t: Date) { return t.toISOString(); }', "a mention's inlined file is context, not the human's words");
    assert.equal(reply!.text, "I'll read the formatter first.", 'thinking is not the reply');
    assert.deepEqual(reply!.toolCalls[0]!.input, { path: '/home/dev/harbour/src/tides/format.ts', start_line: 1, end_line: 40 }, 'the root-named path made absolute');
    assert.deepEqual(reply!.touched, [{ path: '/home/dev/harbour/src/tides/format.ts', how: 'read', lines: [{ start: 1, end: 40 }] }]);
    assert.deepEqual(prompt!.touched, [{ path: '/home/dev/harbour/src/tides/format.ts', how: 'mention' }]);
    assert.deepEqual(results!.toolResults, [{ toolUseId: 'toolu_z1', text: 'export function formatTide(t: Date) { return t.toISOString(); }', isError: false }]);
    assert.equal(tides.messages[5]!.toolResults[0]!.text, 'Edited harbour/src/tides/format.ts', 'a content list of Text');

    const legacy = out.conversations[0]!;
    assert.equal(legacy.meta.title, 'Rename the gauge ids');
    assert.deepEqual(legacy.messages.map((m) => `${m.kind} ${m.line}`), ['prompt 3', 'reply 4', 'tool-results 4'], 'the system message is not the conversation');
    assert.deepEqual(legacy.messages[2]!.toolResults, [{ toolUseId: 'tool_l1', text: 'Replaced 14 occurrences', isError: false }]);
    const sub = out.conversations[2]!;
    assert.deepEqual([sub.meta.isSubagent, sub.meta.parentSessionId], [true, THREAD_TIDES]);
  } finally {
    await zed.close();
  }
});

test('Zed: exchanges dated by the thread (no message has a time), files touched from the tools (paths named by their root folder)', async () => {
  const { file } = await zedData();
  const zed = await buildZedDb(file);
  try {
    const tides = (await parseDb(file)).conversations[1]!;
    const { exchanges } = segmentConversation(tides, segment);
    assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]), [
      [2, 4, '2025-11-06T10:00:00+00:00', 'session'],
      [6, 7, '2025-11-06T10:00:00+00:00', 'session'],
    ]);
    assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/tides/format.ts', how: 'edit' }]);
    const legacy = segmentConversation((await parseDb(file)).conversations[0]!, segment).exchanges;
    assert.deepEqual(legacy[0]!.filesTouched, [{ path: 'src/gauges/ids.ts', how: 'edit' }]);
  } finally {
    await zed.close();
  }
});

test("Zed: discovery by layout, the workspace's threads kept; one changed thread is the only one read again; open raw at its records", async () => {
  const { root, file } = await zedData();
  const zed = await buildZedDb(file);
  const store = await Store.open(path.join(tempDir('zed-store-'), 's.sqlite'));
  try {
    const found = await discoverSources({ workspaceRoots: ['/home/dev/harbour'], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [path.dirname(root)], includeSubagents: true });
    assert.deepEqual(found.map((s) => [s.path, s.adapter.agent, s.within]), [[file, 'zed', ['/home/dev/harbour']]]);
    const reads: Array<readonly string[] | undefined> = [];
    const groups = zedAdapter.recordGroups!;
    const src: DiscoveredSource = { ...found[0]!, adapter: { ...zedAdapter, recordGroups: { fingerprints: groups.fingerprints, read: (f, ids) => (reads.push(ids), groups.read(f, ids)) } } };
    const first = await indexSources(store, [src], segment);
    assert.deepEqual(first.failed, []);
    assert.deepEqual((await store.listExchanges()).map((e) => [e.agent, e.sessionId]).sort(), [['zed', THREAD_TIDES], ['zed', THREAD_TIDES], ['zed', THREAD_SUBAGENT]]);
    // Zed saves the subagent thread again (a new document, a new updated_at)
    const doc = JSON.stringify({ version: '0.3.0', title: 'Find the callers of formatTide', messages: [
      { User: { id: 'sub-u1', content: [{ Text: 'List every caller of formatTide in the harbour project and say which ones pass a Date built from UTC strings.' }] } },
      { Agent: { content: [{ Text: 'Three callers: the tide table, the chart tooltip and the CSV export; only the CSV export builds its Date from a UTC string.' }], tool_results: {} } },
      { User: { id: 'sub-u2', content: [{ Text: 'And which of them would break if formatTide started returning local time?' }] } },
      { Agent: { content: [{ Text: 'Only the CSV export: it parses the formatted string back with Date.parse, which would read the local time as UTC.' }], tool_results: {} } },
    ] });
    await zed.run('UPDATE threads SET data = ?, updated_at = ? WHERE id = ?', [Buffer.from(doc), '2025-11-06T10:30:00+00:00', THREAD_SUBAGENT]);
    const second = await indexSources(store, [src], segment);
    assert.deepEqual([second.failed, reads], [[], [undefined, [THREAD_SUBAGENT]]]);
    assert.equal((await store.listExchanges()).filter((e) => e.sessionId === THREAD_SUBAGENT).length, 2);

    const view = (await rawView({ agent: 'zed', file, sessionId: THREAD_TIDES, lineStart: 6, lineEnd: 7, byteStart: 0 }))!;
    const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
    assert.match(view.text.split('\n')[0]!, /^\/\/ Zed thread 6d1e3f5a-.*decompressed/);
    assert.match(chosen, /daylight saving switch[\s\S]*04:10 after it/);
    assert.ok(!chosen.includes('read the formatter first'), 'not the first exchange');
    await assert.rejects(rawView({ agent: 'zed', file, sessionId: 'gone', lineStart: 2, lineEnd: 3, byteStart: 0 }), /no longer in/);
  } finally {
    await zed.close();
    await store.close();
  }
});

test("Zed: a store from before Zed added folder_paths and created_at is read (dated by updated_at, no project); Zed's data folder per platform", async () => {
  const { file } = await zedData();
  const zed = await buildZedDb(file, true);
  try {
    const [legacy] = (await parseDb(file)).conversations;
    assert.deepEqual([legacy!.meta.project, legacy!.meta.startedAt], [undefined, '2025-10-01T08:00:00+00:00']);
  } finally {
    await zed.close();
  }
  const home = (await import('node:os')).homedir();
  assert.deepEqual(defaultZedRoots({ XDG_DATA_HOME: '/x/data' }, 'linux'), ['/x/data/zed/threads']);
  assert.deepEqual(defaultZedRoots({ XDG_DATA_HOME: '/x/data', FLATPAK_XDG_DATA_HOME: '/f/data' }, 'linux'), ['/f/data/zed/threads']);
  assert.deepEqual(defaultZedRoots({}, 'darwin'), [path.join(home, 'Library', 'Application Support', 'Zed', 'threads')]);
  assert.deepEqual(defaultZedRoots({ LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local' }, 'win32'), [path.join('C:\\Users\\dev\\AppData\\Local', 'Zed', 'threads')]);
});

test('Zed: a threads.db in rollback-journal mode is never opened and says so', async () => {
  const { file } = await zedData();
  const zed = await buildZedDb(file);
  const store = await Store.open(path.join(tempDir('zed-store-'), 's.sqlite'));
  try {
    await zed.exec('PRAGMA journal_mode = DELETE');
    assert.equal((await readFile(file)).readUInt8(18), 1);
    const report = await indexSources(store, [{ path: file, adapter: zedAdapter }], segment);
    assert.match(report.failed[0]!.error, /^Zed's database .*threads\.db is not in WAL mode/);
  } finally {
    await zed.close();
    await store.close();
  }
});
