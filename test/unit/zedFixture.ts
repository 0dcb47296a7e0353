import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Db } from '../../src/core/store/db';
import { FIXTURES } from './helpers';

/** Zed's thread documents: a 0.3.0 one and its zstd frame (compressed by the zstd tool, streamed: no content size), a 0.2.0 one. */
export const ZED_CURRENT = readFileSync(path.join(FIXTURES, 'zed', 'thread-0.3.0.json'), 'utf8');
export const ZED_CURRENT_ZSTD = readFileSync(path.join(FIXTURES, 'zed', 'thread-0.3.0.json.zst'));
export const ZED_LEGACY = readFileSync(path.join(FIXTURES, 'zed', 'thread-0.2.0.json'), 'utf8');

export const THREAD_TIDES = '6d1e3f5a-0b2c-4d8e-9f10-a1b2c3d4e5f6';
export const THREAD_GAUGES = '7e2f4a6b-1c3d-4e9f-8a21-b2c3d4e5f6a7';
export const THREAD_TRUNCATED = '8f3a5b7c-2d4e-4fa0-9b32-c3d4e5f6a7b8';
export const THREAD_BROTLI = '9a4b6c8d-3e5f-4ab1-8c43-d4e5f6a7b8c9';
export const THREAD_SUBAGENT = 'a05c7d9e-4f6a-4bc2-9d54-e5f6a7b8c9d0';

/**
 * Builds Zed's `threads.db` as a current Zed leaves it (the five columns of its CREATE TABLE, then the ones its
 * ALTER TABLEs add), in WAL mode as Zed opens it. Rows: the 0.3.0 thread compressed, the 0.2.0 one as plain JSON,
 * a truncated zstd frame, an unknown `data_type`, and a subagent thread. `legacyColumns`: the store of a Zed that
 * predates the added columns. Returns the open connection (the caller plays Zed and closes it).
 */
export async function buildZedDb(file: string, legacyColumns = false): Promise<Db> {
  const db = await Db.open(file);
  await db.exec('PRAGMA journal_mode = WAL');
  await db.exec('CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL)');
  if (legacyColumns) {
    await db.run('INSERT INTO threads VALUES (?, ?, ?, ?, ?)', [THREAD_GAUGES, 'Rename the gauge ids', '2025-10-01T08:00:00+00:00', 'json', Buffer.from(ZED_LEGACY)]);
    return db;
  }
  await db.exec('ALTER TABLE threads ADD COLUMN parent_id TEXT; ALTER TABLE threads ADD COLUMN folder_paths TEXT; ALTER TABLE threads ADD COLUMN folder_paths_order TEXT; ALTER TABLE threads ADD COLUMN created_at TEXT');
  const insert = (id: string, summary: string, updated: string, kind: string, data: Buffer, folders: string, created: string, parent: string | null = null): Promise<unknown> =>
    db.run('INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths, folder_paths_order, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      id, summary, updated, kind, data, parent, folders, folders.includes('\n') ? '1,0' : '0', created,
    ]);
  await insert(THREAD_TIDES, 'Tide times in local time', '2025-11-06T10:20:00+00:00', 'zstd', ZED_CURRENT_ZSTD, '/home/dev/harbour\n/home/dev/shared-lib', '2025-11-06T10:00:00+00:00');
  await insert(THREAD_GAUGES, 'Rename the gauge ids', '2025-10-01T08:00:00+00:00', 'json', Buffer.from(ZED_LEGACY), '/home/dev/gauges', '2025-10-01T07:55:00+00:00');
  await insert(THREAD_TRUNCATED, 'Cut short', '2025-11-07T09:00:00+00:00', 'zstd', ZED_CURRENT_ZSTD.subarray(0, 300), '/home/dev/harbour', '2025-11-07T09:00:00+00:00');
  await insert(THREAD_BROTLI, 'Another codec', '2025-11-07T09:30:00+00:00', 'brotli', Buffer.from('not zstd'), '/home/dev/harbour', '2025-11-07T09:30:00+00:00');
  const sub = JSON.stringify({
    version: '0.3.0',
    title: 'Find the callers of formatTide',
    messages: [
      { User: { id: 'sub-u1', content: [{ Text: 'List every caller of formatTide in the harbour project and say which ones pass a Date built from UTC strings.' }] } },
      { Agent: { content: [{ Text: 'Three callers: the tide table, the chart tooltip and the CSV export; only the CSV export builds its Date from a UTC string.' }], tool_results: {} } },
    ],
  });
  await insert(THREAD_SUBAGENT, 'Find the callers of formatTide', '2025-11-06T10:05:00+00:00', 'json', Buffer.from(sub), '/home/dev/harbour', '2025-11-06T10:04:00+00:00', THREAD_TIDES);
  return db;
}
