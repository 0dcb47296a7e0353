/**
 * Long JavaScript work on the extension host's thread (the lexicon built for a whole store, its merges) gives
 * the event loop back every few milliseconds, so VS Code and the other extensions stay responsive: a migration
 * at 50,000 exchanges otherwise held it for up to a second at a time (docs/search.md, "BM25 on verbatim: the lexicon").
 */
export class TimeSlice {
  private started = performance.now();

  /** `ms`: how long the work runs before it yields (0 yields at every check). */
  constructor(private readonly ms = 15) {}

  /**
   * Whether this slice has run `ms` (yieldIfDue would yield). A loop of many short steps asks this first and awaits
   * yieldIfDue only then: an await per step is a promise made and two turns of the microtask queue, each time.
   */
  due(): boolean {
    return performance.now() - this.started >= this.ms;
  }

  /** Yields to the event loop (after its pending I/O callbacks) once this slice has run `ms`; cheap otherwise. */
  async yieldIfDue(): Promise<void> {
    if (!this.due()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
