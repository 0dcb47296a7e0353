/**
 * Turns texts into fixed-size vectors for semantic search. Implementations must not block the caller's
 * thread (the extension host): heavy work runs elsewhere and `embed` only awaits it.
 */
export interface Embedder {
  /** Identifies the model; stored next to each vector so a model change is detected and re-embedded. */
  readonly modelId: string;
  /** Length of every vector `embed` returns. */
  readonly dimension: number;
  /**
   * One unit-length vector per text, in input order (a text with no known token may give the zero
   * vector). Rejects with RecallError('model-unavailable') when the model cannot run.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * Makes now, a slice at a time giving the thread back between slices, what the first `embed` would otherwise make
   * in one go (the built-in model's word table: 45-80 ms of the extension host's thread at once). Optional; never
   * rejects; `embed` does not wait for it.
   */
  prepare?(): Promise<void>;
  /** Releases the model; later `embed` calls reject. Safe to call more than once. */
  dispose(): Promise<void>;
}
