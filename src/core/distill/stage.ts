import { createHash } from 'node:crypto';
import { type CancellationSignal, NEVER_CANCELLED } from '../cancellation';
import { CLEAN, HOLDS_SECRET, redactionStamp } from '../redactionCheck';
import type { Db } from '../store/db';
import {
  cachedDistillation,
  countPendingDistillation,
  type DistilledRecord,
  type DistillFailure,
  knownRooms,
  pendingDistillation,
  saveDistillBatch,
} from '../store/distilledStore';
import { refreshRooms } from '../store/roomStats';
import { countTokens } from '../tokens';
import { type Distiller, type DistillInput, distillerInput, type DistillOutcome } from './distiller';
import { OfflineDistiller } from './offline';
import { RoomRegistry } from './rooms';
import { distilledText } from './types';

/**
 * The distill stage: runs after ingestion (and token counting) over the distiller's backlog: every exchange
 * without a distilled object, plus, for an LLM distiller, those distilled offline, and those distilled by
 * the same distiller under an older prompt version (distilledStore.ts DistillTarget). Resumable — what is written is done, what is not is still pending next time; each batch is one
 * transaction. LLM distillers (those with a `model`) first look in the content cache, so no exchange text
 * is ever paid for twice; failures are recorded with backoff and retried by a later run.
 */
export interface DistillStageOptions {
  /** Exchanges per distiller call and per transaction. */
  readonly batchSize?: number;
  /** Stop after this many exchanges (the CLI's --limit). */
  readonly limit?: number;
  readonly now?: () => number;
  /**
   * Runs the offline distiller's batches elsewhere (the index workers: distillOfflineBatch there), `depth` at a
   * time; a batch it fails is distilled here. Other distillers always run here. Given the stage's backlog (its
   * count), it says where, if anywhere, the batches go.
   */
  readonly offload?: (backlog: number) => Offload | undefined;
}

/** Where the offline distiller's batches run when not here (the index workers). */
export interface Offload {
  readonly run: (batch: readonly DistillInput[]) => Promise<DistilledBatch>;
  readonly depth: number;
  /**
   * Called once the last batch is written, before the rooms are counted: the threads are let go there (at the end
   * of a first index of 1 GB of transcripts they held ~180 MB of heap, idle, while SQLite counted the rooms).
   */
  readonly done?: () => Promise<void>;
}

export interface DistillProgress {
  readonly phase: 'distill';
  readonly done: number;
  readonly total: number;
}

export interface DistillReport {
  /** Exchanges given a distilled object in this run (cache hits included). */
  readonly distilled: number;
  readonly cacheHits: number;
  readonly failed: number;
  readonly ms: number;
  readonly cancelled: boolean;
}

/** One batch's results, ready to be written. */
export interface DistilledBatch {
  readonly records: DistilledRecord[];
  readonly failures: DistillFailure[];
  readonly cacheHits: number;
}

const DEFAULT_BATCH = 100;

export async function distillPending(
  db: Db,
  distiller: Distiller,
  onProgress: (p: DistillProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
  options: DistillStageOptions = {},
): Promise<DistillReport> {
  const started = performance.now();
  const now = options.now ?? Date.now;
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH);
  const limit = options.limit ?? Infinity;
  const total = Math.min(limit, await countPendingDistillation(db, now(), distiller));
  // LLM distillers' free-text keys merge one-letter typos into known rooms; the offline distiller's do not
  // (see RoomRegistry), and then the known rooms need not be read at all.
  const llm = distiller.model !== undefined;
  const registry = new RoomRegistry(llm);
  if (llm) for (const r of await knownRooms(db)) registry.add(r.type, r.key, r.project);
  const here = (batch: readonly DistillInput[]): Promise<DistilledBatch> => distillHere(db, distiller, registry, batch, token);
  // given the stage's own count (a second count of the backlog cost ~15-50 ms at 40,000 exchanges)
  const offload = isOffline(distiller) ? options.offload?.(total) : undefined;

  let distilled = 0;
  let cacheHits = 0;
  let failed = 0;
  let taken = 0;
  let afterN = 0;
  let exhausted = false;
  // batches being distilled, in store order: written in that order, whatever order they finish in
  const running: Array<Promise<DistilledBatch>> = [];
  onProgress({ phase: 'distill', done: 0, total });
  for (;;) {
    while (!exhausted && !token.isCancellationRequested && taken < limit && running.length < (offload?.depth ?? 1)) {
      const batch = await pendingDistillation(db, Math.min(batchSize, limit - taken), afterN, now(), distiller);
      if (batch.length === 0) {
        exhausted = true;
        break;
      }
      afterN = batch[batch.length - 1]!.n;
      taken += batch.length;
      running.push(offload ? offload.run(batch).catch(() => here(batch)) : here(batch));
    }
    const next = running.shift();
    if (!next) break;
    const { records, failures, cacheHits: hits } = await next;
    const saved = await saveDistillBatch(db, records, failures, now());
    distilled += saved.written;
    failed += saved.failed;
    cacheHits += hits;
    onProgress({ phase: 'distill', done: distilled + failed, total });
  }
  await offload?.done?.();
  await refreshRooms(db);
  return { distilled, cacheHits, failed, ms: performance.now() - started, cancelled: token.isCancellationRequested };
}

