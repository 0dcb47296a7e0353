import type { Db } from '../store/db';
import { sampleVectors, vectorCount } from '../store/vectorStore';
import type { Layer } from './types';

/**
 * A distance bound for exact KNN, from a sample of the layer's vectors. sqlite-vec's KNN keeps its k best
 * by comparing every candidate with the list so far, so k costs more than the scan: at 50,000 100-d
 * vectors k = 100 takes 9.4 ms, k = 1,000 (a filtered search) 86 ms. With `distance <= bound` in the query
 * only the vectors within the bound reach that list: 5.5 and 9.0 ms, the same rows (README, "Latency").
 *
 * The bound is the j-th smallest distance from the query to the m sampled vectors (SAMPLE_SIZE, evenly
 * spread over the layer). The k nearest of N vectors hold about mu = k * m / N of the sampled ones (a
 * Poisson count); j = mu + 4 sqrt(mu) + 3 leaves all k inside the bound but about once in 10^5 queries
 * (an unlucky sample) and lets through about (j / mu) * k vectors (~500 at 50,000). The answer stays
 * exact: a bounded query that returns fewer than k vectors is asked again without the bound (`missed`),
 * and the layer is sampled again, as it is when it has grown or shrunk by more than DRIFT since.
 */
export const SAMPLE_SIZE = 1024;

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
  readonly total: number;
}

/** A sample is taken again when its layer has grown or shrunk by more than this share since. */
const DRIFT = 0.25;

/** The samples of one store's layers (taken on first need), for a searcher. */
export class DistanceBounds {
  private readonly samples = new Map<Layer, Promise<Sample | undefined>>();
  /** Layers whose store changed since their sample was taken (`storeChanged`): recounted before use. */
  private readonly unsure = new Set<Layer>();

  constructor(private readonly db: Db) {}

  /** A bound within which the `k` vectors of `layer` nearest to `query` lie, very probably (see above). */
  async bound(layer: Layer, query: Float32Array, k: number): Promise<number | undefined> {
    if (this.unsure.delete(layer)) {
      const known = await this.samples.get(layer);
      // a store filling up (the first index run) would otherwise keep the bound of its first vectors: loose, slow
      if (known && Math.abs((await vectorCount(this.db, layer)) - known.total) > DRIFT * known.total) this.samples.delete(layer);
    }
    let taken = this.samples.get(layer);
    if (!taken) {
      taken = sampleOf(this.db, layer);
      this.samples.set(layer, taken);
    }
    const sample = await taken;
    // nothing to sample (or the read failed): tried again next time
    if (!sample) return this.missed(layer);
    // vectors of another model (the store was embedded again since): no bound until the next sample
    if (sample.dimension !== query.length) return this.missed(layer);
    return boundFromSample(distances(sample, query), sample.total, k);
  }

  /** The bound let through fewer than k vectors (a rare sample, or the layer shrank): sample again next time. */
  missed(layer: Layer): undefined {
    this.samples.delete(layer);
    return undefined;
  }

  /** The store was written to: each sample's layer is counted again when next used (one statement). */
  storeChanged(): void {
    for (const layer of this.samples.keys()) this.unsure.add(layer);
  }
}

async function sampleOf(db: Db, layer: Layer): Promise<Sample | undefined> {
  const { vectors, total } = await sampleVectors(db, layer, SAMPLE_SIZE).catch(() => ({ vectors: [], total: 0 }));
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
