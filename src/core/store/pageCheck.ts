import { RecallError } from '../errors';
import { Db } from './db';
import { BUSY_TIMEOUT_MS, isBusy } from './sharing';

/** How a store is checked when opened (Store.open). */
export type OpenCheck =
  /** Every page read before the store is used (`PRAGMA quick_check`; 2.0-2.3 s at 250,000 exchanges). */
  | 'full'
  /**
   * The schema and the file's length before use, every page after, in the background: reads answer at once,
   * writes wait for the check, and a store found damaged then refuses every statement (`Store.verified`).
   */
  | 'background';

/** The error a damaged store raises, opened or checked: callers offer `Store.rebuild`. */
export function damagedError(file: string, err: unknown): RecallError {
  return new RecallError('store-corrupt', `The Agent Recall store ${file} is damaged (${(err as Error).message}). Rebuild it from the transcripts.`, {
    cause: err,
  });
}

/**
 * Every page of the store read and its structure checked (`PRAGMA quick_check`); throws SQLite's first finding.
 * On `db`, the map off: read through the map, the pages counted in the process's memory until it was dropped
 * (peak RSS 1,085 MB at 250K exchanges); read() into SQLite's small page cache, they stay in the system's file
 * cache only.
 */
export async function checkPages(db: Db): Promise<void> {
  const quick = await db.get<{ quick_check: string }>('PRAGMA quick_check(1)');
  if (quick?.quick_check !== 'ok') throw new Error(quick?.quick_check ?? 'quick_check failed');
}

/**
 * What is checked without reading the store: its schema parses (page 1 and the schema's pages), and the file is as
 * long as its header says (SQLite refuses a store cut short, by a copy or a full disk, at this first read). Damage
 * anywhere else is left to `checkPages`.
 */
export async function checkShape(db: Db): Promise<void> {
  await db.get('SELECT count(*) AS c FROM sqlite_schema');
}

/**
 * `checkPages` on a connection of its own, so searches on the store's connections do not wait behind it. `stop`
 * ends it early (the store is closing): it then resolves, having found nothing.
 */
export function checkPagesAside(file: string): { readonly done: Promise<void>; stop(): Promise<void> } {
  let stopped = false;
  let running = true;
  const opening = Db.open(file, { readonly: true });
  const done = opening.then(async (db) => {
    try {
      await db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA query_only = ON; PRAGMA mmap_size = 0;`);
      await checkPages(db);
    } catch (err) {
      // a lock held longer than the busy timeout (a repair in another process) is not damage: writes then meet it
      if (!stopped && !isBusy(err)) throw damagedError(file, err);
    } finally {
      running = false;
      await db.close().catch(() => undefined);
    }
  });
  return {
    done,
    async stop() {
      stopped = true;
      const db = await opening.catch(() => undefined);
      if (running) db?.interrupt();
      await done.catch(() => undefined);
    },
  };
}
