import type { SearchReads } from '../store/searchReads';
import type { VectorHit } from '../store/vectors';
import { DistanceBounds } from './distanceBound';
import type { Layer } from './types';
import { VectorCopies } from './vectorCopies';

/**
 * A searcher's exact KNN over the store's vector layers: from the layer's copy in memory when one of the store
 * as it is now is ready (vectorCopies.ts), else from vec0, bounded (distanceBound.ts) while the copy is taken.
 */
export class NearestVectors {
  private readonly bounds: DistanceBounds;
  private readonly copies: VectorCopies;

  /** `dimension`: the query embedder's; `bounds`: the store's, when its searchers share them (Memory). */
  constructor(reads: SearchReads, dimension: number, bounds = new DistanceBounds(reads)) {
    this.bounds = bounds;
    this.copies = new VectorCopies(reads, dimension);
  }

  /** The `k` vectors of `layer` nearest to `query`, nearest first. */
  async nearest(layer: Layer, query: Float32Array, k: number): Promise<VectorHit[]> {
    return this.copies.nearest(layer, query, k) ?? this.bounds.nearest(layer, query, k);
  }

  /** Takes the copy of `layer` a search will read, or where there can be none the bound's sample for `k` (Searcher.warm). */
  async warm(layer: Layer, k: number): Promise<void> {
    if (!(await this.copies.warm(layer))) await this.bounds.warm(layer, k);
  }

  /** Takes the bound's sample for `k` a search of `layer` will need until a copy is taken (Searcher.prepare). */
  async prepare(layer: Layer, k: number): Promise<void> {
    await this.bounds.warm(layer, k);
  }

  /** The store was written to (its new change stamp): copies are taken again and layers counted again when next needed. */
  storeChanged(stamp: string): void {
    this.copies.storeChanged();
    this.bounds.storeChanged(stamp);
  }
}
