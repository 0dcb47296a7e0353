import { decompress } from 'fzstd';
import type { Db } from '../store/db';
import type { RecordGroupRead } from './adapter';
import { cutLongStrings } from './boundedRecords';
import { readSnapshot } from './walDatabase';

/**
 * Zed's agent threads, `threads/threads.db` in Zed's data folder (agentRoots.ts): table `threads(id, summary,
 * updated_at, data_type, data, [parent_id, folder_paths, folder_paths_order, created_at])`, one row a thread.
 * The later columns arrive by `ALTER TABLE` when a newer Zed opens the store, so they are probed. `data` is one
 * thread document, zstd-compressed (`data_type` `zstd`, a standard frame) or plain JSON (`json`, older rows).
 *
 * Zed writes the database (WAL) while we read: opened read-only, one short snapshot, closed at once. Each row is
 * decoded on its own: a row that does not decompress or parse is a record saying so (counted by the parse),
 * never the loss of the other threads.
 */

export const ZED_DB_NAME = 'threads.db';

/** What changes whenever a thread does, without reading its document: Zed rewrites the row with a new `updated_at`. */
const FINGERPRINT_SQL = 'SELECT id, updated_at AS t, length(data) AS n, data_type AS k FROM threads';
const OPTIONAL_COLUMNS = ['parent_id', 'folder_paths', 'created_at'] as const;

interface ThreadRow {
  readonly id: string;
  readonly summary: string | null;
  readonly updated_at: string | null;
  readonly data_type: string | null;
  readonly data: Buffer | string | null;
  readonly parent_id: string | null;
  readonly folder_paths: string | null;
  readonly created_at: string | null;
}

/** Each thread's fingerprint by id. */
export async function zedFingerprints(file: string): Promise<Map<string, string>> {
  const rows = await readSnapshot(file, 'Zed', (db) => db.all<{ id: string; t: string | null; n: number | null; k: string | null }>(FINGERPRINT_SQL));
  return new Map(rows.map((r) => [r.id, `${r.t ?? ''}:${r.n ?? ''}:${r.k ?? ''}`]));
}

/**
 * Every thread (or only the `ids`), oldest first, each as its records: a `{thread}` record (the row's columns and
 * the document's version, title and model), then a `{message}` record per element of its `messages`; a row whose
 * document cannot be read gives its `{thread}` record with `damaged` saying why.
 */
export async function readZedGroups(file: string, ids?: readonly string[]): Promise<RecordGroupRead[]> {
  const rows = await readSnapshot(file, 'Zed', (db) => readRows(db, ids));
  return rows.map((row) => ({ id: row.id, records: threadRecords(row) }));
}

/** One thread's records (for "open raw"), or none when it is gone. */
export async function readZedThread(file: string, id: string): Promise<unknown[]> {
  return [...((await readZedGroups(file, [id]))[0]?.records ?? [])];
}

async function readRows(db: Db, ids: readonly string[] | undefined): Promise<ThreadRow[]> {
  const present = new Set((await db.all<{ name: string }>("SELECT name FROM pragma_table_info('threads')")).map((c) => c.name));
  const optional = OPTIONAL_COLUMNS.map((c) => (present.has(c) ? c : `NULL AS ${c}`)).join(', ');
  const order = present.has('created_at') ? 'coalesce(created_at, updated_at)' : 'updated_at';
  return db.all<ThreadRow>(
    `SELECT id, summary, updated_at, data_type, data, ${optional} FROM threads
     WHERE ?1 IS NULL OR id IN (SELECT value FROM json_each(?1)) ORDER BY ${order}, id`,
    [ids ? JSON.stringify(ids) : null],
  );
}

function threadRecords(row: ThreadRow): unknown[] {
  const header = {
    id: row.id,
    summary: row.summary,
    updated_at: row.updated_at,
    ...(row.created_at ? { created_at: row.created_at } : {}),
    ...(row.parent_id ? { parent_id: row.parent_id } : {}),
    ...(row.folder_paths ? { folder_paths: row.folder_paths } : {}),
  };
  const doc = threadDocument(row);
  if (typeof doc === 'string') return [{ thread: header, damaged: doc }];
  const model = doc['model'];
  const thread = {
    ...header,
    version: doc['version'],
    title: doc['title'] ?? doc['summary'],
    ...(model && typeof model === 'object' ? { model } : {}),
  };
  const messages = Array.isArray(doc['messages']) ? doc['messages'] : [];
  return [{ thread }, ...messages.map((m) => ({ message: cutLongStrings(m) }))];
}

/** The row's thread document, or why it cannot be read. */
function threadDocument(row: ThreadRow): Record<string, unknown> | string {
  const kind = row.data_type ?? '';
  if (row.data === null) return 'no data';
  let text: string;
  try {
    const bytes = typeof row.data === 'string' ? Buffer.from(row.data) : row.data;
    if (kind === 'zstd') text = new TextDecoder().decode(decompress(bytes));
    else if (kind === 'json' || kind === '') text = bytes.toString('utf8');
    else return `unknown data_type ${kind}`;
  } catch (err) {
    return `its zstd data does not decompress (${(err as Error).message})`;
  }
  try {
    const doc: unknown = JSON.parse(text);
    if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) return doc as Record<string, unknown>;
    return 'its document is not a JSON object';
  } catch (err) {
    return `its document is not JSON (${(err as Error).message})`;
  }
}
