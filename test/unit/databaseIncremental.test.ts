import assert from 'node:assert/strict';
import { cp, mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import type { SourceAdapter } from '../../src/core/sources/adapter';
import { cursorAdapter } from '../../src/core/sources/cursor';
import type { DiscoveredSource } from '../../src/core/sources/discover';
import { openCodeAdapter, openCodeDbAdapter } from '../../src/core/sources/opencode';
import { Store } from '../../src/core/store/store';
import { appendBubble, COMPOSER_A, COMPOSER_B, writeCursorUserData } from './cursorFixture';
import { FIXTURES, tempDir } from './helpers';
import { buildOpenCodeDb } from './opencodeDb';

/**
 * A database of many conversations (Cursor's, OpenCode's) is re-read conversation by conversation: only the
 * conversations whose own records changed are read again, the others keep their rows (same row, same id),
 * a new one is added, one deleted from the database keeps its exchanges; the result is what a whole read
 * of the database gives. Real WAL databases, the agent's writer connection held open throughout.
 */

const segment = { minChars: 100, maxPlies: 20 };

/** The adapter as it is, noting which conversations each run reads. */
function recording(adapter: SourceAdapter): { adapter: SourceAdapter; reads: Array<readonly string[] | undefined> } {
  const reads: Array<readonly string[] | undefined> = [];
  const groups = adapter.recordGroups!;
  return {
    reads,
    adapter: { ...adapter, recordGroups: { fingerprints: groups.fingerprints, read: (file, ids) => (reads.push(ids), groups.read(file, ids)) } },
  };
}

type Row = [session: string, lineStart: number, lineEnd: number, id: string, n: number];

async function rows(store: Store): Promise<Row[]> {
  return (await store.db.all<{ s: string; a: number; b: number; id: string; n: number }>(
    'SELECT c.session_id AS s, e.line_start AS a, e.line_end AS b, e.id, e.n FROM exchanges e JOIN conversations c ON c.id = e.conversation_id ORDER BY c.session_id, e.line_start',
  )).map((r) => [r.s, r.a, r.b, r.id, r.n]);
}

/** A fresh store's whole read of the database: what the incremental runs must have arrived at (row numbers aside). */
async function wholeRead(src: DiscoveredSource): Promise<Array<[string, number, number, string]>> {
  const store = await Store.open(path.join(tempDir('whole-'), 's.sqlite'));
  try {
    const report = await indexSources(store, [src], segment);
    assert.deepEqual(report.failed, []);
    return (await rows(store)).map(([s, a, b, id]) => [s, a, b, id]);
  } finally {
    await store.close();
  }
}

const withoutRowNumbers = (list: Row[]): Array<[string, number, number, string]> => list.map(([s, a, b, id]) => [s, a, b, id]);

test('Cursor database: one conversation changed, only it is read again; a new one added; a deleted one keeps its exchanges', async () => {
  const { db, writer } = await writeCursorUserData(tempDir('cursor-inc-'));
  const store = await Store.open(path.join(tempDir('cursor-inc-store-'), 's.sqlite'));
  const { adapter, reads } = recording(cursorAdapter);
  const src: DiscoveredSource = { path: db, adapter, within: ['/home/dev/tidepool'] };
  try {
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    const first = await rows(store);
    assert.deepEqual(reads, [undefined], 'the first run reads the whole database');
    assert.deepEqual(first.map(([s, a, b]) => [s, a, b]), [[COMPOSER_A, 1, 5], [COMPOSER_A, 7, 10], [COMPOSER_B, 1, 2]]);

    // Cursor adds a prompt and its reply to A; B and C are untouched
    await appendBubble(writer, 'a-u3', { _v: 3, type: 1, bubbleId: 'a-u3', text: 'Now make the legend entry for neap tides dashed, and keep spring tides solid.' });
    await appendBubble(writer, 'a-r3', { _v: 3, type: 2, bubbleId: 'a-r3', text: 'The neap tide legend entry is now drawn with a dashed stroke; spring tides keep the solid accent stroke.' });
    const second = await indexSources(store, [src], segment);
    assert.deepEqual([second.failed, second.exchangesWritten, second.exchangesKept], [[], 1, 2], "A's new exchange written, its two others kept as they were, nothing else");
    assert.deepEqual(reads.slice(1), [[COMPOSER_A]], 'only the changed conversation is read');
    const after = await rows(store);
    assert.deepEqual(after.map(([s, a, b]) => [s, a, b]), [[COMPOSER_A, 1, 5], [COMPOSER_A, 7, 10], [COMPOSER_A, 11, 12], [COMPOSER_B, 1, 2]]);
    assert.deepEqual([after[0]![3], after[1]![3]], [first[0]![3], first[1]![3]], "A's exchanges keep their ids (open raw finds them by the same positions)");
    assert.deepEqual(after[3], first[2], "B's row is the same row: not written again");
    assert.deepEqual(withoutRowNumbers(after), await wholeRead({ ...src, adapter: cursorAdapter }), 'the same exchanges as a whole read');

    // nothing changed in any conversation: nothing is read
    await writer.run('INSERT INTO ItemTable(key, value) VALUES (?, ?)', ['ui.state', 'x']);
    assert.equal((await indexSources(store, [src], segment)).exchangesWritten, 0);
    assert.equal(reads.length, 2);

    // a new conversation in this workspace
    const D = 'e5e5e5e5-0000-4000-8000-00000000000e';
    await writer.transaction(async () => {
      await writer.run('INSERT INTO cursorDiskKV VALUES (?, ?)', [`composerData:${D}`, JSON.stringify({
        _v: 10, composerId: D, name: 'Gauge units', createdAt: Date.parse('2025-11-05T10:00:00Z'),
        workspaceIdentifier: { id: 'f00d', uri: { fsPath: '/home/dev/tidepool' } }, fullConversationHeadersOnly: [{ bubbleId: 'd-u1', type: 1 }, { bubbleId: 'd-r1', type: 2 }],
      })]);
      await writer.run('INSERT INTO cursorDiskKV VALUES (?, ?)', [`bubbleId:${D}:d-u1`, JSON.stringify({ type: 1, bubbleId: 'd-u1', text: 'Should the gauge readings be shown in metres or in feet for the harbour office?' })]);
      await writer.run('INSERT INTO cursorDiskKV VALUES (?, ?)', [`bubbleId:${D}:d-r1`, JSON.stringify({ type: 2, bubbleId: 'd-r1', text: 'Metres: the harbour office publishes chart datum heights in metres, and the chart axis already uses them.' })]);
    });
    assert.equal((await indexSources(store, [src], segment)).exchangesWritten, 1);
    assert.deepEqual(reads.slice(2), [[D]]);

    // Cursor deletes conversation B: its exchange stays in the memory, nothing is read
    await writer.run('DELETE FROM cursorDiskKV WHERE key = ?', [`composerData:${COMPOSER_B}`]);
    const fourth = await indexSources(store, [src], segment);
    assert.deepEqual([fourth.failed, fourth.exchangesWritten, reads.length], [[], 0, 3]);
    const kept = await rows(store);
    assert.deepEqual(kept.map(([s, a, b]) => [s, a, b]), [[COMPOSER_A, 1, 5], [COMPOSER_A, 7, 10], [COMPOSER_A, 11, 12], [COMPOSER_B, 1, 2], [D, 1, 2]]);
    assert.deepEqual(kept[3], first[2]);
  } finally {
    await writer.close();
    await store.close();
  }
});

test('OpenCode database: a new turn in one session reads only that session; a new session is added; a deleted one keeps its exchanges', async () => {
  const data = path.join(tempDir('opencode-inc-'), 'opencode');
  await mkdir(data, { recursive: true });
  const file = path.join(data, 'opencode.db');
  const opencode = await buildOpenCodeDb(path.join(FIXTURES, 'opencode', 'opencode', 'storage'), file);
  const store = await Store.open(path.join(tempDir('opencode-inc-store-'), 's.sqlite'));
  const { adapter, reads } = recording(openCodeDbAdapter);
  const src: DiscoveredSource = { path: file, adapter };
  const HARBOUR = 'ses_5f1a2b3c4d5eHarbourTides01';
  const GAUGES = 'ses_6a7b8c9d0e1fGaugesRename02';
  try {
    assert.deepEqual((await indexSources(store, [src], segment)).failed, []);
    const first = await rows(store);
    assert.deepEqual(first.map(([s, a, b]) => [s, a, b]), [[HARBOUR, 2, 16], [HARBOUR, 17, 21], [GAUGES, 2, 5]]);

    // OpenCode writes a prompt and its reply into the harbour session (and raises its time_updated)
    const add = async (session: string, id: string, t: number, role: string, text: string): Promise<void> => {
      await opencode.run('INSERT INTO message VALUES (?, ?, ?, ?, ?)', [id, session, t, t, JSON.stringify({ role, time: { created: t } })]);
      await opencode.run('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)', [`prt_${id}`, id, session, t, t, JSON.stringify({ type: 'text', text })]);
      await opencode.run('UPDATE session SET time_updated = ? WHERE id = ?', [t, session]);
    };
    await add(HARBOUR, 'msg_a06', 1762247500000, 'user', 'Which time zone database does formatInZone use, and is it updated when the harbour office changes its DST rules?');
    await add(HARBOUR, 'msg_a07', 1762247501000, 'assistant', 'formatInZone uses the IANA database bundled with the runtime through Intl, so it follows the rules of the installed Node version.');
    const second = await indexSources(store, [src], segment);
    assert.deepEqual([second.exchangesWritten, second.exchangesKept], [1, 2], "the session's new exchange written, its two others kept");
    assert.deepEqual(reads, [undefined, [HARBOUR]]);
    const after = await rows(store);
    assert.deepEqual(after.map(([s, a, b]) => [s, a, b]), [[HARBOUR, 2, 16], [HARBOUR, 17, 21], [HARBOUR, 22, 25], [GAUGES, 2, 5]]);
    assert.deepEqual([after[0]![3], after[1]![3]], [first[0]![3], first[1]![3]]);
    assert.deepEqual(after[3], first[2], "the other session's row is not written again");
    assert.deepEqual(withoutRowNumbers(after), await wholeRead({ ...src, adapter: openCodeDbAdapter }));

    // a new session; then OpenCode deletes the gauges session (its messages and parts with it)
    await opencode.run('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)', ['ses_new', 'p', 'new', '/home/dev/harbour', 'Tide table export', '1', 1762248000000, 1762248000000]);
    await add('ses_new', 'msg_n1', 1762248000001, 'user', 'Export the tide table for next week as CSV with one row per high or low water.');
    await add('ses_new', 'msg_n2', 1762248000002, 'assistant', 'Added exportTideTable, which writes one CSV row per high or low water with its time, height and type.');
    assert.equal((await indexSources(store, [src], segment)).exchangesWritten, 1);
    assert.deepEqual(reads.slice(2), [['ses_new']]);
    await opencode.exec(`DELETE FROM part WHERE session_id = '${GAUGES}'; DELETE FROM message WHERE session_id = '${GAUGES}'; DELETE FROM session WHERE id = '${GAUGES}'`);
    assert.equal((await indexSources(store, [src], segment)).exchangesWritten, 0);
    assert.equal(reads.length, 3, 'a deletion reads nothing');
    const kept = await rows(store);
    assert.deepEqual(kept.find((r) => r[0] === GAUGES), first[2], 'the deleted session keeps its exchange');
    assert.equal(kept.length, 5);
  } finally {
    await opencode.close();
    await store.close();
  }
});

test('OpenCode database holding copies of a session another source kept: when that source loses it, the database is read whole again and keeps it', async () => {
  const data = path.join(tempDir('opencode-copy-'), 'opencode');
  await cp(path.join(FIXTURES, 'opencode', 'opencode'), data, { recursive: true });
  const session = path.join(data, 'storage', 'session', '4f6b0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c', 'ses_5f1a2b3c4d5eHarbourTides01.json');
  const file = path.join(data, 'opencode.db');
  const opencode = await buildOpenCodeDb(path.join(data, 'storage'), file);
  const store = await Store.open(path.join(tempDir('opencode-copy-store-'), 's.sqlite'));
  const db: DiscoveredSource = { path: file, adapter: openCodeDbAdapter, within: ['/home/dev/harbour'] };
  try {
    // the session file keeps the rows; the database (read conversation by conversation) holds copies
    await indexSource(store, session, openCodeAdapter, segment);
    const kept = (await store.listExchanges()).map((e) => e.exchangeId).sort();
    assert.equal(kept.length, 2);
    assert.equal((await indexSources(store, [db], segment)).duplicates, 2);
    // OpenCode moved the session into its database: the session file loses its messages
    await rm(path.join(data, 'storage', 'message', 'ses_5f1a2b3c4d5eHarbourTides01'), { recursive: true });
    await indexSource(store, session, openCodeAdapter, segment);
    const report = await indexSources(store, [db], segment);
    assert.deepEqual(report.failed, []);
    const after = await store.listExchanges();
    assert.deepEqual(after.map((e) => e.exchangeId).sort(), kept, 'nothing lost');
    assert.ok(after.every((e) => e.file === file), 'held by the database now');
  } finally {
    await opencode.close();
    await store.close();
  }
});
