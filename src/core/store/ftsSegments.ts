import type { Db } from './db';

/**
 * FTS5 keeps its index in segments (b-trees): each write transaction adds one and FTS5 merges them as they pile
 * up (automerge: four of a level make one of the next), so a store indexed in many runs holds about ten. A
 * query reads each of its words' postings in every segment and merges them; after `optimize` (one segment)
 * BM25 on verbatim at 50K exchanges cost ~1 ms less CPU at the median and ~2 ms at p95 (docs/search-log.md, "Latency passes").
 * `optimize` rewrites the whole index (~0.7 s of CPU at 50K exchanges), so it runs only when more than
 * MAX_SEGMENTS have piled up: after a first index run of a large history, and then seldom, since FTS5's own
 * merging keeps a few small segments beside the big one for a long time.
 */
export const MAX_SEGMENTS = 8;

/** How many segments `exchanges_fts` is in: `%_idx` holds the first term of each leaf page, by segment. */
export async function ftsSegments(db: Db): Promise<number> {
  return (await db.get<{ c: number }>('SELECT count(DISTINCT segid) AS c FROM exchanges_fts_idx'))?.c ?? 0;
}

/** Merges `exchanges_fts` into one segment when it is in more than MAX_SEGMENTS. Returns whether it did. */
export async function mergeFtsSegments(db: Db): Promise<boolean> {
  if ((await ftsSegments(db)) <= MAX_SEGMENTS) return false;
  await db.run("INSERT INTO exchanges_fts(exchanges_fts) VALUES('optimize')");
  return true;
}
