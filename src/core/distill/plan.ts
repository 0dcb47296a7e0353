import { countTokens } from '../tokens';
import type { DistillInput } from './distiller';
import { buildPrompt, loadPromptTemplate, type BuiltPrompt } from './prompt';
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
}

/** What distilling `inputs` with an LLM would send and cost, computed without sending anything. */
export interface DistillPlan {
  readonly exchanges: number;
  /** One request per exchange; repairs and retries come on top and are not predicted. */
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
  readonly samples: readonly BuiltPrompt[];
}

export const DEFAULT_OUTPUT_TOKENS_PER_EXCHANGE = 150;

/** The dry run behind `distill --dry-run` and the host's confirmation: builds every prompt, sends none. */
export function planDistillation(inputs: readonly DistillInput[], options: PlanOptions): DistillPlan {
  const template = options.template ?? loadPromptTemplate();
  const perOut = options.outputTokensPerExchange ?? DEFAULT_OUTPUT_TOKENS_PER_EXCHANGE;
  const keep = options.samples ?? 3;
  const redacted: Partial<Record<SecretKind, number>> = {};
  const samples: BuiltPrompt[] = [];
  let inputTokens = 0;
  let exchangesWithSecrets = 0;
  let cutExchanges = 0;
  for (const input of inputs) {
    const p = buildPrompt(input, template);
    inputTokens += countTokens(p.text);
    const kinds = Object.entries(p.redacted) as [SecretKind, number][];
    if (kinds.length > 0) exchangesWithSecrets++;
    for (const [kind, n] of kinds) redacted[kind] = (redacted[kind] ?? 0) + n;
    if (p.cutChars > 0) cutExchanges++;
    if (samples.length < keep) samples.push(p);
  }
  const outputTokens = inputs.length * perOut;
  const costUsd = (inputTokens * options.pricePerMTokIn + outputTokens * options.pricePerMTokOut) / 1_000_000;
  return { exchanges: inputs.length, requests: inputs.length, inputTokens, outputTokens, costUsd, redacted, exchangesWithSecrets, cutExchanges, samples };
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
  ].join('\n');
}
