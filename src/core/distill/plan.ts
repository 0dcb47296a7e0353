import { countTokens } from '../tokens';
import type { DistillInput } from './distiller';
import { BATCH_PROMPT_VERSION, buildBatchPrompt, buildPrompt, loadPromptTemplate } from './prompt';
import type { SecretKind } from './redact';

/** USD per million tokens (settings `agentRecall.distill.pricePerMTokIn` / `…Out`). */
export interface DistillPrices {
  readonly pricePerMTokIn: number;
  readonly pricePerMTokOut: number;
}

export interface PlanOptions extends DistillPrices {
  /** Expected answer length; a two-room answer is ~100–160 tokens. */
  readonly outputTokensPerExchange?: number;
  /** How many prompts to keep, exactly as they would be sent (default 3). */
  readonly samples?: number;
  readonly template?: string;
  /** Exchanges per request, as the distiller's batchSize (default 1). */
  readonly batchSize?: number;
}

/** One request's prompt exactly as it would be sent, and the exchanges (store rows) it carries. */
export interface SentPrompt {
  readonly ns: readonly number[];
  readonly text: string;
}

/** What distilling `inputs` with an LLM would send and cost, computed without sending anything. */
export interface DistillPlan {
  readonly exchanges: number;
  /** One request per exchange (or per batch); repairs and retries come on top and are not predicted. */
  readonly requests: number;
  /** cl100k count of the prompts as they would be sent: close to, not equal to, the service's own count. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Secrets that would have been sent without redaction, by kind. */
  readonly redacted: Partial<Record<SecretKind, number>>;
  readonly exchangesWithSecrets: number;
  /** Exchanges cut to the 4,000-character budget. */
  readonly cutExchanges: number;
  readonly samples: readonly SentPrompt[];
  /** Set when the numbers were extrapolated from this many planned exchanges (scalePlan). */
  readonly sampledFrom?: number;
}

export const DEFAULT_OUTPUT_TOKENS_PER_EXCHANGE = 150;

/** The dry run behind `distill --dry-run` and the host's confirmation: builds every prompt, sends none. */
export function planDistillation(inputs: readonly DistillInput[], options: PlanOptions): DistillPlan {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1));
  const template = options.template ?? loadPromptTemplate(batchSize > 1 ? BATCH_PROMPT_VERSION : undefined);
  const perOut = options.outputTokensPerExchange ?? DEFAULT_OUTPUT_TOKENS_PER_EXCHANGE;
  const keep = options.samples ?? 3;
  const redacted: Partial<Record<SecretKind, number>> = {};
  const samples: SentPrompt[] = [];
  let inputTokens = 0;
  let requests = 0;
  let exchangesWithSecrets = 0;
  let cutExchanges = 0;
  for (const input of inputs) {
    // Each exchange is built alone once for its own counts, whatever the batch size.
    const p = buildPrompt(input, batchSize > 1 ? loadPromptTemplate() : template);
    const kinds = Object.entries(p.redacted) as [SecretKind, number][];
    if (kinds.length > 0) exchangesWithSecrets++;
    for (const [kind, n] of kinds) redacted[kind] = (redacted[kind] ?? 0) + n;
    if (p.cutChars > 0) cutExchanges++;
    if (batchSize === 1) {
      inputTokens += countTokens(p.text);
      requests++;
      if (samples.length < keep) samples.push({ ns: [p.n], text: p.text });
    }
  }
  for (let i = 0; batchSize > 1 && i < inputs.length; i += batchSize) {
    const b = buildBatchPrompt(inputs.slice(i, i + batchSize), template);
    inputTokens += countTokens(b.text);
    requests++;
    if (samples.length < keep) samples.push({ ns: b.ns, text: b.text });
  }
  const outputTokens = inputs.length * perOut;
  const costUsd = (inputTokens * options.pricePerMTokIn + outputTokens * options.pricePerMTokOut) / 1_000_000;
  return { exchanges: inputs.length, requests, inputTokens, outputTokens, costUsd, redacted, exchangesWithSecrets, cutExchanges, samples };
}

/**
 * A plan over a sample, extrapolated to `exchanges` (a large backlog is not tokenized just to ask).
 * Redaction and cut counts stay those of the sample; `sampledFrom` says so.
 */
export function scalePlan(plan: DistillPlan, exchanges: number): DistillPlan {
  if (plan.exchanges === 0 || exchanges <= plan.exchanges) return plan;
  const f = exchanges / plan.exchanges;
  return {
    ...plan,
    exchanges,
    requests: Math.ceil(plan.requests * f),
    inputTokens: Math.round(plan.inputTokens * f),
    outputTokens: Math.round(plan.outputTokens * f),
    costUsd: plan.costUsd * f,
    sampledFrom: plan.exchanges,
  };
}

/** A few lines for a terminal or a confirmation dialog. */
export function formatPlan(plan: DistillPlan, destination: string): string {
  const secrets = Object.entries(plan.redacted)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `${plan.exchanges} exchanges -> ${plan.requests} requests to ${destination} (plus repairs and retries if needed)`,
    `~${plan.inputTokens.toLocaleString('en-US')} input tokens, ~${plan.outputTokens.toLocaleString('en-US')} output tokens (cl100k estimate)`,
    `estimated cost: $${plan.costUsd.toFixed(2)}`,
    `${plan.cutExchanges} exchanges cut to 4,000 characters`,
    plan.exchangesWithSecrets > 0 ? `secrets redacted before sending in ${plan.exchangesWithSecrets} exchanges: ${secrets}` : 'no secrets found to redact',
    ...(plan.sampledFrom ? [`(estimated from the first ${plan.sampledFrom}; counts of cuts and secrets are theirs)`] : []),
  ].join('\n');
}
