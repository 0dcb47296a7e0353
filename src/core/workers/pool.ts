import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { IndexTask, IndexTaskResult, PostedTask, WorkerReply } from './tasks';

/**
 * The index run's worker threads (indexWorker.ts): parsing, segmenting, token counts and offline distillation
 * run there, beside the run's own thread, and the extension host's event loop stays free. Started on the first task, one
 * task per thread at a time (two sources to prepare: PREPARE_DEPTH), the rest queued; a thread holds the process open
 * only while it has a task, so a CLI that forgets `close()` still exits.
 *
 * A thread that cannot start or dies (a missing script) fails its task and every later one with `PoolBroken`: the
 * caller does that work on its own thread instead, so a run loses nothing to the pool. A thread out of memory
 * fails only its task so; a fresh thread takes the next.
 */
export class PoolBroken extends Error {}

/** Threads at most: the work is CPU-bound; more threads than cores only share them, and each holds its own heap. */
const MAX_THREADS = 4;
/**
 * Each thread's young generation, MB (V8's default on 64 bits: 48). A task's garbage is young; what lives (the
 * tables, ~40 MB) is old: a smaller nursery costs no CPU here and two threads ~65 MB less at the peak of a
 * first index (432 against 498 MB on two copies of the corpus, 18.6 s CPU both).
 */
const YOUNG_GENERATION_MB = 8;
/**
 * Each thread's old generation, MB. What lives there is ~60 MB (the tables, a batch); without a cap V8 let each
 * thread's heap grow to ~230 MB before collecting it (a 250 MB history: peak RSS 581-585 MB, 348-369 with the cap,
 * CPU +4 %). A task that needs more (a huge transcript) fails alone and is done on the run's own thread.
 */
const OLD_GENERATION_MB = 128;

/**
 * Workers for this many cores: one core is left to the run's own thread, which writes the store and embeds while
 * the workers parse and distill. On 2 cores one worker against two (a first index of the corpus, 5 alternating
 * pairs, quiet): CPU -17 %, peak RSS -19 %, elapsed +5 %: a second isolate compiling the parser and the
 * distiller and holding its own heap cost more than the core it took from the run's own thread gave back.
 */
export function threadsForCores(cores: number): number {
  return Math.max(1, Math.min(MAX_THREADS, cores - 1));
}

export function defaultThreads(): number {
  return threadsForCores(typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

/** The worker script beside this module: the bundle's (dist/indexWorker.js) or tsc's (out/src/core/workers/indexWorker.js). */
export function workerScript(): string {
  return path.join(__dirname, 'indexWorker.js');
}

/**
 * Sources a thread holds to prepare at once: it reads the next while it parses one. A prepare task starts with a
 * chain of file system round trips (open, stat, reads, close) on libuv's threads, and its answer goes back through
 * the run's thread before the pool gives out the next: with one task at a time the worker waited through both.
 */
const PREPARE_DEPTH = 2;

interface Queued {
  readonly task: IndexTask;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  /** Its tasks, by the id each was posted with (answers may come out of order). */
  readonly busy: Map<number, Queued>;
}

export class WorkerPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Queued[] = [];
  private broken: PoolBroken | undefined;
  private closed = false;
  private nextId = 0;

  constructor(
    readonly size = defaultThreads(),
    private readonly script = workerScript(),
    private readonly oldGenerationMb = OLD_GENERATION_MB,
  ) {}

  /** Runs one task on the first free thread; rejects with PoolBroken when the pool cannot run it. */
  run<T extends IndexTask>(task: T): Promise<IndexTaskResult<T>> {
    return new Promise<unknown>((resolve, reject) => {
      if (this.broken || this.closed) return reject(this.broken ?? new PoolBroken('the index workers were closed'));
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    }) as Promise<IndexTaskResult<T>>;
  }

  /** Stops every thread (tasks still queued or running reject with PoolBroken). */
  async close(): Promise<void> {
    this.closed = true;
    this.failAll(new PoolBroken('the index workers were closed'));
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
    this.threads.length = 0;
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.broken) {
      let thread = this.threads.find((t) => t.busy.size === 0);
      if (!thread && this.threads.length < this.size) thread = this.start();
      if (!thread && this.queue[0]!.task.kind === 'prepare') thread = this.threads.find(takesAnotherSource);
      if (!thread) return;
      const next = this.queue.shift()!;
      const id = this.nextId++;
      thread.busy.set(id, next);
      thread.worker.ref();
      thread.worker.postMessage({ id, task: next.task } satisfies PostedTask);
    }
  }

  private start(): Thread | undefined {
    if (!existsSync(this.script)) {
      this.failAll(new PoolBroken(`the index worker script ${this.script} is missing`));
      return undefined;
    }
    let worker: Worker;
    try {
      // (required when first used: the MCP server, which starts none, does not load the module: ~4 ms of its start)
      const threads = require('node:worker_threads') as typeof import('node:worker_threads');
      worker = new threads.Worker(this.script, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, maxOldGenerationSizeMb: this.oldGenerationMb } });
    } catch (err) {
      this.failAll(new PoolBroken(`an index worker did not start (${(err as Error).message})`));
      return undefined;
    }
    const thread: Thread = { worker, busy: new Map() };
    worker.on('message', (reply: WorkerReply) => this.onReply(thread, reply));
    worker.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') this.outOfMemory(thread);
      else this.failAll(new PoolBroken(`an index worker failed: ${err.message}`));
    });
    worker.on('exit', (code) => {
      if (!this.closed && this.threads.includes(thread)) this.failAll(new PoolBroken(`an index worker stopped (exit code ${code})`));
    });
    worker.unref();
    this.threads.push(thread);
    return thread;
  }

  private onReply(thread: Thread, reply: WorkerReply): void {
    const task = thread.busy.get(reply.id);
    thread.busy.delete(reply.id);
    if (thread.busy.size === 0) thread.worker.unref();
    if (task) {
      if (reply.ok) task.resolve(reply.result);
      else task.reject(new Error(reply.error));
    }
    this.dispatch();
  }

  /**
   * A task needed more than a thread's old generation: it fails alone, as broken (its caller does it on its own
   * thread, whose heap is not capped), and a fresh thread takes the next task.
   */
  private outOfMemory(thread: Thread): void {
    this.threads.splice(this.threads.indexOf(thread), 1);
    // (a source it was reading beside the one that needed more fails with it: the caller prepares both itself)
    for (const task of thread.busy.values()) task.reject(new PoolBroken(`a task needed more than an index worker's ${this.oldGenerationMb} MB`));
    thread.busy.clear();
    this.dispatch();
  }

  private failAll(err: PoolBroken): void {
    if (!this.broken && !this.closed) for (const t of this.threads) void t.worker.terminate(); // what they still do is lost anyway
    this.broken ??= err;
    for (const t of this.threads) {
      for (const task of t.busy.values()) task.reject(err);
      t.busy.clear();
    }
    for (const q of this.queue.splice(0)) q.reject(err);
  }
}

/** Whether a thread preparing sources takes one more (a thread on another kind of task takes none). */
function takesAnotherSource(thread: Thread): boolean {
  if (thread.busy.size >= PREPARE_DEPTH) return false;
  for (const q of thread.busy.values()) if (q.task.kind !== 'prepare') return false;
  return true;
}
