import { defaultThreads, WorkerPool } from './pool';

/**
 * How an index run uses worker threads: how many, and from how much work on. Below that, the run's own thread
 * does the work, as a small change (an exchange appended while an agent writes) is done before a thread would
 * have started (~0.1 s with its code compiled and its tables built).
 */
export interface ParallelOptions {
  /** Worker threads; 0: none. Default: the cores but one, at least 1, at most 4. */
  readonly threads?: number;
  /** Bytes to read and parse from which the sources go to the workers. */
  readonly minBytes?: number;
  /** Exchanges to distill or count from which they go to the workers. */
  readonly minExchanges?: number;
  /** The worker script (default: beside this module); one that cannot start leaves the work to the run's thread. */
  readonly script?: string;
  /** The script of a run on a thread of its own (IndexOptions.apart; default: beside this module). */
  readonly runScript?: string;
}

const MIN_BYTES = 1024 * 1024;
const MIN_EXCHANGES = 200;

/** One run's workers: started on the first task that is worth them, stopped with the run. */
export class RunWorkers {
  private pool: WorkerPool | undefined;
  private readonly threads: number;
  private readonly minBytes: number;
  private readonly minExchanges: number;
  private readonly script: string | undefined;
  private wasStarted = false;

  constructor(options: ParallelOptions = {}) {
    this.script = options.script;
    this.threads = Math.max(0, options.threads ?? defaultThreads());
    this.minBytes = options.minBytes ?? MIN_BYTES;
    this.minExchanges = options.minExchanges ?? MIN_EXCHANGES;
  }

  /** The pool for this much work; undefined when it is too little for threads, or threads are off. */
  for(work: { readonly bytes?: number; readonly exchanges?: number }): WorkerPool | undefined {
    if (this.threads === 0) return undefined;
    const enough = (work.bytes ?? 0) >= this.minBytes || (work.exchanges ?? 0) >= this.minExchanges;
    if (!enough) return undefined;
    this.wasStarted = true;
    return (this.pool ??= new WorkerPool(this.threads, this.script));
  }

  /** Whether this run had work enough for threads (the pool may be closed since). */
  get started(): boolean {
    return this.wasStarted;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }
}
