import type { CancellationSignal } from '../cancellation';
import type { DistilledExchange, DistillInput } from '../model';
import { redact } from './redact';

export type { DistillInput } from '../model';

/** One exchange's outcome: a distilled object, or a failure to record and retry later with backoff. */
export type DistillOutcome =
  | { readonly n: number; readonly ok: true; readonly value: DistilledExchange; readonly cached?: boolean }
  | { readonly n: number; readonly ok: false; readonly error: string; readonly retryAfterMs?: number };

/**
 * Marks, inside an LLM distiller, an exchange whose request was cancelled (not failed). Such exchanges
 * are left out of the outcomes `distill` returns, so the stage leaves them pending instead of counting a
 * failed attempt.
 */
export const CANCELLED_ERROR = 'cancelled';

/** The outcomes minus the cancelled ones (see CANCELLED_ERROR). */
export function withoutCancelled(outcomes: readonly DistillOutcome[]): DistillOutcome[] {
  return outcomes.filter((o) => o.ok || o.error !== CANCELLED_ERROR);
}

/**
 * Turns exchanges into distilled objects (paper 3.2). Implementations: the offline extractive distiller
 * (core/distill/offline.ts), the Anthropic one (core/distill/anthropic.ts) and VS Code's language models
 * (host/). A distiller never throws for one bad exchange: it reports an outcome per input.
 */
export interface Distiller {
  /** Stored with every result, e.g. `offline` or `anthropic`. */
  readonly name: string;
  /** Model id for LLM distillers (part of the cache key); undefined for the offline one. */
  readonly model?: string;
  /** Bumped whenever the prompt or the extraction rules change: part of the cache key. */
  readonly promptVersion: string;
  /** True when distilling sends text off the machine (needs the user's opt-in, redaction first). */
  readonly remote: boolean;
  distill(batch: readonly DistillInput[], token: CancellationSignal): Promise<DistillOutcome[]>;
}

/**
 * What every distiller is given: the exchange with its secrets redacted (redact.ts). A distilled object is
 * made of its input's words (the offline distiller copies a detail verbatim, cut to a few tokens, where a
 * token's prefix no longer looks like one), so what a distiller never sees it cannot store, and no core,
 * detail or room can hold a secret for search, `recent` or an agent to return.
 */
export function distillerInput(e: DistillInput): DistillInput {
  return { ...e, prompt: redact(e.prompt), verbatim: redact(e.verbatim), ...(e.title !== undefined ? { title: redact(e.title) } : {}) };
}
