import type { Db } from './db';

/**
 * Empties an FTS5 table by dropping it and creating it again from its own CREATE statement. `DELETE FROM`
 * reads the index to take out each row's terms: a damaged index (SQLITE_CORRUPT_VTAB) fails it, or survives
 * it, since FTS5 only adds deletion markers and leaves the damaged segment in place. The triggers that write
 * into the table are on other tables and stay. Call inside a transaction.
 */
export async function resetFtsTable(db: Db, table: string): Promise<void> {
  const created = await db.get<{ sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [table]);
  if (!created) throw new Error(`There is no full-text table ${table} to rebuild.`);
  await db.exec(`DROP TABLE "${table}"`);
  await db.exec(created.sql);
}
