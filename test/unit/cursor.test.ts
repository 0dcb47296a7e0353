import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { editorAgentRoots } from '../../src/core/sources/agentRoots';
import { cursorAdapter } from '../../src/core/sources/cursor';
import { readCursorRecords } from '../../src/core/sources/cursorDb';
import { discoverSources } from '../../src/core/sources/discover';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { appendBubble, COMPOSER_A, COMPOSER_B, SECRET, writeCursorUserData } from './cursorFixture';
import { tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20, workspaceRoot: '/home/dev/tidepool' };

test('Cursor: a WAL database another connection holds open is read read-only; bubbles in header order, exact exchanges, files and skips', async () => {
  const root = tempDir('cursor-');
  const { db, writer } = await writeCursorUserData(root);
  try {
    const lines = await readCursorRecords(db);
    assert.ok(!lines.some((l) => l.text.includes(SECRET)), 'neither ItemTable nor the encryption keys are read');
    assert.ok(!lines.some((l) => l.text.includes('bulky') || l.text.includes('yyyy')), 'only the fields a conversation needs');
    const out = cursorAdapter.parse({ file: db, lines });
    assert.deepEqual(out.skipped.map((s) => s.reason), ['malformed-json', 'not-an-object'], 'the damaged bubble, the missing one');
    assert.deepEqual(out.conversations.map((c) => [c.meta.sessionId, c.meta.project, c.meta.title, c.meta.model]), [
      [COMPOSER_B, '/home/dev/tidepool', undefined, undefined], // from the workspace storage's composer list; 'default' is no model
      [COMPOSER_A, '/home/dev/tidepool', 'Tide chart axis', 'claude-4.5-sonnet'],
      ['c3c3c3c3-0000-4000-8000-00000000000c', '/home/dev/other', 'Other project', undefined],
    ]);
    const a = out.conversations[1]!;
    assert.deepEqual(a.messages.map((m) => `${m.kind}@${m.line} ${m.uuid} ${m.toolCalls.map((c) => c.name).join()}`), [
      'prompt@1 a-u1 ', 'reply@3 a-read read_file', 'reply@4 a-edit edit_file', 'reply@5 a-r1 ', 'prompt@7 a-u2 ', 'reply@9 a-write write', 'reply@10 a-r2 ',
    ]);
    assert.deepEqual(a.messages[1]!.toolCalls[0]!.input, { target_file: 'src/chart.ts' });
    assert.equal(a.messages[1]!.toolResults[0]!.text, JSON.stringify({ contents: 'export const yAxis = { min: 0 };' }));
    assert.equal(a.meta.startedAt, '2025-11-04T09:00:00.000Z');
    const { exchanges } = segmentConversation(a, segment);
    assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt]), [
      [1, 5, '2025-11-04T09:00:01.000Z'],
      [7, 10, '2025-11-04T09:01:00.000Z'],
    ]);
    assert.deepEqual(exchanges.map((e) => e.filesTouched), [
      [{ path: 'src/chart.ts', how: 'edit' }],
      [{ path: 'src/legend.ts', how: 'write' }],
    ]);
  } finally {
    await writer.close();
  }
});

