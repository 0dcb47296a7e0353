import type { DistillInput } from '../model';
import type { DistilledBatch } from '../distill/stage';
import type { EncodedSource } from '../prepareSource';
import type { SegmentOptions } from '../segment';
import type { SameBytes, SourceRead } from '../sourceRead';
import type { SourceState } from '../store/rows';

/**
 * What the index run asks of its worker threads (pool.ts -> indexWorker.ts) and what they answer. Everything
 * crosses by structured clone; an adapter crosses as its place in the registry (sources/registry.ts).
 */
export type IndexTask = PrepareTask | DistillTask | CountTask | RedactionTask;

/**
 * Read (unless `read` is given: a database source, read by the thread that holds SQLite), parse and segment one
 * source; its exchanges come back with their token counts and index text (prepareSource.ts), as bytes (EncodedSource).
 */
export interface PrepareTask {
  readonly kind: 'prepare';
  readonly file: string;
  /** The adapter's index in ADAPTERS. */
  readonly adapter: number;
  readonly prev?: SourceState | undefined;
  readonly read?: SourceRead | undefined;
  readonly segment: SegmentOptions;
  readonly project?: string | undefined;
  readonly within?: readonly string[] | undefined;
}

/**
 * Distill a batch with the offline distiller, redacted first (distillerInput), and make the records to write; count
 * the verbatim tokens of the exchanges `count` names (stored without a count: the text is in hand here).
 */
export interface DistillTask {
  readonly kind: 'distill';
  readonly batch: readonly DistillInput[];
  readonly count: readonly number[];
}

export interface DistillAnswer {
  readonly distilled: DistilledBatch;
  readonly tokens: Array<{ readonly n: number; readonly id: string; readonly tokens: number }>;
}

/** cl100k token counts of texts (the count stage's backlog: exchanges an older run stored uncounted). */
export interface CountTask {
  readonly kind: 'count';
  readonly texts: readonly string[];
}

/** Redaction stamps of texts (the redaction stage's backlog: exchanges distilled before stamps, or under older rules). */
export interface RedactionTask {
  readonly kind: 'redaction';
  readonly texts: readonly string[];
}

export type IndexTaskResult<T extends IndexTask> = T extends PrepareTask
  ? EncodedSource | 'unchanged' | SameBytes
  : T extends DistillTask
    ? DistillAnswer
    : T extends CountTask
      ? number[]
      : T extends RedactionTask
        ? string[]
        : never;

/** A task as the pool posts it: with an id its answer names (a thread may hold two sources to prepare at once). */
export interface PostedTask {
  readonly id: number;
  readonly task: IndexTask;
}

export type WorkerReply = { readonly id: number } & ({ readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: string });
