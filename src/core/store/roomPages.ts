import type { Db } from './db';

/**
 * Rooms read, looked up and written this many at a time by a room refresh. The driver makes all of a statement's
 * rows in one go on the extension host's thread, and a JSON array of every id is built in one go too: a first
 * index's last refresh touches every room (~58,000 at 1 GB), and one statement over all of them held the event
 * loop for up to ~150 ms of the thread's CPU. A page takes a few milliseconds, and the loop runs between pages.
 */
export const ROOM_PAGE = 1000;

/** `items` a page at a time. */
export function* pagesOf<T>(items: readonly T[], size = ROOM_PAGE): Generator<readonly T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

/** `columns` of the rooms where `where` holds, a page at a time (one statement each) in rowid order. */
export async function* roomPages<T>(db: Db, columns: string, where: string): AsyncGenerator<T[]> {
  for (let after = -1; ; ) {
    const rows = await db.all<T & { n: number }>(
      `SELECT rowid AS n, ${columns} FROM rooms WHERE (${where}) AND rowid > ? ORDER BY rowid LIMIT ${ROOM_PAGE}`,
      [after],
    );
    if (rows.length > 0) yield rows;
    if (rows.length < ROOM_PAGE) return;
    after = rows[rows.length - 1]!.n;
  }
}
