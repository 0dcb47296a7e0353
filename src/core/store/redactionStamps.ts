import type { Db } from './db';

/**
 * The store side of `distilled.clean`, each distilled exchange's redaction stamp: which rules checked its verbatim
 * text and what they found (redactionCheck.ts). A row whose stamp is none of `current` (NULL: distilled before
 * schema v16 or copied by a bench tool; an older rules version) waits to be checked.
 */

/** A distilled exchange's verbatim text, to be checked. */
export interface UncheckedText {
  readonly n: number;
  /** The distilled row's content hash (the text, its project and plies) when the text was read. */
  readonly hash: string;
  readonly verbatim: string;
}

const NOT_CURRENT = 'd.clean IS NULL OR d.clean NOT IN (SELECT value FROM json_each(?))';

/** How many distilled exchanges have a stamp that is none of `current`: a scan of the table (~90 ms at 250,000). */
export async function countUnchecked(db: Db, current: readonly string[]): Promise<number> {
  const row = await db.get<{ c: number }>(`SELECT count(*) AS c FROM distilled d WHERE ${NOT_CURRENT}`, [JSON.stringify(current)]);
  return row?.c ?? 0;
}

/** The next `limit` of them after exchange `afterN`, in order, with their texts. */
export async function uncheckedTexts(db: Db, current: readonly string[], afterN: number, limit: number): Promise<UncheckedText[]> {
  return db.all<UncheckedText>(
    `SELECT d.exchange_n AS n, d.content_hash AS hash, e.verbatim FROM distilled d JOIN exchanges e ON e.n = d.exchange_n
     WHERE d.exchange_n > ? AND (${NOT_CURRENT}) ORDER BY d.exchange_n LIMIT ?`,
    [afterN, JSON.stringify(current), limit],
  );
}

/**
 * Writes the stamps found, each only while its distilled row is still the one made from the text checked (same
 * content hash): a stamp never lands on another text, even where another process re-wrote the exchange meanwhile
 * (an exchange re-parsed keeps its id, and a row number can be used again).
 */
export async function setRedactionStamps(db: Db, stamps: ReadonlyArray<{ n: number; hash: string; stamp: string }>): Promise<void> {
  if (stamps.length === 0) return;
  await db.run(
    `UPDATE distilled SET clean = j.value ->> 2 FROM json_each(?) j
     WHERE distilled.exchange_n = j.value ->> 0 AND distilled.content_hash = j.value ->> 1`,
    [JSON.stringify(stamps.map((s) => [s.n, s.hash, s.stamp]))],
  );
}
