import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { CancellationSignal } from '../cancellation';
import type { Embedder } from '../embed/embedder';
import { RecallError, type RecallErrorCode } from '../errors';
import type { IndexOptions, IndexProgress, IndexReport } from '../indexer';
import type { Layer } from '../search/types';
import { codeStamp, type DiscoveredSource } from '../sources/discover';
import { ADAPTERS } from '../sources/registry';

/**
 * An index run on a thread of its own (runWorker.ts), with its own connection to the store's file, so the calling
 * thread (the extension host's) only relays progress and embeds: every write, the lexicon's merges, distillation's
 * collections and the rooms are on that thread's loop and heap, not the caller's. It starts its own parse and
 * distill workers as a run does. The store is the same as a run on the calling thread: the same function runs
 * there (indexWorkspace), and the caller's connection reads each group as it is committed (WAL).
 *
 * What stays with the caller, since only it has it: the embedding model (the thread asks it for each batch's
 * vectors: `embed` requests) and the cancellation token (polled here, passed as a shared flag). An LLM distiller or
 * a gate deciding one (a network client, the user's consent) does not cross: such a run stays on the calling thread
 * (`runsApart`).
 */

/** A source as it crosses: its adapter by its place in the registry. */
export interface SourceOnThread {
  readonly path: string;
  readonly adapter: number;
  readonly project?: string;
  readonly within?: readonly string[];
}

/** What the run's thread is given: the options that cross, the model as its name and size. */
export interface ApartStart {
  readonly file: string;
  readonly discover: IndexOptions['discover'];
  readonly segment: IndexOptions['segment'];
  readonly distill: boolean;
  readonly parallel?: IndexOptions['parallel'];
  readonly sources?: readonly SourceOnThread[];
  readonly embed?: { readonly modelId: string; readonly dimension: number; readonly layers?: readonly Layer[] };
  /** The calling build's stamp (codeStamp): the thread keeps its discovery memo under the key its caller reads. */
  readonly build: string;
  /** One Int32: 1 once the run is to stop. */
  readonly cancel: SharedArrayBuffer;
}

export type ApartReport = Omit<IndexReport, 'discovered'> & { readonly discovered?: readonly SourceOnThread[] };

/** What the run's thread posts. */
export type FromRun =
  | { readonly kind: 'progress'; readonly progress: IndexProgress }
  | { readonly kind: 'embed'; readonly id: number; readonly texts: readonly string[] }
  | { readonly kind: 'done'; readonly report: ApartReport }
  | { readonly kind: 'failed'; readonly message: string; readonly code?: RecallErrorCode };

/** What the calling thread answers an `embed` with. */
export type ToRun = { readonly kind: 'embedded'; readonly id: number } & ({ readonly vectors: Float32Array[] } | { readonly message: string; readonly code?: RecallErrorCode });

/** The run's thread could not be started (its script missing): the caller runs the index itself. */
export class ApartUnavailable extends Error {}

/** How often the caller's cancellation token is looked at while the run is on its thread. */
const CANCEL_POLL_MS = 25;

/** The script beside this module: the bundle's (dist/runWorker.js) or tsc's (out/src/core/workers/runWorker.js). */
export function runWorkerScript(): string {
  return path.join(__dirname, 'runWorker.js');
}

/** Whether a run with these options can go to a thread of its own (else it runs on the calling thread). */
export function runsApart(options: IndexOptions): boolean {
  if (!options.apart || options.parallel?.threads === 0) return false;
  if (options.distiller !== undefined && options.distiller !== false) return false;
  return !options.sources || options.sources.every((s) => ADAPTERS.includes(s.adapter));
}

export function sourceOnThread(s: DiscoveredSource): SourceOnThread {
  return { path: s.path, adapter: ADAPTERS.indexOf(s.adapter), ...(s.project !== undefined ? { project: s.project } : {}), ...(s.within ? { within: s.within } : {}) };
}

