import { stat, unlink } from 'node:fs/promises';
import { Db } from './db';

/**
 * A damaged store that SQLite refuses to open at all, opened read-only for a salvage. A file cut short (a copy
 * or a disk that ran out, `truncate`) still holds every page before the cut, but its header records how many
 * pages it had, and SQLite refuses a file shorter than that ("database disk image is malformed" on the first
 * statement). With `writable_schema` on, SQLite takes the file's length as the page count instead: the pages
 * still there read as they are, and the b-tree links to pages past the end fail like any damaged page, which
 * the salvage steps around. This reads the file in place (no copy of a store of gigabytes, and a write-ahead
 * log beside it is read too), and the connection is read-only: one that could write would record the shorter
 * length in the header of the damaged file, which is kept unchanged for inspection.
 */
export interface SalvageReader {
  readonly db: Db;
  /** Closes the connection and removes the -wal/-shm files SQLite made beside the damaged file to read it. */
  close(): Promise<void>;
}

const SIDE_FILES = ['-wal', '-shm'];

/** Opens `file` read-only for a salvage; undefined when even that fails (not a SQLite file, say). */
export async function openForSalvage(file: string): Promise<SalvageReader | undefined> {
  const made = await Promise.all(SIDE_FILES.map((suffix) => stat(file + suffix).then(() => false, () => true)));
  let db: Db | undefined;
  try {
    db = await Db.open(file, { readonly: true });
    await db.exec('PRAGMA writable_schema = ON');
    await db.get('SELECT count(*) FROM sqlite_schema');
  } catch {
    await db?.close().catch(() => undefined);
    await removeMade(file, made);
    return undefined;
  }
  const opened = db;
  return {
    db: opened,
    close: async () => {
      await opened.close().catch(() => undefined);
      await removeMade(file, made);
    },
  };
}

async function removeMade(file: string, made: boolean[]): Promise<void> {
  for (const [i, suffix] of SIDE_FILES.entries()) if (made[i]) await unlink(file + suffix).catch(() => undefined);
}
