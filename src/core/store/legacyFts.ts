import type { Db } from './db';
import { ftsFields } from './ftsText';
import { resetFtsTable } from './ftsReset';

/**
 * The verbatim full-text table as schema versions 5 to 13 had it: three columns (`prompt`, `said`, `tools`,
 * ftsText.ts), its own copy of the whole text. Only the migrations of those versions write it (v5 fills it, v11
 * builds the lexicon from its text); v14 keeps its prompt column alone (schema.ts).
 */
export async function fillThreeColumnFts(db: Db): Promise<void> {
  await resetFtsTable(db, 'exchanges_fts');
  for (let after = -1; ; ) {
    const rows = await db.all<{ n: number; prompt: string; verbatim: string }>('SELECT n, prompt, verbatim FROM exchanges WHERE n > ? ORDER BY n LIMIT 500', [after]);
    if (rows.length === 0) return;
    await insertThreeColumnRows(db, rows);
    after = rows[rows.length - 1]!.n;
  }
}

/** Adds exchanges to the three-column table, as the writer of versions 5 to 12 did. */
export async function insertThreeColumnRows(db: Db, rows: ReadonlyArray<{ n: number; prompt: string; verbatim: string }>): Promise<void> {
  await db.insertRows(
    'INSERT INTO exchanges_fts(rowid, prompt, said, tools)',
    rows.map((r) => {
      const f = ftsFields(r.prompt, r.verbatim);
      return [r.n, f.prompt, f.said, f.tools];
    }),
  );
}