export function sourceFromThread(s: SourceOnThread): DiscoveredSource {
  return { path: s.path, adapter: ADAPTERS[s.adapter]!, ...(s.project !== undefined ? { project: s.project } : {}), ...(s.within ? { within: s.within } : {}) };
}

/**
 * Runs `options`' index run on a thread of its own over the store in `file` (open in this process already, so
 * created and migrated). Rejects with the run's own error (its RecallError code kept), or, when the thread dies,
 * with one saying so: what its committed groups wrote is kept, and the next run goes on from there.
 */
export function runApart(
  file: string,
  options: IndexOptions,
  onProgress: (p: IndexProgress) => void,
  token: CancellationSignal,
  script = options.parallel?.runScript ?? runWorkerScript(),
): Promise<IndexReport> {
  if (!existsSync(script)) return Promise.reject(new ApartUnavailable(`the index run's script ${script} is missing`));
  const cancel = new SharedArrayBuffer(4);
  const flag = new Int32Array(cancel);
  const embedder = options.embed?.embedder;
  const start: ApartStart = {
    file,
    discover: options.discover,
    segment: options.segment,
    distill: options.distiller !== false,
    ...(options.parallel ? { parallel: options.parallel } : {}),
    ...(options.sources ? { sources: options.sources.map(sourceOnThread) } : {}),
    ...(embedder ? { embed: { modelId: embedder.modelId, dimension: embedder.dimension, ...(options.embed?.layers ? { layers: options.embed.layers } : {}) } } : {}),
    build: codeStamp(),
    cancel,
  };
  let worker: Worker;
  try {
    const threads = require('node:worker_threads') as typeof import('node:worker_threads');
    worker = new threads.Worker(script, { workerData: start });
  } catch (err) {
    return Promise.reject(new ApartUnavailable(`the index run's thread did not start (${(err as Error).message})`));
  }
  // the token is a getter to poll: looked at on a timer, at each message and before each answer
  const passCancel = (): void => {
    if (token.isCancellationRequested) Atomics.store(flag, 0, 1);
  };
  passCancel();
  return new Promise<IndexReport>((resolve, reject) => {
    let settled = false;
    const poll = setInterval(passCancel, CANCEL_POLL_MS);
    poll.unref();
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      fn();
    };
    worker.on('message', (message: FromRun) => {
      passCancel();
      switch (message.kind) {
        case 'progress':
          onProgress(message.progress);
          passCancel();
          return;
        case 'embed':
          void answerEmbed(worker, embedder, message.id, message.texts, passCancel);
          return;
        case 'done':
          return settle(() => resolve(reportFromThread(message.report)));
        case 'failed':
          return settle(() => reject(message.code ? new RecallError(message.code, message.message) : new Error(message.message)));
      }
    });
    worker.on('error', (err) => settle(() => reject(threadStopped(file, err.message))));
    worker.on('exit', (code) => settle(() => reject(threadStopped(file, `exit code ${code}`))));
  });
}

function threadStopped(file: string, why: string): Error {
  return new Error(`The index run's thread stopped (${why}); what it had written to ${file} is kept, and the next run goes on from there.`);
}

async function answerEmbed(worker: Worker, embedder: Embedder | undefined, id: number, texts: readonly string[], passCancel: () => void): Promise<void> {
  try {
    if (!embedder) throw new Error('this run has no embedding model');
    // a table the model makes at its first embedding (the built-in one's: 45-80 ms at once) is made a slice at a time
    await embedder.prepare?.();
    const vectors = await embedder.embed(texts);
    passCancel();
    worker.postMessage({ kind: 'embedded', id, vectors } satisfies ToRun);
  } catch (err) {
    const code = err instanceof RecallError ? err.code : undefined;
    worker.postMessage({ kind: 'embedded', id, message: (err as Error).message, ...(code ? { code } : {}) } satisfies ToRun);
  }
}

function reportFromThread(report: ApartReport): IndexReport {
  const { discovered, ...rest } = report;
  return { ...rest, ...(discovered ? { discovered: discovered.map(sourceFromThread) } : {}) };
}
