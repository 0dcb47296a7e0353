import type { SearchReads } from '../store/searchReads';
import type { ExchangeFilter } from '../store/searchFilter';
import type { Scored } from './fusion';
import type { NearestVectors } from './nearestVectors';
import type { Layer } from './types';

/** vec0's largest k. */
const MAX_K = 4096;
/** Filters are applied after the KNN pass (vec0 cannot join), so a filtered search looks further. */
const FILTER_OVERFETCH = 10;
/** An exchange has several verbatim chunks: fetch more chunks than exchanges wanted. */
const CHUNKS_PER_EXCHANGE = 4;

export interface VectorSearchOptions {
  readonly filter?: ExchangeFilter;
  /** The searcher's KNN (a copy in memory, or vec0 bounded); without it, vec0 unbounded. */
  readonly knn?: NearestVectors;
  /** Gathers the conversations of the exchanges found (for the per-conversation cap). */
  readonly conversations?: Map<number, string>;
}

/**
 * Vector search on one layer: exact KNN over the layer's vectors (brute force, made cheaper by `knn`, not
 * approximate; README, "KNN strategy"), scored by cosine similarity (vectors are unit length: cos = 1 - d²/2).
 * Vectors whose text is gone (not yet swept) are skipped; verbatim chunks score their exchange by the
 * best chunk. A zero query vector (no known word) finds nothing rather than everything equally.
 */
export async function vectorSearch(
  reads: SearchReads,
  layer: Layer,
  query: Float32Array,
  k: number,
  { filter, knn: nearestOf, conversations }: VectorSearchOptions = {},
): Promise<Scored[]> {
  if (!query.some((x) => x !== 0)) return [];
  const perExchange = layer === 'verbatim' ? CHUNKS_PER_EXCHANGE : 1;
  const knnK = Math.min(MAX_K, k * perExchange * (filter ? FILTER_OVERFETCH : 1));
  const knn = nearestOf ? await nearestOf.nearest(layer, query, knnK) : await reads.nearestVectors(layer, query, knnK);
  if (knn.length === 0) return [];
  // the vectors of exchanges still there (and passing the filter), with their conversations (store/vectorStore.ts)
  const valid = await reads.vectorExchanges(layer, knn.map((h) => h.rowid), filter);
  const exchangeOf = new Map(valid.map((v) => [v.rowid, v.n]));
  for (const v of valid) conversations?.set(v.n, v.conversationId);
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
