import type { Db } from './db';
import { ftsFields } from './ftsText';

/**
 * `exchanges_fts` holds text computed in JavaScript (ftsText.ts: labels out, words segmented), which SQL
 * triggers cannot compute; so it keeps its own copy of that text (a plain FTS5 table, not an external-content
 * one) and rows are added here, in the transaction that adds their exchanges. Deleting an exchange deletes
 * its row by trigger (schema v4). An exchange's prompt and verbatim are never updated in place.
 */
export async function indexExchanges(db: Db, rows: ReadonlyArray<{ n: number; prompt: string; verbatim: string }>): Promise<void> {
  await db.insertRows(
    'INSERT INTO exchanges_fts(rowid, prompt, said, tools)',
    rows.map((r) => {
      const f = ftsFields(r.prompt, r.verbatim);
      return [r.n, f.prompt, f.said, f.tools];
    }),
  );
}

/** Rows read per step when the whole index is rebuilt (bounded memory at any store size). */
const REBUILD_BATCH = 500;

/** Re-creates `exchanges_fts` from the stored exchanges (the verbatim rows are the truth). Call inside a transaction. */
export async function rebuildExchangeFts(db: Db): Promise<void> {
  await db.run('DELETE FROM exchanges_fts');
  for (let after = -1; ; ) {
    const rows = await db.all<{ n: number; prompt: string; verbatim: string }>(
      'SELECT n, prompt, verbatim FROM exchanges WHERE n > ? ORDER BY n LIMIT ?',
      [after, REBUILD_BATCH],
    );
    if (rows.length === 0) return;
    await indexExchanges(db, rows);
    after = rows[rows.length - 1]!.n;
  }
}
