/**
 * Long JavaScript work on the extension host's thread (the lexicon built for a whole store, its merges) gives
 * the event loop back every few milliseconds, so VS Code and the other extensions stay responsive: a migration
 * at 50,000 exchanges otherwise held it for up to a second at a time (docs/search.md, "BM25 on verbatim: the lexicon").
 */
export class TimeSlice {
  private started = performance.now();
  /** The turn of the event loop the callers that found the slice due wait for (one for all of them). */
  private turn: Promise<void> | undefined;
  /** Whether a caller went on after the last turn began (the others wait again if it used the slice up). */
  private taken = false;

  /** `ms`: how long the work runs before it yields (0 yields at every check). */
  constructor(private readonly ms = 15) {}

  /**
   * Whether this slice has run `ms` (yieldIfDue would yield). A loop of many short steps asks this first and awaits
   * yieldIfDue only then: an await per step is a promise made and two turns of the microtask queue, each time.
   */
  due(): boolean {
    return performance.now() - this.started >= this.ms;
  }

  /**
   * Yields to the event loop (after its pending I/O callbacks) once this slice has run `ms`; cheap otherwise. Callers
   * running at once (mapLimited's) share the slice: they wait for one turn, and the first to go on starts the new
   * slice; the others go on while it lasts and wait for the next turn once it is used up. A turn each (a setImmediate
   * each, all run in the same check phase with no timer between) let each caller run a slice of its own back to back.
   */
  async yieldIfDue(): Promise<void> {
    if (!this.due()) return;
    for (;;) {
      this.turn ??= new Promise<void>((resolve) =>
        setImmediate(() => {
          this.turn = undefined;
          this.taken = false;
          resolve();
        }),
      );
      await this.turn;
      if (!this.taken) {
        this.taken = true;
        this.started = performance.now();
        return;
      }
      if (!this.due()) return;
    }
  }
}

/**
 * A value made by a generator's steps, once a process: ahead (`ahead`), a step at a time with the event loop given
 * back every `ms`, so a first use on the extension host's thread does not hold it while the value is made; or at once
 * when it is needed before that is done (`now`: what the steps have not made yet). The same value either way.
 */
export class MadeInSteps<T> {
  private value: T | undefined;
  private steps: Generator<void, T> | undefined;
  private preparing: Promise<T> | undefined;

  constructor(
    private readonly make: () => Generator<void, T>,
    private readonly ms = 8,
  ) {}

  /** The value if it is made (or given), else undefined. */
  get made(): T | undefined {
    return this.value;
  }

  /** The value, what is left of it made at once. */
  now(): T {
    if (this.value === undefined) {
      const steps = this.steps ?? this.make();
      this.steps = undefined;
      this.value = stepsAtOnce(steps);
    }
    return this.value;
  }

  /** The value, made a step at a time with turns of the event loop between (`now` asked meanwhile makes the rest). */
  ahead(): Promise<T> {
    if (this.value !== undefined) return Promise.resolve(this.value);
    this.preparing ??= (async () => {
      try {
        const steps = (this.steps ??= this.make());
        const slice = new TimeSlice(this.ms);
        for (;;) {
          if (this.value !== undefined) return this.value; // `now` made the rest, or it was given
          const step = steps.next();
          if (step.done) {
            this.value = step.value;
            this.steps = undefined;
            return step.value;
          }
          await slice.yieldIfDue();
        }
      } catch (err) {
        this.steps = undefined; // a step that threw: the next call starts again
        throw err;
      } finally {
        this.preparing = undefined;
      }
    })();
    return this.preparing;
  }

  /** Takes a value made elsewhere (kept from an earlier process) unless one is made already; whether it took it. */
  give(value: T): boolean {
    if (this.value !== undefined) return false;
    this.value = value;
    this.steps = undefined;
    return true;
  }
}

/** A generator's value, its steps run at once. */
export function stepsAtOnce<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