/** The offline distiller, whose batches can run on any thread (it needs nothing of the store). */
function isOffline(distiller: Distiller): boolean {
  return distiller instanceof OfflineDistiller;
}

/** One batch on this thread: an LLM distiller looks in the content cache first, so no exchange text is paid for twice. */
async function distillHere(db: Db, distiller: Distiller, registry: RoomRegistry, batch: readonly DistillInput[], token: CancellationSignal): Promise<DistilledBatch> {
  const outcomes: DistillOutcome[] = [];
  let toCall: readonly DistillInput[] = batch;
  if (distiller.model) {
    const misses: DistillInput[] = [];
    for (const e of batch) {
      const hit = await cachedDistillation(db, contentHash(e), distiller.promptVersion, distiller.model);
      if (hit) outcomes.push({ n: e.n, ok: true, value: hit, cached: true });
      else misses.push(e);
    }
    toCall = misses;
  }
  const called = toCall.length > 0 ? await callDistiller(distiller, toCall, token) : { outcomes: [], clean: new Set<number>() };
  outcomes.push(...called.outcomes);
  return batchRecords(distiller, registry, batch, outcomes, called.clean, token.isCancellationRequested);
}

/** The offline distiller's whole work on one batch, on any thread (an index worker's): no store is needed. */
export async function distillOfflineBatch(batch: readonly DistillInput[]): Promise<DistilledBatch> {
  const distiller = new OfflineDistiller();
  const { outcomes, clean } = await callDistiller(distiller, batch, NEVER_CANCELLED);
  return batchRecords(distiller, new RoomRegistry(false), batch, outcomes, clean, false);
}

/**
 * The records and failures of one batch from what the distiller answered: rooms resolved, distilled tokens
 * counted. An exchange the distiller did not answer is a failure, unless the run was cancelled under it.
 */
function batchRecords(
  distiller: Distiller,
  registry: RoomRegistry,
  batch: readonly DistillInput[],
  outcomes: readonly DistillOutcome[],
  clean: ReadonlySet<number>,
  cancelled: boolean,
): DistilledBatch {
  const byN = new Map(batch.map((e) => [e.n, e]));
  const records: DistilledRecord[] = [];
  const failures: DistillFailure[] = [];
  const answered = new Set<number>();
  let cacheHits = 0;
  for (const o of outcomes) {
    const input = byN.get(o.n);
    if (!input || answered.has(o.n)) continue;
    answered.add(o.n);
    if (o.ok) {
      records.push({
        n: o.n,
        exchangeId: input.exchangeId,
        value: o.value,
        rooms: registry.resolve(o.value.rooms, input.project),
        filesTouched: input.filesTouched,
        distiller: distiller.name,
        ...(distiller.model ? { model: distiller.model } : {}),
        promptVersion: distiller.promptVersion,
        contentHash: contentHash(input),
        tokens: countTokens(distilledText(o.value)),
        cache: distiller.model !== undefined && !o.cached,
        // a cached result's text was not given to the distiller, so not redacted yet: checked here
        redactionStamp: o.cached ? redactionStamp(input.verbatim) : clean.has(o.n) ? CLEAN : HOLDS_SECRET,
      });
      if (o.cached) cacheHits++;
    } else {
      failures.push({ n: o.n, exchangeId: input.exchangeId, distiller: distiller.name, error: o.error, ...(o.retryAfterMs ? { retryAfterMs: o.retryAfterMs } : {}) });
    }
  }
  if (!cancelled) {
    for (const e of batch) {
      if (!answered.has(e.n)) failures.push({ n: e.n, exchangeId: e.exchangeId, distiller: distiller.name, error: `${distiller.name} returned no result` });
    }
  }
  return { records, failures, cacheHits };
}

/**
 * Every distiller is given the exchanges with their secrets redacted (distillerInput); those whose verbatim text
 * redaction left as it was are `clean` (stored with the distilled object: a search need not redact it again). A
 * distiller reports per exchange and should not throw; one that does (a bug, a network stack that escaped its own
 * handling) fails the batch's exchanges, to be retried with backoff, instead of the run.
 */
async function callDistiller(
  distiller: Distiller,
  batch: readonly DistillInput[],
  token: CancellationSignal,
): Promise<{ outcomes: DistillOutcome[]; clean: Set<number> }> {
  const inputs = batch.map(distillerInput);
  const clean = new Set(batch.filter((e, i) => inputs[i]!.verbatim === e.verbatim).map((e) => e.n));
  try {
    return { outcomes: await distiller.distill(inputs, token), clean };
  } catch (err) {
    const error = `${distiller.name} failed: ${err instanceof Error ? err.message : String(err)}`;
    return { outcomes: batch.map((e) => ({ n: e.n, ok: false, error })), clean };
  }
}

/**
 * The cache key's content part: everything a distiller is shown (the prompt also carries the project and
 * the ply range), so a cached answer is only reused for exactly the same input.
 */
export function contentHash(e: Pick<DistillInput, 'project' | 'plyStart' | 'plyEnd' | 'verbatim'>): string {
  return createHash('sha256')
    .update(`${e.project ?? ''}\u0000${e.plyStart}\u0000${e.plyEnd}\u0000${e.verbatim}`)
    .digest('hex')
    .slice(0, 32);
}
