import { stat } from 'node:fs/promises';
import { RecallError } from '../errors';
import type { Db } from './db';

/**
 * Giving back the pages a store no longer uses (`agent-recall compact`). SQLite keeps the pages freed by deletes and
 * by migrations that rebuild a table (schema 30 left 7 % of a 50K store free) inside the file, for the rows to come;
 * `VACUUM` rewrites the file without them and with each table's pages in order. It cannot run inside a transaction,
 * writes the whole store once more through the write-ahead log, and holds the write lock until it ends (seconds at
 * 50,000 exchanges: docs/cli.md), so it runs only when asked, never on its own: a store's free pages are reused by
 * the next rows anyway.
 */

/** The store's pages: how many, how many of them free (what compacting gives back), and their size. */
export interface PageUse {
  readonly pageSize: number;
  readonly pages: number;
  readonly freePages: number;
}

export interface CompactReport {
  readonly before: PageUse;
  readonly after: PageUse;
  /** The write-ahead log left beside the store: 0, unless another process was reading the store at the end. */
  readonly walBytes: number;
  readonly ms: number;
}

export async function pageUse(db: Db): Promise<PageUse> {
  const [size, count, free] = await Promise.all([
    db.get<{ page_size: number }>('PRAGMA page_size'),
    db.get<{ page_count: number }>('PRAGMA page_count'),
    db.get<{ freelist_count: number }>('PRAGMA freelist_count'),
  ]);
  return { pageSize: size?.page_size ?? 0, pages: count?.page_count ?? 0, freePages: free?.freelist_count ?? 0 };
}

/**
 * Rewrites the store without its free pages (VACUUM), then folds the write-ahead log back into the file and empties
 * it (a checkpoint that truncates the log: VACUUM wrote the whole store into it). Rowids are kept: every table the
 * store reads by rowid has an INTEGER PRIMARY KEY, and the rest (rooms) are copied in rowid order. Refused inside a
 * transaction of this connection. Run it unmapped (Store.unmappedWhile): a map keeps every page it touched, and
 * VACUUM reads them all.
 */
export async function compactStore(db: Db): Promise<CompactReport> {
  if (db.inTransaction) throw new RecallError('store-locked', 'The store cannot be compacted while this connection has a transaction open.');
  const started = performance.now();
  const before = await pageUse(db);
  await db.exec('VACUUM');
  // busy (another process reading an older snapshot) leaves the log as it is: its pages are folded in later
  await db.get('PRAGMA wal_checkpoint(TRUNCATE)');
  const after = await pageUse(db);
  const walBytes = await stat(`${db.file}-wal`).then(
    (s) => s.size,
    () => 0,
  );
  return { before, after, walBytes, ms: performance.now() - started };
}
