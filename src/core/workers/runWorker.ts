import { parentPort, workerData } from 'node:worker_threads';
import type { CancellationSignal } from '../cancellation';
import type { Embedder } from '../embed/embedder';
import { RecallError } from '../errors';
import { type IndexOptions, indexWorkspace } from '../indexer';
import { DiscoveryMemo } from '../sources/discover';
import { Store } from '../store/store';
import { type ApartReport, type ApartStart, type FromRun, sourceFromThread, sourceOnThread, type ToRun } from './apartRun';

/**
 * An index run on a thread of its own (apartRun.ts): the whole of `indexWorkspace` over a connection of its own,
 * posting its progress and its report. Discovery's memo is the store's (a fresh one restores what the last run
 * kept), under the calling build's key (this bundle's file is not the caller's); the embedding model is the calling
 * thread's, asked batch by batch.
 */
const port = parentPort;
if (!port) throw new Error('runWorker.ts runs as a worker thread');
const start = workerData as ApartStart;
const post = (message: FromRun): void => port.postMessage(message);

const cancel = new Int32Array(start.cancel);
const token: CancellationSignal = {
  get isCancellationRequested() {
    return Atomics.load(cancel, 0) === 1;
  },
};

/** The caller's model: each batch's texts go there and its vectors come back. */
const waiting = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
let nextId = 0;
port.on('message', (answer: ToRun) => {
  const asked = waiting.get(answer.id);
  waiting.delete(answer.id);
  if (!asked) return;
  if ('vectors' in answer) asked.resolve(answer.vectors);
  else asked.reject(answer.code ? new RecallError(answer.code, answer.message) : new Error(answer.message));
});
const embedder = (model: NonNullable<ApartStart['embed']>): Embedder => ({
  modelId: model.modelId,
  dimension: model.dimension,
  embed: (texts) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      post({ kind: 'embed', id, texts });
    }),
  dispose: async () => undefined,
});

async function run(): Promise<ApartReport> {
  const store = await Store.openBeside(start.file);
  try {
    const options: IndexOptions = {
      discover: start.discover,
      segment: start.segment,
      ...(start.distill ? {} : { distiller: false }),
      ...(start.parallel ? { parallel: start.parallel } : {}),
      ...(start.sources ? { sources: start.sources.map(sourceFromThread) } : {}),
      ...(start.embed ? { embed: { embedder: embedder(start.embed), ...(start.embed.layers ? { layers: start.embed.layers } : {}) } } : {}),
      // this thread's heap is the run's alone: collecting it holds no one else (unlike the extension host's)
      collectAfterParse: true,
    };
    const report = await store.unmappedWhile(() => indexWorkspace(store, options, (progress) => post({ kind: 'progress', progress }), token, new DiscoveryMemo(start.build)));
    const { discovered, ...rest } = report;
    return { ...rest, ...(discovered ? { discovered: discovered.map(sourceOnThread) } : {}) };
  } finally {
    await store.close();
  }
}

run().then(
  (report) => post({ kind: 'done', report }),
  (err: unknown) => post({ kind: 'failed', message: err instanceof Error ? err.message : String(err), ...(err instanceof RecallError ? { code: err.code } : {}) }),
).finally(() => port.close());
