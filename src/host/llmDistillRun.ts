import type * as vscode from 'vscode';
import type { Distiller } from '../core/distill/distiller';
import { planDistillation, scalePlan } from '../core/distill/plan';
import type { DistillGate, IndexOptions } from '../core/memory';
import type { Config } from './config';
import { chooseDistiller, type ChoiceDeps } from './distillerChoice';
import { confirmBacklog } from './distillConsent';

/** What an indexing run does about distillation when an LLM distiller is configured. */
export type LlmRun =
  /** Offline is configured: the indexer's own stage runs. */
  | { readonly kind: 'offline' }
  /** An LLM distiller is configured but cannot be used now: no distill stage (no offline objects that would shadow the LLM ones). */
  | { readonly kind: 'wait'; readonly reason: string }
  | { readonly kind: 'llm'; readonly distiller: Distiller; readonly destination: string };

/** Background runs send a backlog larger than this only after an explicit run showed its cost. */
export const BACKGROUND_SEND_LIMIT = 50;
/** The cost of a larger backlog is estimated from this many exchanges. */
const PLAN_SAMPLE = 300;

/** Before ingestion: which distiller this run uses. Explicit runs may show the consent dialog. */
export async function prepareLlmRun(deps: ChoiceDeps): Promise<LlmRun> {
  let choice;
  try {
    choice = await chooseDistiller(deps);
  } catch (err) {
    // e.g. the prompt file missing from the installation: indexing goes on, distillation waits
    return { kind: 'wait', reason: `Distillation waits: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (choice.kind !== 'offline') return { kind: 'llm', distiller: choice.distiller, destination: choice.destination };
  if (choice.configured === 'offline') return { kind: 'offline' };
  return { kind: 'wait', reason: `Distillation waits: ${choice.reason ?? 'the LLM distiller is unavailable.'}` };
}

/**
 * After ingestion: whether the LLM distiller may run on the backlog. An explicit run first shows the
 * backlog's requests, tokens and cost (the dry run) and sends only after "Distill"; a background run sends
 * only a small increment and otherwise leaves a note.
 */
export function llmDistillGate(
  run: Extract<LlmRun, { kind: 'llm' }>,
  options: { readonly explicit: boolean; readonly prices: { pricePerMTokIn: number; pricePerMTokOut: number }; readonly batchSize: number },
): DistillGate {
  return async (backlog) => {
    const pending = await backlog.count();
    if (pending === 0) return {};
    if (!options.explicit && pending > BACKGROUND_SEND_LIMIT) {
      return { note: `${pending} exchanges wait for distillation by ${run.destination}: run "Index New Transcripts" to review the cost first.` };
    }
    if (options.explicit) {
      const sample = await backlog.sample(PLAN_SAMPLE);
      const plan = scalePlan(planDistillation(sample, { ...options.prices, batchSize: options.batchSize }), pending);
      if (!(await confirmBacklog(plan, run.destination))) return { note: `${pending} exchanges wait for distillation (sending was not confirmed).` };
    }
    return { distiller: run.distiller };
  };
}

/** The LLM side of indexing runs, for IndexService: settings, secrets and consent memory bound once. */
export class LlmDistillation {
  constructor(
    private readonly config: Config,
    private readonly secrets: vscode.SecretStorage,
    private readonly memento: vscode.Memento,
  ) {}

  prepare(explicit: boolean): Promise<LlmRun> {
    return prepareLlmRun({ settings: this.config.distill, secrets: this.secrets, memento: this.memento, interactive: explicit });
  }

  /** What an index run is given as its distiller for `run` (see IndexOptions.distiller). */
  distillerFor(run: LlmRun, explicit: boolean): IndexOptions['distiller'] {
    if (run.kind === 'offline') return undefined;
    if (run.kind === 'wait') return async () => ({ note: run.reason });
    const s = this.config.distill;
    const batchSize = run.distiller.name === 'anthropic' ? s.anthropic.batchSize : 1;
    return llmDistillGate(run, { explicit, prices: s, batchSize });
  }
}