test('Cursor: discovered in the user-data folder, only this workspace kept; a bubble Cursor writes meanwhile (into the WAL) is indexed on the next run', async () => {
  const root = tempDir('cursor-');
  const { writer } = await writeCursorUserData(root);
  const store = await Store.open(path.join(tempDir('cursor-store-'), 's.sqlite'));
  try {
    const options = { claudeRoots: [], codexRoots: [], agentRoots: editorAgentRoots(root), extraRoots: [], includeSubagents: true };
    const sources = await discoverSources({ ...options, workspaceRoots: ['/home/dev/tidepool'] });
    assert.deepEqual(sources.map((s) => [path.relative(root, s.path), s.adapter.agent, s.within]), [
      [path.join('User', 'globalStorage', 'state.vscdb'), 'cursor', ['/home/dev/tidepool']],
    ]);
    // Cursor keeps writing while we read: its writes never wait for us
    let writes = 0;
    const writing = (async () => {
      for (let i = 0; i < 20; i++) {
        await writer.run('INSERT INTO ItemTable(key, value) VALUES (?, ?)', [`ui.state.${i}`, 'x'.repeat(1000)]);
        writes++;
      }
    })();
    const report = await indexSources(store, sources, segment);
    await writing;
    assert.equal(writes, 20);
    assert.deepEqual([report.failed, report.exchangesWritten], [[], 3], 'A: 2, B: 1; C is another workspace');
    // store order is (file, line, record): a bubble's position in its conversation, then the order read
    const list = await store.listExchanges({});
    assert.deepEqual(list.map((e) => [e.agent, e.sessionId, e.lineStart, e.lineEnd]), [
      ['cursor', COMPOSER_B, 1, 2], ['cursor', COMPOSER_A, 1, 5], ['cursor', COMPOSER_A, 7, 10],
    ]);
    // the writes that landed after our snapshot changed the log: read once more, then nothing changed
    await indexSources(store, sources, segment);
    assert.equal((await indexSources(store, sources, segment)).unchanged, 1, 'nothing written since: not re-read');

    await appendBubble(writer, 'a-u3', { type: 1, bubbleId: 'a-u3', text: 'Also label the lowest tide with its time on the chart, in the local time zone.' });
    await appendBubble(writer, 'a-r3', { type: 2, bubbleId: 'a-r3', text: 'The lowest point now carries a label with its local time, formatted with the harbour time zone.' });
    const again = await indexSources(store, sources, segment);
    assert.deepEqual([again.parsed, again.failed], [1, []]);
    const after = await store.listExchanges({});
    assert.deepEqual(after.map((e) => [e.lineStart, e.lineEnd]), [[1, 2], [1, 5], [7, 10], [11, 12]]);
    assert.deepEqual(after.slice(0, 3).map((e) => e.exchangeId), list.map((e) => e.exchangeId), 'the earlier exchanges keep their ids');
  } finally {
    await store.close();
    await writer.close();
  }
});

test("Cursor: a chat database in rollback-journal mode is never opened and says so in the index report; VS Code's own state.vscdb (no cursorDiskKV) gives nothing", async () => {
  const root = tempDir('cursor-');
  const { db, writer } = await writeCursorUserData(root, { wal: false });
  const store = await Store.open(path.join(tempDir('cursor-store-'), 's.sqlite'));
  try {
    assert.equal((await readFile(db)).readUInt8(18), 1, 'a rollback-journal database');
    const report = await indexSources(store, [{ path: db, adapter: cursorAdapter }], segment);
    assert.equal(report.failed.length, 1);
    assert.match(report.failed[0]!.error, /^Cursor's database .*state\.vscdb is not in WAL mode \(it uses a rollback journal\), so it is not read/);
    assert.match((await store.getSource(db))!.lastError!, /not in WAL mode/, 'kept with the source, for the Index view');
    await assert.rejects(readCursorRecords(db), /not in WAL mode/);
  } finally {
    await writer.close();
    await store.close();
  }
  for (const wal of [true, false]) {
    const { db: vscodeDb, writer: w2 } = await writeCursorUserData(tempDir('cursor-'), { wal });
    try {
      await w2.exec('DROP TABLE cursorDiskKV; VACUUM');
      assert.deepEqual(await readCursorRecords(vscodeDb), [], wal ? 'WAL' : 'rollback journal');
    } finally {
      await w2.close();
    }
  }
});

/**
 * Issue 44, item 12: a 0-byte state.vscdb was passed over without a word. In Cursor's user-data folder it is
 * said (it is where Cursor's chats live); VS Code's own, which holds no chats, is still passed over.
 */
test("Cursor: an empty or zeroed state.vscdb in Cursor's user-data folder is reported as such; VS Code's own is passed over", async () => {
  for (const [kind, bytes, message] of [
    ['empty', Buffer.alloc(0), /^Cursor's database .*state\.vscdb is empty \(0 bytes\)/],
    ['zeroed', Buffer.alloc(4096), /^Cursor's database .*state\.vscdb is damaged: its header is all zeros/],
  ] as const) {
    for (const editor of ['Cursor', 'Code']) {
      const global = path.join(tempDir('editors-'), editor, 'User', 'globalStorage');
      await mkdir(global, { recursive: true });
      const db = path.join(global, 'state.vscdb');
      await writeFile(db, bytes);
      const store = await Store.open(path.join(tempDir('cursor-store-'), 's.sqlite'));
      try {
        const report = await indexSources(store, [{ path: db, adapter: cursorAdapter }], segment);
        if (editor === 'Cursor') {
          assert.equal(report.failed.length, 1, `${kind} in ${editor}`);
          assert.match(report.failed[0]!.error, message);
        } else {
          assert.deepEqual(report.failed, [], `${kind} in VS Code's folder holds no chats`);
        }
      } finally {
        await store.close();
      }
    }
  }
});
