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

/**
 * Whether a file is a SQLite database in WAL mode: its header's read and write versions are 2 (read without
 * SQLite; opened like a transcript, so a FIFO or a device there is refused, never waited on). Another
 * program's database is read only in WAL mode: in rollback-journal mode even a reader's lock holds its writer off.
 */
export async function inWalMode(file: string): Promise<boolean> {
  const { handle } = await openTranscript(file);
  try {
    const header = Buffer.alloc(20);
    const { bytesRead } = await handle.read(header, 0, 20, 0);
    return bytesRead === 20 && header.toString('latin1', 0, 16) === 'SQLite format 3\0' && header[18] === 2 && header[19] === 2;
  } finally {
    await handle.close();
  }
}

/**
 * Runs `read` on an agent's database (`agent`: its name, for messages), opened read-only, as one snapshot; a
 * database not in WAL mode is not opened at all. With `holdsChats` (checked without SQLite), a database that is
 * not in WAL mode and holds none of the agent's chats gives nothing instead of an error.
 */
export function readSnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>): Promise<T>;
export function readSnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>, holdsChats: (file: string) => Promise<boolean>): Promise<T | undefined>;
export async function readSnapshot<T>(file: string, agent: string, read: (db: Db) => Promise<T>, holdsChats?: (file: string) => Promise<boolean>): Promise<T | undefined> {
  if (!(await inWalMode(file))) {
    if (holdsChats && !(await holdsChats(file))) return undefined;
    throw new RecallError(
      'source-unreadable',
      `${agent}'s database ${file} is not in WAL mode (it uses a rollback journal), so it is not read: even a reader would hold ${agent}'s writes off. ` +
        `${agent} writes its database in WAL mode; it is read once it is in that mode again.`,
    );
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
