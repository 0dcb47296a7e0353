import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecallError } from '../errors';
import { Db } from '../store/db';
import { openTranscript } from './lines';

/** Waits this long for a moment the agent holds its database exclusively (a checkpoint, a recovery). */
const BUSY_MS = 2000;

/**
 * A database's state, to tell whether it was written: its size and last write, its write-ahead log's included.
 * An empty log is left out: a reader makes one where there was none (ours too, read-only: measured), and that is
 * no write; a log emptied by a checkpoint moved its writes into the database, whose own time then changed.
 */
export async function databaseState(file: string): Promise<{ size: number; mtimeMs: number }> {
  const [main, wal] = await Promise.all([stat(file), stat(`${file}-wal`).catch(() => undefined)]);
  const log = wal && wal.size > 0 ? wal : undefined;
  return { size: main.size + (log?.size ?? 0), mtimeMs: Math.max(main.mtimeMs, log?.mtimeMs ?? 0) };
}

/** What a database file's header says it is, read without SQLite. */
export type DatabaseHeader = 'wal' | 'rollback-journal' | 'empty' | 'zeroed' | 'not-sqlite' | 'damaged';

const MAGIC = 'SQLite format 3\0';

/**
 * What a file's first 100 bytes (SQLite's header) say: a database in WAL mode (read and write versions 2), in
 * rollback-journal mode (1), an empty file, a header of zeros, another kind of file, or a damaged header (cut
 * short, overwritten in part, versions SQLite never writes). Opened like a transcript, so a FIFO or a device
 * there is refused, never waited on.
 */
export async function databaseHeader(file: string): Promise<DatabaseHeader> {
  const { handle } = await openTranscript(file);
  try {
    const header = Buffer.alloc(100);
    const { bytesRead } = await handle.read(header, 0, 100, 0);
    const read = header.subarray(0, bytesRead);
    if (bytesRead === 0) return 'empty';
    if (read.every((b) => b === 0)) return 'zeroed';
    // bytes 21-23 are 64, 32, 32 in every SQLite header: with them, a file whose first bytes were overwritten is a damaged database
    if (read.toString('latin1', 0, 16) !== MAGIC) return header[21] === 64 && header[22] === 32 && header[23] === 32 ? 'damaged' : 'not-sqlite';
    if (bytesRead < 100) return 'damaged';
    if (header[18] === 2 && header[19] === 2) return 'wal';
    return header[18] === 1 && header[19] === 1 ? 'rollback-journal' : 'damaged';
  } finally {
    await handle.close();
  }
}

/**
 * Whether a file is a SQLite database in WAL mode. Another program's database is read only in WAL mode: in
 * rollback-journal mode even a reader's lock holds its writer off.
 */
export async function inWalMode(file: string): Promise<boolean> {
  return (await databaseHeader(file)) === 'wal';
}

/** Why a database whose header is not a WAL database's is not read, in the user's words. */
function notReadMessage(agent: string, file: string, header: Exclude<DatabaseHeader, 'wal'>): string {
  const again = `it is read again on the next run.`;
  switch (header) {
    case 'rollback-journal':
      return (
        `${agent}'s database ${file} is not in WAL mode (it uses a rollback journal), so it is not read: even a reader would hold ${agent}'s writes off. ` +
        `${agent} writes its database in WAL mode; it is read once it is in that mode again.`
      );
    case 'empty':
      return `${agent}'s database ${file} is empty (0 bytes): it holds nothing to read yet (or it was emptied); ${again}`;
    case 'zeroed':
      return `${agent}'s database ${file} is damaged: its header is all zeros, so it is not a readable SQLite database; ${again}`;
    case 'not-sqlite':
      return `${agent}'s database ${file} is not a SQLite database (it does not start with SQLite's header), so it is not read; ${again}`;
    case 'damaged':
      return `${agent}'s database ${file} is damaged: its SQLite header is cut short or partly overwritten, so it is not read; ${again}`;
  }
}

/**
 * Runs `read` on an agent's database (`agent`: its name, for messages), opened read-only, as one snapshot; a
 * database not in WAL mode is not opened at all, and the error says what the file is instead (rollback journal,
 * empty, damaged, not SQLite). With `holdsChats` (checked without SQLite), a file that is not a WAL database and
 * holds none of the agent's chats gives nothing instead of an error.
 */
export function readSnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>): Promise<T>;
export function readSnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>, holdsChats: (file: string) => Promise<boolean>): Promise<T | undefined>;
export async function readSnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>, holdsChats?: (file: string) => Promise<boolean>): Promise<T | undefined> {
  const header = await databaseHeader(file);
  if (header !== 'wal') {
    if (holdsChats && !(await holdsChats(file))) return undefined;
    throw new RecallError('source-unreadable', notReadMessage(agent, file, header));
  }
  const db = await Db.open(file, { readonly: true }).catch((err: Error) => {
    throw new RecallError('source-unreadable', `Cannot open ${agent}'s database ${file} read-only: ${err.cause instanceof Error ? err.cause.message : err.message}`);
  });
  try {
    await db.exec(`PRAGMA busy_timeout = ${BUSY_MS}; PRAGMA query_only = 1`);
    return await db.snapshot(() => read(db));
  } catch (err) {
    throw new RecallError('source-unreadable', `Cannot read ${agent}'s database ${file}: ${(err as Error).message}; it is read again on the next run.`);
  } finally {
    await db.close().catch(() => undefined);
  }
}

/** How many times a rollback-journal database is copied before a run gives up on it (it is being written). */
const COPY_TRIES = 3;
const COPY_RETRY_MS = 100;

/**
 * Runs `read` on an agent's database as one snapshot, whatever its journal mode: a WAL database as readSnapshot
 * does; one in rollback-journal mode (which even a reader's lock would hold its writer off: Kiro CLI's) from a copy
 * of its file taken without any lock, when no write was under way (no `-journal` beside it before or after the copy,
 * and its size and time unchanged by the copy), the copy read and removed.
 */
export async function readAnySnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>): Promise<T> {
  if (await inWalMode(file)) return readSnapshot(file, agent, read);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-recall-db-'));
  try {
    for (let i = 0; i < COPY_TRIES; i++) {
      const copy = await quietCopy(file, path.join(dir, path.basename(file)));
      if (!copy) {
        await new Promise((resolve) => setTimeout(resolve, COPY_RETRY_MS));
        continue;
      }
      const db = await Db.open(copy, { readonly: true }).catch((err: Error) => {
        throw new RecallError('source-unreadable', `Cannot open a copy of ${agent}'s database ${file}: ${err.message}`);
      });
      try {
        return await read(db);
      } catch (err) {
        throw new RecallError('source-unreadable', `Cannot read ${agent}'s database ${file}: ${(err as Error).message}; it is read again on the next run.`);
      } finally {
        await db.close().catch(() => undefined);
      }
    }
    throw new RecallError('source-unreadable', `${agent}'s database ${file} was being written each time it was copied; it is read again on the next run.`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Copies a rollback-journal database to `to` when no write is under way across the copy; undefined when one was. */
async function quietCopy(file: string, to: string): Promise<string | undefined> {
  const journal = `${file}-journal`;
  const exists = (f: string): Promise<boolean> => stat(f).then(() => true, () => false);
  if (await exists(journal)) return undefined;
  const before = await stat(file);
  if (!before.isFile()) throw new RecallError('source-unreadable', `${file} is not a regular file.`);
  await copyFile(file, to);
  const after = await stat(file);
  if ((await exists(journal)) || after.size !== before.size || after.mtimeMs !== before.mtimeMs) return undefined;
  return to;
}
