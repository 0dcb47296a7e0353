/**
 * Long JavaScript work on the extension host's thread (the lexicon built for a whole store, its merges) gives
 * the event loop back every few milliseconds, so VS Code and the other extensions stay responsive: a migration
 * at 50,000 exchanges otherwise held it for up to a second at a time (docs/search.md, "BM25 on verbatim: the lexicon").
 */
export class TimeSlice {
  private started = performance.now();

  /** `ms`: how long the work runs before it yields (0 yields at every check). */
  constructor(private readonly ms = 15) {}

  /** Yields to the event loop (after its pending I/O callbacks) once this slice has run `ms`; cheap otherwise. */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.started < this.ms) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
