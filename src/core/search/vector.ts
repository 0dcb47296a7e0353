import { VECTOR_TABLES } from '../store/vectorStore';
import { nearest } from '../store/vectors';
import type { Db } from '../store/db';
import type { SqlFilter } from './filters';
import type { Scored } from './lexical';
import type { NearestVectors } from './nearestVectors';
import type { Layer } from './types';

/** vec0's largest k. */
const MAX_K = 4096;
/** Filters are applied after the KNN pass (vec0 cannot join), so a filtered search looks further. */
const FILTER_OVERFETCH = 10;
/** An exchange has several verbatim chunks: fetch more chunks than exchanges wanted. */
const CHUNKS_PER_EXCHANGE = 4;

export interface VectorSearchOptions {
  readonly filter?: SqlFilter;
  /** The searcher's KNN (a copy in memory, or vec0 bounded); without it, vec0 unbounded. */
  readonly knn?: NearestVectors;
  /** Gathers the conversations of the exchanges found (for the per-conversation cap). */
  readonly conversations?: Map<number, string>;
}

/**
 * Vector search on one layer: exact KNN over the layer's vectors (brute force, made cheaper by `knn`, not
 * approximate; docs/search.md, "KNN strategy"), scored by cosine similarity (vectors are unit length: cos = 1 - d²/2).
 * Vectors whose text is gone (not yet swept) are skipped; verbatim chunks score their exchange by the
 * best chunk. A zero query vector (no known word) finds nothing rather than everything equally.
 */
export async function vectorSearch(
  db: Db,
  layer: Layer,
  query: Float32Array,
  k: number,
  { filter, knn: nearestOf, conversations }: VectorSearchOptions = {},
): Promise<Scored[]> {
  if (!query.some((x) => x !== 0)) return [];
  const perExchange = layer === 'verbatim' ? CHUNKS_PER_EXCHANGE : 1;
  const knnK = Math.min(MAX_K, k * perExchange * (filter ? FILTER_OVERFETCH : 1));
  const knn = nearestOf ? await nearestOf.nearest(layer, query, knnK) : await nearest(db, VECTOR_TABLES[layer], query, knnK);
  if (knn.length === 0) return [];
  const ids = JSON.stringify(knn.map((h) => h.rowid));
  // Unfiltered, only whether each exchange is still there, and its conversation (which the per-conversation cap
  // needs next: one statement instead of two), asked of an index, not of the rows, which hold their whole text
  // (continuation.ts). A filter reads the exchange's and its conversation's columns.
  const joinExchange = (n: string) =>
    filter ? `JOIN exchanges e ON e.n = ${n} JOIN conversations c ON c.id = e.conversation_id` : `JOIN exchanges e INDEXED BY exchanges_place ON e.n = ${n}`;
  const where = filter ? `AND ${filter.sql}` : '';
  const valid =
    layer === 'verbatim'
      ? await db.all<{ id: number; n: number; conversation_id: string }>(
          `SELECT ch.id, e.n, e.conversation_id FROM verbatim_chunks ch ${joinExchange('ch.exchange_n')}
           WHERE ch.id IN (SELECT value FROM json_each(?)) ${where}`,
          [ids, ...(filter?.params ?? [])],
        )
      : await db.all<{ id: number; n: number; conversation_id: string }>(
          `SELECT e.n AS id, e.n, e.conversation_id FROM vector_rows r ${joinExchange('r.exchange_n')}
           WHERE r.layer = ? AND r.exchange_n IN (SELECT value FROM json_each(?)) ${where}`,
          [layer, ids, ...(filter?.params ?? [])],
        );
  const exchangeOf = new Map(valid.map((v) => [v.id, v.n]));
  for (const v of valid) conversations?.set(v.n, v.conversation_id);
  const out: Scored[] = [];
  const seen = new Set<number>();
  for (const hit of knn) {
    const n = exchangeOf.get(hit.rowid);
    if (n === undefined || seen.has(n)) continue; // nearest first: the first chunk seen is the exchange's best
    seen.add(n);
    out.push({ n, score: 1 - (hit.distance * hit.distance) / 2 });
    if (out.length >= k) break;
  }
  return out;
}
