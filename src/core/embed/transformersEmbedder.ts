import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { RecallError } from '../errors';
import type { Embedder } from './embedder';
import type { MainMessage, WorkerConfig, WorkerReply } from './workerProtocol';

export interface TransformersEmbedderOptions {
  /**
   * A Hugging Face hub id (`Xenova/all-MiniLM-L6-v2`, downloaded on first use into `cacheDir`) or an
   * ABSOLUTE path to a local model folder (config.json, tokenizer.json, onnx/model.onnx), used offline.
   */
  readonly model: string;
  /** Stored with each vector; defaults to the hub id, or `local:<folder name>` for a local folder. */
  readonly modelId?: string;
  /** Download cache for hub models. Pass the extension's global storage: the library's default lies inside
   *  node_modules, which an extension update wipes. */
  readonly cacheDir?: string;
  /** Load a hub model from `cacheDir` only, never from the network (what a background server may do). */
  readonly offline?: boolean;
  /** transformers.js dtype, e.g. 'fp32' or 'q8'; the model's default when absent. */
  readonly dtype?: string;
  /** Texts per inference call (default 32). */
  readonly batchSize?: number;
  /** ONNX Runtime threads (default: all cores but one, at least one, so the host keeps a core). */
  readonly threads?: number;
  /** The worker script; default `embedWorker.js` (bundle) or `worker.js` (tsc output) next to this file. */
  readonly workerScript?: string;
  /** Give up loading after this long (default 5 minutes: a first download can be slow). */
  readonly loadTimeoutMs?: number;
}

interface Pending {
  readonly count: number;
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (err: RecallError) => void;
}

const DEFAULT_BATCH = 32;
const DEFAULT_LOAD_TIMEOUT_MS = 5 * 60_000;

/** The worker script shipped next to this module: the esbuild bundle's or tsc's. */
export function defaultWorkerScript(): string {
  const candidates = [path.join(__dirname, 'embedWorker.js'), path.join(__dirname, 'worker.js')];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/**
 * Asks the worker to exit at its next safe point. Never `worker.terminate()`: see MainMessage. The worker
 * stays ref'd until it has exited, for the same reason: a process that exits while its worker is inside
 * an ONNX call aborts instead of exiting.
 */
function close(worker: Worker): void {
  const message: MainMessage = { type: 'close' };
  worker.postMessage(message);
  worker.ref();
}

/**
 * Runs a transformers.js feature-extraction pipeline (mean pooling, L2 normalisation) in a worker
 * thread. Create it with `TransformersEmbedder.load`, which resolves once the model runs and its
 * dimension is known, or rejects with RecallError('model-unavailable') explaining why, so the caller
 * can fall back to lexical search.
 *
 * The worker holds the process open only while a request is in flight, so a CLI that forgets
 * `dispose()` still exits.
 */
export class TransformersEmbedder implements Embedder {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: RecallError | undefined;
  private disposed = false;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    readonly modelId: string,
    readonly dimension: number,
    private readonly model: string,
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    worker.on('error', (err) => this.fail(`the embedding worker crashed: ${err.message}`, err));
    worker.on('exit', (code) => this.fail(`the embedding worker stopped (exit code ${code})`));
    worker.unref();
  }

  static load(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const localFolder = path.isAbsolute(options.model);
    const modelId = options.modelId ?? (localFolder ? `local:${path.basename(options.model)}` : options.model);
    const config: WorkerConfig = {
      model: options.model,
      localFolder,
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      ...(options.offline ? { offline: true } : {}),
      ...(options.dtype ? { dtype: options.dtype } : {}),
      threads: options.threads ?? Math.max(1, availableParallelism() - 1),
      batchSize: Math.max(1, options.batchSize ?? DEFAULT_BATCH),
    };
    const script = options.workerScript ?? defaultWorkerScript();
    const unavailable = (reason: string, cause?: unknown) =>
      new RecallError(
        'model-unavailable',
        `Cannot load the embedding model "${options.model}": ${reason.replace(/\.+$/, '')}. Semantic search is off; lexical search still works.`,
        cause === undefined ? {} : { cause },
      );

    return new Promise((resolve, reject) => {
      if (!existsSync(script)) {
        reject(unavailable(`the embedding worker script ${script} is missing`));
        return;
      }
      let worker: Worker;
      try {
        // (required when first used: the MCP server, which starts none, does not load the module: ~4 ms of its start)
        const threads = require('node:worker_threads') as typeof import('node:worker_threads');
        worker = new threads.Worker(script, { workerData: config });
      } catch (err) {
        reject(unavailable(`the embedding worker did not start (${(err as Error).message})`, err));
        return;
      }
      let settled = false;
      const settle = (outcome: TransformersEmbedder | RecallError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (outcome instanceof RecallError) {
          close(worker);
          reject(outcome);
        } else {
          resolve(outcome);
        }
      };
      const onMessage = (reply: WorkerReply) => {
        if (reply.type === 'ready') settle(new TransformersEmbedder(worker, modelId, reply.dimension, options.model));
        else if (reply.type === 'load-failed') settle(unavailable(reply.message));
      };
      const onError = (err: Error) => settle(unavailable(`the embedding worker crashed (${err.message})`, err));
      const onExit = (code: number) => settle(unavailable(`the embedding worker stopped while loading (exit code ${code})`));
      const timeoutMs = options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
      const timer = setTimeout(() => settle(unavailable(`loading took longer than ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { count: texts.length, resolve, reject });
      this.worker.ref();
      const request: MainMessage = { type: 'embed', id, texts: [...texts] };
      this.worker.postMessage(request);
    });
  }

  /** Rejects waiting calls at once; resolves when the worker has exited (after at most one batch). */
  async dispose(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      this.fail('the embedder was disposed');
      close(this.worker);
    }
    await this.exited;
  }

  private onReply(reply: WorkerReply): void {
    if (reply.type !== 'result' && reply.type !== 'error') return;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.type === 'error') {
      pending.reject(this.error(`embedding failed: ${reply.message}`));
      return;
    }
    const { flat, dimension } = reply;
    const vectors: Float32Array[] = [];
    for (let i = 0; i < pending.count; i++) vectors.push(flat.slice(i * dimension, (i + 1) * dimension));
    pending.resolve(vectors);
  }

  /** The worker is gone (or disposed): every waiting and later call rejects with the same error. */
  private fail(reason: string, cause?: unknown): void {
    if (this.failure) return;
    this.failure = this.error(reason, cause);
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }

  private error(reason: string, cause?: unknown): RecallError {
    return new RecallError(
      'model-unavailable',
      `The embedding model "${this.model}" is unavailable: ${reason.replace(/\.+$/, '')}. Semantic search is off; lexical search still works.`,
      cause === undefined ? {} : { cause },
    );
  }
}
