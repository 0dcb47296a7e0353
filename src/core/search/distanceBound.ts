import type { SearchReads } from '../store/searchReads';
import type { VectorHit } from '../store/vectors';
import type { Layer } from './types';

/**
 * A distance bound for exact KNN, from a sample of the layer's vectors. sqlite-vec's KNN keeps its k best
 * by comparing every candidate with the list so far, so k costs more than the scan: at 50,000 100-d
 * vectors k = 100 takes 9.4 ms, k = 1,000 (a filtered search) 86 ms. With `distance <= bound` in the query
 * only the vectors within the bound reach that list: 5.5 and 9.0 ms, the same rows (docs/search.md, "KNN strategy").
 *
 * The bound is the j-th smallest distance from the query to the m sampled vectors (SAMPLE_SIZE, evenly
 * spread over the layer). The k nearest of N vectors hold about mu = k * m / N of the sampled ones (a
 * Poisson count); j = mu + 4 sqrt(mu) + 3 leaves all k inside the bound but about once in 10^5 queries
 * (an unlucky sample) and lets through about (j / mu) * k vectors (~500 at 50,000). The answer stays
 * exact: a bounded query that returns fewer than k vectors is asked again without the bound (`missed`),
 * and the layer is sampled again, as it is when it has grown or shrunk by more than DRIFT since. Small
 * layers (BOUNDED_FROM) are searched unbounded.
 */
export const SAMPLE_SIZE = 1024;
/**
 * Below this many vector comparisons with the k best (N * k) the unbounded KNN is cheap (under ~1 ms:
 * k = 100 at 10,000 vectors takes 2.0 ms, at 1,550 0.7 ms) and the bound's own cost (~0.3 ms) is not worth it.
 */
export const BOUNDED_FROM = 1_000_000;
/** A layer is sampled again when it has grown or shrunk by more than this share since its sample. */
const DRIFT = 0.25;

/** The j-th smallest of `distances` (sorted ascending) that bounds the `k` nearest of `total`, if any does. */
export function boundFromSample(distances: ArrayLike<number>, total: number, k: number): number | undefined {
  const m = distances.length;
  if (m === 0 || total <= k) return undefined;
  const mu = (k * m) / total;
  const j = Math.ceil(mu + 4 * Math.sqrt(mu) + 3);
  return j <= m ? distances[j - 1] : undefined;
}

interface Sample {
  /** The sampled vectors, one after another. */
  readonly vectors: Float32Array;
  readonly dimension: number;
  /** How many vectors the layer held then. */
  readonly total: number;
}

/**
 * The samples of one store's layers (taken on first need), for the store's searchers: what a sample holds does not
 * depend on the model that asks (Memory shares one, so a sample taken for one searcher serves the next).
 */
export class DistanceBounds {
  private readonly samples = new Map<Layer, Promise<Sample | undefined>>();
  /** Each layer's vector count since the store last changed (`storeChanged`). */
  private readonly counts = new Map<Layer, Promise<number>>();
  /** The store's change stamp the counts belong to (SearchReads.changeStamp). */
  private stamp = '';

  constructor(private readonly reads: SearchReads) {}

  /** The `k` vectors of `layer` nearest to `query` from vec0, nearest first: exact, bounded where a bound pays. */
  async nearest(layer: Layer, query: Float32Array, k: number): Promise<VectorHit[]> {
    const within = await this.bound(layer, query, k);
    const knn = await this.reads.nearestVectors(layer, query, k, within);
    if (within === undefined || knn.length >= k) return knn;
    // the bound left some of the k nearest out (or the layer holds fewer): the exact answer, unbounded
    this.missed(layer);
    return this.reads.nearestVectors(layer, query, k);
  }

  /** A bound within which the `k` vectors of `layer` nearest to `query` lie, very probably (see above). */
  async bound(layer: Layer, query: Float32Array, k: number): Promise<number | undefined> {
    const sample = await this.sampleFor(layer, k);
    if (sample === 'unbounded') return undefined;
    // nothing to sample, the read failed, or vectors of another model (the store was embedded again since)
    if (!sample || sample.dimension !== query.length) return this.missed(layer);
    return boundFromSample(distances(sample, query), sample.total, k);
  }

  /** Takes the sample a search for the `k` nearest of `layer` will need, if it needs one not taken yet (Searcher.warm). */
  async warm(layer: Layer, k: number): Promise<void> {
    await this.sampleFor(layer, k);
  }

  /** The layer's sample, taken when first needed or when the layer has drifted from it; 'unbounded' when it is too small for a bound. */
  private async sampleFor(layer: Layer, k: number): Promise<Sample | undefined | 'unbounded'> {
    const total = await this.count(layer);
    if (total * k < BOUNDED_FROM) return 'unbounded';
    let taken = this.samples.get(layer);
    // a store filling up (the first index run) would otherwise keep the bound of its first vectors: loose, slow
    if (taken && drifted((await taken)?.total ?? 0, total)) taken = undefined;
    if (!taken) this.samples.set(layer, (taken = sampleOf(this.reads, layer, total)));
    return taken;
  }

  /** How many vectors `layer` holds, counted once since the store last changed (0 when it cannot be read). */
  count(layer: Layer): Promise<number> {
    let count = this.counts.get(layer);
    if (!count) this.counts.set(layer, (count = this.reads.boundCount(layer).catch(() => 0)));
    return count;
  }

  /** The bound let through fewer than k vectors (a rare sample, or the layer shrank): sample again next time. */
  missed(layer: Layer): undefined {
    this.samples.delete(layer);
    this.counts.delete(layer);
    return undefined;
  }

  /**
   * The store's change stamp as a searcher's change check read it: when it is not the one the counts belong to, each
   * layer is counted again when next used (one statement). By stamp, not by whose check saw a change: one set of
   * bounds serves every searcher of a store.
   */
  storeChanged(stamp: string): void {
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.counts.clear();
  }
}

function drifted(then: number, now: number): boolean {
  return Math.abs(now - then) > DRIFT * then;
}

/** The layer's sample, read with the count just taken; undefined when nothing could be read (no vec0 table, say). */
async function sampleOf(reads: SearchReads, layer: Layer, total: number): Promise<Sample | undefined> {
  const vectors = await reads.sampleVectors(layer, SAMPLE_SIZE).catch((): Float32Array[] => []);
  const dimension = vectors[0]?.length ?? 0;
  if (dimension === 0 || vectors.some((v) => v.length !== dimension)) return undefined;
  const all = new Float32Array(vectors.length * dimension);
  vectors.forEach((v, i) => all.set(v, i * dimension));
  return { vectors: all, dimension, total };
}

/** Euclidean distances (as vec0 measures float[] columns) from `query` to each sampled vector, ascending. */
function distances({ vectors, dimension }: Sample, query: Float32Array): Float64Array {
  const out = new Float64Array(vectors.length / dimension);
  for (let r = 0, at = 0; r < out.length; r++, at += dimension) {
    let sum = 0;
    for (let i = 0; i < dimension; i++) {
      const d = vectors[at + i]! - query[i]!;
      sum += d * d;
    }
    out[r] = Math.sqrt(sum);
  }
  return out.sort();
}
