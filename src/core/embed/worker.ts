/**
 * The embedding thread: loads a transformers.js feature-extraction pipeline and answers embed requests,
 * so tokenisation and ONNX inference never run on the extension host's thread. Started by
 * TransformersEmbedder; bundled on its own (esbuild entry `src/core/embed/worker.ts` ->
 * `dist/embedWorker.js`) and compiled by tsc to `out/src/core/embed/worker.js` for the tests.
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { FeatureExtractionPipeline } from '@huggingface/transformers' with { 'resolution-mode': 'import' };
import type { MainMessage, WorkerConfig, WorkerReply } from './workerProtocol';

const config = workerData as WorkerConfig;
const port = parentPort;
if (!port) throw new Error('worker.ts must run as a worker thread');

function reply(message: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && !err.message.includes(cause) ? `${err.message} (${cause})` : err.message;
}

/** A failed download says what it needs: a hub model comes from the network on first use only. */
function describeLoadFailure(err: unknown): string {
  const message = describe(err);
  if (err instanceof SyntaxError) return `a JSON file of the model is malformed (${message})`;
  if (config.offline && !config.localFolder && /not found locally/.test(message)) {
    return `it is not downloaded into ${config.cacheDir ?? "transformers.js's default cache"}, and this process never downloads a model`;
  }
  if (config.localFolder || !/fetch failed|ENOTFOUND|EAI_AGAIN|ECONN|ETIMEDOUT|network/i.test(message)) {
    return message;
  }
  const cache = config.cacheDir ?? "transformers.js's default cache";
  return `${message}; a hub model is downloaded once, on first use, from huggingface.co into ${cache}, which needs network access`;
}

/** Clear messages for the mistakes a user can make with a local folder, before transformers.js's own. */
async function checkLocalFolder(folder: string): Promise<void> {
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new Error(`the model folder ${folder} does not exist`);
  for (const file of ['config.json', 'tokenizer.json']) {
    if (!(await stat(path.join(folder, file)).catch(() => undefined))?.isFile()) {
      throw new Error(`the model folder ${folder} has no ${file}`);
    }
  }
}

async function load(): Promise<FeatureExtractionPipeline> {
  if (config.localFolder) await checkLocalFolder(config.model);
  // A real dynamic import: the package is ESM-first (its CJS build works too). TypeScript's Node16 module
  // mode and esbuild's CJS output both keep `import()` as is for an external package, so no
  // `new Function('return import(...)')` trick is needed.
  const { env, pipeline } = await import('@huggingface/transformers');
  let name = config.model;
  if (config.localFolder) {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = path.dirname(config.model);
    name = path.basename(config.model);
  } else if (config.offline) {
    // from the download cache only: transformers.js keeps a hub model there as `<cacheDir>/<org>/<name>/`,
    // which is also where a local model of that id is looked for (never the library's own /models/ folder)
    if (config.cacheDir) env.cacheDir = config.cacheDir;
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = env.cacheDir!;
  } else {
    env.allowRemoteModels = true;
    env.allowLocalModels = false; // a hub id must never be resolved against the library's own /models/ folder
    if (config.cacheDir) env.cacheDir = config.cacheDir;
  }
  const options: Parameters<typeof pipeline>[2] = {
    session_options: { intraOpNumThreads: config.threads, interOpNumThreads: 1 },
  };
  if (config.dtype) options.dtype = config.dtype as NonNullable<typeof options.dtype>;
  return (await pipeline('feature-extraction', name, options)) as FeatureExtractionPipeline;
}

/**
 * Embeds `texts` in batches of similar length (less padding for real transformers), returning one
 * row-major Float32Array. A row that is not finite (a text with no known token: mean of nothing, then
 * 0/0 in the normalisation) becomes the zero vector.
 */
async function embedAll(extractor: FeatureExtractionPipeline, texts: readonly string[]): Promise<{ flat: Float32Array; dimension: number }> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  let flat: Float32Array | undefined;
  let dimension = 0;
  for (let start = 0; start < order.length; start += config.batchSize) {
    const idx = order.slice(start, start + config.batchSize);
    const output = await extractor(idx.map((i) => texts[i]!), { pooling: 'mean', normalize: true });
    const data = output.data as Float32Array;
    dimension = output.dims[output.dims.length - 1]!;
    flat ??= new Float32Array(texts.length * dimension);
    idx.forEach((target, k) => {
      const row = data.subarray(k * dimension, (k + 1) * dimension);
      if (row.every(Number.isFinite)) flat!.set(row, target * dimension);
    });
  }
  return { flat: flat ?? new Float32Array(0), dimension };
}

const loaded = load();
let queue: Promise<unknown> = Promise.resolve();

loaded.then(
  async (extractor) => {
    const probe = await embedAll(extractor, ['dimension probe']);
    reply({ type: 'ready', dimension: probe.dimension });
  },
  (err: unknown) => reply({ type: 'load-failed', message: describeLoadFailure(err) }),
).catch((err: unknown) => reply({ type: 'load-failed', message: describe(err) }));

port.on('message', (request: MainMessage) => {
  // Runs on this thread between ONNX calls, never inside one: exiting here is safe (see MainMessage).
  if (request.type === 'close') process.exit(0);
  // One request at a time: concurrent runs of one ONNX session only fight over the same cores.
  queue = queue.then(async () => {
    try {
      const { flat, dimension } = await embedAll(await loaded, request.texts);
      reply({ type: 'result', id: request.id, flat, dimension }, [flat.buffer as ArrayBuffer]);
    } catch (err) {
      reply({ type: 'error', id: request.id, message: describe(err) });
    }
  });
});
