import type { Db } from './db';

/**
 * Schema 32 (issue 41, a process's first whole run): what discoveries found of each structured file (the
 * `DiscoveryMemo` of sources/discover.ts), kept in the store so that a new process (every start of the editor, every
 * `index` of the command line) does not read and sniff the head of every unchanged transcript again: at 1 GB (12,096
 * files) that was ~3–4 s of CPU before a whole run's first look. A file's entry is taken only at the size and time it
 * had when its head was read, and only by a discovery of the same options and the same rules (the key: the options,
 * the adapters in their order, the code's own file); any other key empties the table at the next write.
 *
 * `discovery_memo_for` holds the key of the rows (one row); `discovery_memo` a row per file: `adapter` is the
 * adapter's place in ADAPTERS (NULL: not a source of this discovery), `within` and `beside` JSON. The folders walked
 * are kept likewise (`discovery_folders`: each one's entries, by its inode and time when it was listed), so the first
 * walk of a process lists only the folders changed since (~1,500 listings at 1 GB, one after the other).
 */
export const DISCOVERY_MEMO_SQL = `
  CREATE TABLE discovery_memo_for (key TEXT NOT NULL);
  CREATE TABLE discovery_memo (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    adapter INTEGER,
    project TEXT,
    within TEXT,
    beside TEXT
  ) WITHOUT ROWID;
  CREATE TABLE discovery_folders (dir TEXT PRIMARY KEY, ino INTEGER NOT NULL, mtime_ms REAL NOT NULL, entries TEXT NOT NULL) WITHOUT ROWID;
`;

/** One file's entry as the store keeps it. */
export interface StoredDiscovery {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** The adapter's place in ADAPTERS; undefined: the file is no source of this discovery. */
  readonly adapter?: number;
  readonly project?: string;
  readonly within?: readonly string[];
  /** The files beside it its project was located by, with their size and time then (none: absent). */
  readonly beside: ReadonlyArray<{ readonly file: string; readonly size?: number; readonly mtimeMs?: number }>;
}

/** A folder's entries as the store keeps them: each name with its kind's mark before it (`d` folder, `f` file, `-` other). */
export interface StoredFolder {
  readonly dir: string;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly entries: readonly string[];
}

/** What a store kept of a memo. */
export interface KeptDiscoveries {
  readonly files: readonly StoredDiscovery[];
  readonly folders: readonly StoredFolder[];
}

/** What changed in a memo since it was last kept: `replace`, every row goes first (another key's, or none). */
export interface DiscoveryChanges {
  readonly key: string;
  readonly replace: boolean;
  readonly entries: readonly StoredDiscovery[];
  readonly gone: readonly string[];
  readonly folders: readonly StoredFolder[];
  readonly foldersGone: readonly string[];
}

interface Row {
  path: string;
  size: number;
  mtime_ms: number;
  adapter: number | null;
  project: string | null;
  within: string | null;
  beside: string | null;
}

/** The entries kept for `key`; none when the store's are another key's (or there are none). */
export async function readDiscoveryMemo(db: Db, key: string): Promise<KeptDiscoveries> {
  const kept = await db.get<{ key: string }>('SELECT key FROM discovery_memo_for');
  if (kept?.key !== key) return { files: [], folders: [] };
  const files: StoredDiscovery[] = [];
  for (let after = ''; ; ) {
    const rows = await db.all<Row>('SELECT path, size, mtime_ms, adapter, project, within, beside FROM discovery_memo WHERE path > ? ORDER BY path LIMIT ?', [after, MEMO_PAGE]);
    for (const r of rows) files.push(readFile(r));
    if (rows.length < MEMO_PAGE) break;
    after = rows[rows.length - 1]!.path;
  }
  const folders: StoredFolder[] = [];
  for (let after = ''; ; ) {
    const rows = await db.all<{ dir: string; ino: number; mtime_ms: number; entries: string }>(
      'SELECT dir, ino, mtime_ms, entries FROM discovery_folders WHERE dir > ? ORDER BY dir LIMIT ?',
      [after, MEMO_PAGE],
    );
    for (const f of rows) folders.push({ dir: f.dir, ino: f.ino, mtimeMs: f.mtime_ms, entries: JSON.parse(f.entries) as string[] });
    if (rows.length < MEMO_PAGE) break;
    after = rows[rows.length - 1]!.dir;
  }
  return { files, folders };
}

/**
 * Rows of the memo a statement reads (each table in its key's order, as a whole scan reads it): the driver makes a
 * statement's rows in one JavaScript task, and the 7,848 files and 1,497 folders of a 1 GB history, with their JSON,
 * held the extension host's thread 59-72 ms at a process's first whole run as one statement each.
 */
const MEMO_PAGE = 1_000;

function readFile(r: Row): StoredDiscovery {
  return {
    path: r.path,
    size: r.size,
    mtimeMs: r.mtime_ms,
    ...(r.adapter !== null ? { adapter: r.adapter } : {}),
    ...(r.project !== null ? { project: r.project } : {}),
    ...(r.within !== null ? { within: JSON.parse(r.within) as string[] } : {}),
    beside: r.beside !== null ? (JSON.parse(r.beside) as StoredDiscovery['beside']) : [],
  };
}

/** Writes a memo's changes, in one transaction (a key other than the store's replaces every row). */
export async function writeDiscoveryMemo(db: Db, changes: DiscoveryChanges): Promise<void> {
  await db.transaction(async () => {
    const kept = await db.get<{ key: string }>('SELECT key FROM discovery_memo_for');
    if (changes.replace || kept?.key !== changes.key) {
      await db.run('DELETE FROM discovery_memo');
      await db.run('DELETE FROM discovery_folders');
      await db.run('DELETE FROM discovery_memo_for');
      await db.run('INSERT INTO discovery_memo_for(key) VALUES (?)', [changes.key]);
    }
    if (changes.gone.length > 0) await db.run('DELETE FROM discovery_memo WHERE path IN (SELECT value FROM json_each(?))', [JSON.stringify(changes.gone)]);
    if (changes.foldersGone.length > 0) await db.run('DELETE FROM discovery_folders WHERE dir IN (SELECT value FROM json_each(?))', [JSON.stringify(changes.foldersGone)]);
    const folders = changes.folders.map((f) => [f.dir, f.ino, f.mtimeMs, JSON.stringify(f.entries)]);
    await db.insertRows('INSERT OR REPLACE INTO discovery_folders(dir, ino, mtime_ms, entries)', folders);
    const rows = changes.entries.map((e) => [e.path, e.size, e.mtimeMs, e.adapter ?? null, e.project ?? null, e.within ? JSON.stringify(e.within) : null, e.beside.length > 0 ? JSON.stringify(e.beside) : null]);
    // bound as parameters, not through JSON: a time's fraction comes back exactly as it was
    await db.insertRows('INSERT OR REPLACE INTO discovery_memo(path, size, mtime_ms, adapter, project, within, beside)', rows);
  });
}
