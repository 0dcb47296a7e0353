import type { Db } from './db';
import { distilledCoreFtsProblems, rebuildDistilledCoreFts } from './distilledCoreFts';
import { distilledFtsProblems, rebuildDistilledFts } from './distilledStore';
import { rebuildExchangeFts } from './exchangeFts';
import { resetFtsTable } from './ftsReset';
import { describeLost, lostSources } from './ledger';
import { lexiconProblems } from './lexicon';
import { markAllRoomsDirty, refreshRooms } from './roomStats';
import { resetUnreadableVectorTables, sweepOrphanVectors, unmarkMissingVectors, vectorProblems } from './vectorStore';

/** What `check` found: the problems in words, none when ok. */
export interface IntegrityReport {
  readonly ok: boolean;
  readonly problems: string[];
}

/** SQLite's own integrity check plus the store's invariants. */
export async function checkIntegrity(db: Db, vectorsAvailable: boolean): Promise<IntegrityReport> {
  const problems: string[] = [];
  const integrity = await db.all<{ integrity_check: string }>('PRAGMA integrity_check');
  for (const r of integrity) if (r.integrity_check !== 'ok') problems.push(`sqlite: ${r.integrity_check}`);
  const fk = await db.all<{ table: string }>('PRAGMA foreign_key_check');
  if (fk.length) problems.push(`${fk.length} rows reference missing parents (${[...new Set(fk.map((r) => r.table))].join(', ')})`);
  const missingFts = await db.get<{ c: number }>(
    'SELECT count(*) AS c FROM exchanges WHERE n NOT IN (SELECT id FROM exchanges_fts_docsize)',
  );
  if (missingFts?.c) problems.push(`${missingFts.c} exchanges have no full-text row`);
  const orphanFts = await db.get<{ c: number }>(
    'SELECT count(*) AS c FROM exchanges_fts_docsize WHERE id NOT IN (SELECT n FROM exchanges)',
  );
  if (orphanFts?.c) problems.push(`${orphanFts.c} full-text rows have no exchange`);
  problems.push(...(await lexiconProblems(db)));
  problems.push(...(await distilledFtsProblems(db)));
  problems.push(...(await distilledCoreFtsProblems(db)));
  try {
    await db.run("INSERT INTO exchanges_fts(exchanges_fts, rank) VALUES ('integrity-check', 1)");
  } catch (err) {
    problems.push(`full-text index: ${(err as Error).message}`);
  }
  const orphanDistilledFts = await db.get<{ c: number }>(
    'SELECT count(*) AS c FROM distilled_fts WHERE rowid NOT IN (SELECT exchange_n FROM distilled)',
  );
  if (orphanDistilledFts?.c) problems.push(`${orphanDistilledFts.c} distilled full-text rows have no distilled exchange`);
  const missingDistilledFts = await db.get<{ c: number }>(
    'SELECT count(*) AS c FROM distilled WHERE exchange_n NOT IN (SELECT rowid FROM distilled_fts)',
  );
  if (missingDistilledFts?.c) problems.push(`${missingDistilledFts.c} distilled exchanges have no full-text row`);
  // Vectors can only be read with sqlite-vec loaded; without it search is lexical and they do not matter.
  if (vectorsAvailable) problems.push(...(await vectorProblems(db)));
  const lost = describeLost(await lostSources(db));
  if (lost) problems.push(lost);
  return { ok: problems.length === 0, problems };
}

/**
 * Rebuilds the derived tables (the full-text indexes, the lexicon) from the rows and removes orphans; vector
 * tables that cannot be read are made again empty, and what they held is left to the embedding stage. The
 * verbatim rows are the truth.
 */
export async function repairDerived(db: Db, vectorsAvailable: boolean): Promise<void> {
  await db.transaction(async () => {
    // the full-text tables first: an orphan's delete trigger then finds no row to take out of a damaged index
    await resetFtsTable(db, 'exchanges_fts');
    await resetFtsTable(db, 'distilled_fts');
    await db.run('DELETE FROM files_touched WHERE exchange_n NOT IN (SELECT n FROM exchanges)');
    await db.run('DELETE FROM exchanges WHERE conversation_id NOT IN (SELECT id FROM conversations)');
    await rebuildExchangeFts(db);
    await rebuildDistilledFts(db);
    await rebuildDistilledCoreFts(db);
    await markAllRoomsDirty(db);
    await refreshRooms(db);
  });
  if (vectorsAvailable) {
    await resetUnreadableVectorTables(db);
    await sweepOrphanVectors(db);
    // Marked embedded without a vector: unmarked, so the embedding stage embeds them again.
    await unmarkMissingVectors(db);
  }
}
