import type { Db } from './db';
import { resetFtsTable } from './ftsReset';

/**
 * The core layer's own full-text index (issue 39 (b)): the headline and the detail line alone, so BM25 weighs a
 * core word against the core's length. In `distilled_fts` the row's length counts the search terms, files and
 * rooms too, and a core with many of them ranked lower on the same words. It indexes the `distilled` rows in
 * place (external content: no second copy of the text); triggers on `distilled` keep it in step with every write.
 */
export const DISTILLED_CORE_FTS_SQL = `
  CREATE VIRTUAL TABLE distilled_core_fts USING fts5(core, context, content='distilled', content_rowid='exchange_n', tokenize='porter unicode61');
  CREATE TRIGGER distilled_core_ai AFTER INSERT ON distilled BEGIN
    INSERT INTO distilled_core_fts(rowid, core, context) VALUES (new.exchange_n, new.core, new.context);
  END;
  CREATE TRIGGER distilled_core_ad AFTER DELETE ON distilled BEGIN
    INSERT INTO distilled_core_fts(distilled_core_fts, rowid, core, context) VALUES ('delete', old.exchange_n, old.core, old.context);
  END;
  CREATE TRIGGER distilled_core_au AFTER UPDATE OF exchange_n, core, context ON distilled BEGIN
    INSERT INTO distilled_core_fts(distilled_core_fts, rowid, core, context) VALUES ('delete', old.exchange_n, old.core, old.context);
    INSERT INTO distilled_core_fts(rowid, core, context) VALUES (new.exchange_n, new.core, new.context);
  END;
`;

/** Indexes the distilled rows again from scratch (a damaged index is dropped, not read). Runs inside the caller's transaction. */
export async function rebuildDistilledCoreFts(db: Db): Promise<void> {
  await resetFtsTable(db, 'distilled_core_fts');
  await db.run("INSERT INTO distilled_core_fts(distilled_core_fts) VALUES ('rebuild')");
}

/** Distilled rows the index lacks, index rows of no distilled row, an index that differs from the rows it indexes. */
export async function distilledCoreFtsProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  // the index's own rows are its size rows (reading the table itself reads `distilled`)
  const missing = await db.get<{ c: number }>('SELECT count(*) AS c FROM distilled WHERE exchange_n NOT IN (SELECT id FROM distilled_core_fts_docsize)');
  if (missing?.c) problems.push(`${missing.c} distilled exchanges have no row in the core's full-text index`);
  const orphan = await db.get<{ c: number }>('SELECT count(*) AS c FROM distilled_core_fts_docsize WHERE id NOT IN (SELECT exchange_n FROM distilled)');
  if (orphan?.c) problems.push(`${orphan.c} rows of the core's full-text index have no distilled exchange`);
  try {
    // rank 1: also compares the index with the distilled rows it was made from
    await db.run("INSERT INTO distilled_core_fts(distilled_core_fts, rank) VALUES ('integrity-check', 1)");
  } catch (err) {
    problems.push(`the core's full-text index: ${(err as Error).message}`);
  }
  return problems;
}
