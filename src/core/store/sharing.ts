import { randomBytes } from 'node:crypto';
import { link, stat, unlink } from 'node:fs/promises';
import { RecallError } from '../errors';
import { Db } from './db';
import { migrate } from './schema';

/**
 * One store, several processes: the extension (one per window), the CLI and the MCP server open the same
 * file. SQLite's locks make that safe; what is decided here is what the store does around them: waiting for
 * a lock is normal (busy is not damage), a new store appears whole or not at all, and a store is moved aside
 * only while no other process has it open.
 */

/** How long a statement waits for another process's lock before `store-locked`. */
export const BUSY_TIMEOUT_MS = 30_000;
/** How long a repair waits for other processes to close the store before refusing to move it. */
const ALONE_TIMEOUT_MS = 2_000;

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

export function lockedError(file: string, err: unknown, waitedMs = BUSY_TIMEOUT_MS): RecallError {
  return new RecallError(
    'store-locked',
    `The Agent Recall store ${file} is in use by another process and stayed locked for ${waitedMs / 1000} s ` +
      `(${(err as Error).message}). Try again when it is done.`,
    { cause: err },
  );
}

/**
 * Creates the store when there is none: built under a temporary name and linked into place, so no process
 * ever sees a half-created store (two processes creating one at once raced to the same CREATE TABLE), and
 * an existing empty file is never a new store but one truncated to nothing.
 */
export async function createIfMissing(file: string): Promise<void> {
  const st = await stat(file).catch(() => undefined);
  if (st) {
    if (st.size === 0) {
      throw new RecallError(
        'store-corrupt',
        `The Agent Recall store ${file} is empty (0 bytes): it was truncated, since a store is never created empty. ` +
          'Rebuild it from the transcripts.',
      );
    }
    return;
  }
  const tmp = `${file}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const db = await Db.open(tmp);
    try {
      await db.exec('PRAGMA journal_mode = WAL');
      await migrate(db);
    } finally {
      await db.close();
    }
    // link fails when the name exists: another process created the store first, and theirs is as good
    await link(tmp, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  } finally {
    for (const suffix of ['', '-wal', '-shm']) await unlink(tmp + suffix).catch(() => undefined);
  }
}

/**
 * Runs `fn` (which moves the store's file) only while no other process has the store open, holding an
 * exclusive lock meanwhile so none opens it either; `fn` gets the connection holding it, to read what it
 * still can. Leaving WAL mode needs every other connection closed, so it is the test; a file SQLite cannot
 * read at all is in nobody's use and `fn` runs without a connection.
 */
export async function whileAlone(file: string, fn: (db: Db | undefined) => Promise<void>): Promise<void> {
  let db: Db | undefined;
  try {
    db = await Db.open(file);
    await db.exec(`PRAGMA busy_timeout = ${ALONE_TIMEOUT_MS}`);
    const mode = await db.get<{ journal_mode: string }>('PRAGMA journal_mode = DELETE');
    if (mode?.journal_mode !== 'delete') throw Object.assign(new Error(`journal mode stays ${mode?.journal_mode}`), { code: 'SQLITE_BUSY' });
    await db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    await db?.close().catch(() => undefined);
    db = undefined;
    if (isBusy(err)) {
      throw new RecallError(
        'store-locked',
        `The Agent Recall store ${file} is open in another process (another VS Code window, an agent-recall command or ` +
          'the MCP server); it is not moved while in use. Close that and try again.',
        { cause: err },
      );
    }
  }
  try {
    await fn(db);
  } finally {
    if (db) {
      await db.exec('ROLLBACK').catch(() => undefined);
      await db.close().catch(() => undefined);
    }
  }
}

/**
 * What changes whenever the store does: `total_changes()` counts this connection's writes and `data_version`
 * other connections' (both O(1), asked in one statement). Equal stamps: nothing was written in between.
 */
export async function changeStamp(db: Db): Promise<string> {
  const now = await db.get<{ t: number; v: number }>('SELECT total_changes() AS t, data_version AS v FROM pragma_data_version');
  return `${now?.t ?? 0}:${now?.v ?? 0}`;
}
