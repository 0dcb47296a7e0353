/**
 * When a searcher's warm-up (Searcher.warm) may run its next search: only while no real work is under way and
 * none has ended for `quietMs`, so a real call meets at most the one warm-up search already running instead of
 * several in a row (issue 42: 9 warm-up searches in V8's interpreter, 85-117 ms of CPU, ran beside a client's
 * first calls); and no more once `enough` real searches have run, as they have compiled the same code.
 */
export class WarmUpTurns {
  /** Real work under way. */
  private busy = 0;
  /** Real work ended so far. */
  private ended = 0;
  private lastEnd = -Infinity;
  /** The warm-up waiting for the work under way to end. */
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly enough: number,
    private readonly quietMs: number,
  ) {}

  /**
   * Runs real work, the warm-up giving way to it. `counted` false: work the warm-up waits for but that does not
   * compile a search's code, so does not bring its end nearer (the extension host's index runs).
   */
  async during<T>(work: () => Promise<T>, counted = true): Promise<T> {
    this.busy++;
    try {
      return await work();
    } finally {
      this.busy--;
      if (counted) this.ended++;
      this.lastEnd = performance.now();
      if (this.busy === 0) this.wake?.();
    }
  }

  /** No more turns: a warm-up waiting for one, or asking next, hears false (the store it searches is about to close). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Resolves true when the warm-up may start its next search, false when it should stop. */
  async next(): Promise<boolean> {
    for (;;) {
      if (this.stopped || this.ended >= this.enough) return false;
      if (this.busy > 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const quietFor = this.lastEnd + this.quietMs - performance.now();
      // a request already read but not yet begun is seen at the next turn of the event loop
      if (quietFor > 0) await new Promise((resolve) => setTimeout(resolve, quietFor));
      else await new Promise((resolve) => setImmediate(resolve));
      if (this.busy === 0 && performance.now() - this.lastEnd >= this.quietMs && this.ended < this.enough && !this.stopped) return true;
    }
  }
}
