/** Messages between TransformersEmbedder (main thread) and worker.ts (the embedding thread). */

/** Passed as `workerData`: what to load and how. */
export interface WorkerConfig {
  /** A Hugging Face hub id, or an absolute path to a local model folder (see `localFolder`). */
  readonly model: string;
  readonly localFolder: boolean;
  /** Where hub downloads are cached (transformers.js `env.cacheDir`). */
  readonly cacheDir?: string;
  /** Never download: a hub model loads from `cacheDir` or not at all. */
  readonly offline?: boolean;
  /** transformers.js `dtype` (e.g. 'fp32', 'q8'); the model's own default when absent. */
  readonly dtype?: string;
  /** ONNX Runtime intra-op threads. */
  readonly threads: number;
  readonly batchSize: number;
}

/**
 * main -> worker. `close` is the ONLY way to stop the worker: Worker.terminate() while the thread is inside
 * a synchronous onnxruntime-node call (loadModel or run) aborts the whole process ("terminate called after
 * throwing an instance of 'Napi::Error'") — in VS Code, the extension host. The worker handles `close` on
 * its own JS thread, hence never inside such a call, and exits there.
 */
export type MainMessage =
  | { readonly type: 'embed'; readonly id: number; readonly texts: readonly string[] }
  | { readonly type: 'close' };

/** worker -> main */
export type WorkerReply =
  | { readonly type: 'ready'; readonly dimension: number }
  | { readonly type: 'load-failed'; readonly message: string }
  /** `flat` holds texts.length * dimension floats, row-major; its buffer is transferred. */
  | { readonly type: 'result'; readonly id: number; readonly flat: Float32Array; readonly dimension: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
