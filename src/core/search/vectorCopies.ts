import type { SearchReads } from '../store/searchReads';
import type { ChunkSpan, ReadVectors } from '../store/vectorStore';
import type { VectorHit } from '../store/vectors';
import { L2Vectors } from './l2Kernel';
import type { Layer } from './types';

/**
 * The most memory a searcher's copies take, all layers together. The product default copies one distilled
 * layer: 50,000 exchanges of the built-in 100-d model take 20 MB, 100,000 of MiniLM's 384-d 154 MB.
 */
export const MAX_COPY_BYTES = 256 * 2 ** 20;

interface LayerCopy {
  readonly rowids: Float64Array;
  readonly vectors: L2Vectors;
  /** vec0's chunks as they were read, when read chunk by chunk: what the next copy need not read again. */
  readonly chunks?: readonly ChunkSpan[];
}

interface Taking {
  /** The store's state the copy is of (`VectorCopies.storeChanged` counts). */
  readonly generation: number;
  readonly copy: Promise<LayerCopy | undefined>;
  /** The copy once taken; null when it could not be (no vec0 table, too large, no WebAssembly SIMD). */
  ready?: LayerCopy | null;
}

/**
 * A searcher's copies of the store's vector layers in memory, each searched exactly by a scan of all its
 * vectors (l2Kernel.ts: ~0.6 ms at 50,000 100-d, against 5-9 ms for vec0's). Only a searcher that is warmed
 * (one that lives: the extension's, the MCP server's, `eval`'s) takes copies, of the layers it warmed; a
 * one-shot search does not pay ~0.2 s (50,000 100-d) for a copy it would scan once. A copy is of the store as
 * it was: when the store changes it is taken again, on first need, while searches ask vec0 (nothing waits for
 * a copy but `warm`). It costs the layer's vectors once more in memory (MAX_COPY_BYTES).
 */
export class VectorCopies {
  private generation = 0;
  private readonly takings = new Map<Layer, Taking>();
  /** The layers warmed: those copied. */
  private readonly kept = new Set<Layer>();

  /** `dimension`: the query embedder's; vectors of another dimension (a store embedded again since) are not copied. */
  constructor(
    private readonly reads: SearchReads,
    private readonly dimension: number,
    private readonly maxBytes = MAX_COPY_BYTES,
  ) {}

  /**
   * The `k` vectors of `layer` nearest to `query`, nearest first (ties by rowid), with their distances as vec0
   * gives them; undefined when no copy of the store as it is now is ready (one is then being taken).
   */
  nearest(layer: Layer, query: Float32Array, k: number): VectorHit[] | undefined {
    if (query.length !== this.dimension || !this.kept.has(layer)) return undefined;
    const copy = this.taking(layer).ready;
    return copy ? kNearest(copy, query, k) : undefined;
  }

  /** Keeps a copy of `layer` from now on, and takes it if none of the store as it is now is there; whether there is one after. */
  async warm(layer: Layer): Promise<boolean> {
    this.kept.add(layer);
    return (await this.taking(layer).copy.catch(() => undefined)) !== undefined;
  }

  /** The store was written to: copies are taken again when next needed. */
  storeChanged(): void {
    this.generation++;
  }

  /** The copy of `layer` of the store as it is now: taken or being taken (started here if not). */
  private taking(layer: Layer): Taking {
    const known = this.takings.get(layer);
    if (known?.generation === this.generation) return known;
    const taking: Taking = { generation: this.generation, copy: this.take(layer, known?.ready ?? undefined) };
    taking.copy.then(
      (copy) => (taking.ready = copy ?? null),
      () => (taking.ready = null),
    );
    this.takings.set(layer, taking); // the stale copy goes with it
    return taking;
  }

  /** A copy of `layer` now, with the vectors of `before`'s chunks that cannot have changed since (unchangedChunks). */
  private async take(layer: Layer, before: LayerCopy | undefined): Promise<LayerCopy | undefined> {
    const others = [...this.takings].filter(([l, t]) => l !== layer && t.generation === this.generation && t.ready);
    const held = others.reduce((sum, [, t]) => sum + L2Vectors.bytesFor(t.ready!.vectors.dimension, t.ready!.vectors.count), 0);
    if (held + L2Vectors.bytesFor(this.dimension, await this.reads.vectorCount(layer)) > this.maxBytes) return undefined;
    // read into the stale copy's memory, where the vectors that cannot have changed already are (nothing searches a
    // stale copy; kNearest runs whole between two reads), else into a new one
    let filled: L2Vectors | undefined;
    const into = (count: number): Float32Array | undefined => {
      filled = before?.vectors.resize(count) ? before.vectors : L2Vectors.create(this.dimension, count);
      return filled?.unpadded();
    };
    const { rowids, vectors, chunks } = await this.reads.layerVectors(layer, this.dimension, { into, ...(before ? { reuse: unchangedChunks(before) } : {}) });
    const copy = filled?.unpadded() === vectors ? filled : L2Vectors.of(vectors, this.dimension);
    return copy && { rowids, vectors: copy, ...(chunks ? { chunks } : {}) };
  }
}

/**
 * The vectors of `before`'s chunks that are as they were. vec0 0.1.9 writes a new vector into the first free slot
 * of its latest chunk only (a full one starts the next) and a delete clears the slot's validity bit: so a chunk
 * that was not the latest then, with the same validity and rowids now, holds the same vectors. The latest one
 * may have had a vector deleted and another written into the same slot (an exchange embedded again): read again.
 */
function unchangedChunks(before: LayerCopy): ReadVectors['reuse'] {
  const spans = before.chunks;
  if (!spans || spans.length === 0) return undefined;
  const latest = spans[spans.length - 1]!.id;
  const byId = new Map(spans.map((s) => [s.id, s]));
  return (chunk) => {
    const then = byId.get(chunk.id);
    if (!then || then.id === latest || !sameBytes(then.validity, chunk.validity) || !sameBytes(then.rowids, chunk.rowids)) return undefined;
    return before.vectors.vectorsAt(then.from, then.count);
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

/** The `k` nearest of a copy: a max-heap of the k best so far (by squared distance, then rowid), most passed at one comparison. */
function kNearest({ rowids, vectors }: LayerCopy, query: Float32Array, k: number): VectorHit[] {
  const d = vectors.distances(query);
  const heap = new Int32Array(Math.min(k, d.length));
  const farther = (a: number, b: number): boolean => d[a]! > d[b]! || (d[a] === d[b] && rowids[a]! > rowids[b]!);
  let size = 0;
  for (let i = 0; i < d.length; i++) {
    if (size < heap.length) {
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!farther(i, heap[parent]!)) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = i;
    } else if (d[i]! <= d[heap[0]!]! && farther(heap[0]!, i)) {
      siftDown(heap, i, farther);
    }
  }
  return [...heap]
    .sort((a, b) => (farther(a, b) ? 1 : farther(b, a) ? -1 : 0))
    .map((i) => ({ rowid: rowids[i]!, distance: Math.sqrt(d[i]!) }));
}

/** Replaces the heap's farthest with `i` and restores the heap. */
function siftDown(heap: Int32Array, i: number, farther: (a: number, b: number) => boolean): void {
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && farther(heap[right]!, heap[left]!) ? right : left;
    if (!farther(heap[child]!, i)) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = i;
}
