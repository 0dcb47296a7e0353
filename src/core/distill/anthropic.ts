import Anthropic, { APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { CancellationSignal } from '../cancellation';
import { RecallError } from '../errors';
import { CANCELLED_ERROR, withoutCancelled, type DistillInput, type DistillOutcome, type Distiller } from './distiller';
import { mapLimited, sleep } from '../concurrency';
import { BATCH_PROMPT_VERSION, buildBatchPrompt, buildPrompt, loadPromptTemplate, PROMPT_VERSION } from './prompt';
import { backoffMs, isFatalStatus, isRetryableStatus, retryAfterMs } from './retryPolicy';
import { parseBatchOutput, parseDistillOutput, repairRequest } from './validate';

/** A Haiku-class model, as in the paper (Claude Haiku 4.5). */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/**
 * The CLI's source of the key: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL when set). Throws a message that
 * names the fix when the key is missing.
 */
export function anthropicEnv(env: NodeJS.ProcessEnv = process.env): { apiKey: string; baseURL?: string } {
  const apiKey = env['ANTHROPIC_API_KEY']?.trim();
  if (!apiKey) throw new RecallError('bad-argument', 'The anthropic distiller needs ANTHROPIC_API_KEY in the environment.');
  const baseURL = env['ANTHROPIC_BASE_URL']?.trim();
  return baseURL ? { apiKey, baseURL } : { apiKey };
}

export interface AnthropicDistillerOptions {
  /** The host passes the key from SecretStorage, the CLI passes ANTHROPIC_API_KEY. */
  readonly apiKey: string;
  readonly model?: string;
  /** Another endpoint speaking the Messages API (a proxy, a gateway, the tests' local server). */
  readonly baseURL?: string;
  /** Requests in flight at most (default 4). */
  readonly concurrency?: number;
  /** Retries of one request after a retryable failure (default 2). */
  readonly maxRetries?: number;
  /** Per-request timeout (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * The longest wait done in-process before a retry (default 60 s). A server asking for more ends the
   * request with a failure outcome carrying `retryAfterMs`, which the stage records and retries later.
   */
  readonly maxWaitMs?: number;
  /** max_tokens of each answer (default 512: the object is ~100–200 tokens). */
  readonly maxOutputTokens?: number;
  /** How often the cancellation signal is polled to abort requests in flight (default 50 ms). */
  readonly cancelPollMs?: number;
  /** Template override (tests); by default prompts/<PROMPT_VERSION>.md. */
  readonly promptTemplate?: string;
  /**
   * Exchanges per request (default 1). Above 1 the batch prompt is used: its instructions are paid once
   * per request; exchanges missing or invalid in a batch answer are retried one by one.
   */
  readonly batchSize?: number;
}

/** Tokens and requests as the service counted them, summed over the distiller's life. */
export interface AnthropicUsage {
  requests: number;
  repairs: number;
  /** Exchanges a batch answer lacked (or got wrong), distilled again one by one. */
  batchFallbacks: number;
  inputTokens: number;
  outputTokens: number;
}

type Message = { role: 'user' | 'assistant'; content: string };
type CallResult = { ok: true; text: string } | { ok: false; error: string; retryAfterMs?: number };

/**
 * The Anthropic distiller (paper 3.2, Appendix B): one Messages API request per exchange, text redacted
 * of secrets before it is sent, the answer validated, one repair round for an invalid answer. The SDK's
 * own retries are off: this class retries itself so that a rate limit pauses every worker (not just the
 * one that hit it), so that waits are cancellable, and so that a long `retry-after` becomes a recorded
 * outcome instead of a stalled run.
 */
export class AnthropicDistiller implements Distiller {
  readonly name = 'anthropic';
  readonly promptVersion: string;
  readonly remote = true;
  readonly model: string;
  readonly usage: AnthropicUsage = { requests: 0, repairs: 0, batchFallbacks: 0, inputTokens: 0, outputTokens: 0 };

  private readonly client: Anthropic;
  private readonly template: string;
  private readonly batchTemplate: string | undefined;
  private readonly batchSize: number;
  /** Set by a 429/529: no worker starts a request before this time. */
  private pausedUntil = 0;
  /** Set by an answer that will repeat for every request (bad key, unknown model). */
  private fatal: string | undefined;

  constructor(private readonly options: AnthropicDistillerOptions) {
    if (!options.apiKey) throw new RecallError('bad-argument', 'The Anthropic distiller needs an API key (Agent Recall: Set Anthropic API Key, or ANTHROPIC_API_KEY).');
    this.model = options.model || DEFAULT_ANTHROPIC_MODEL;
    this.template = options.promptTemplate ?? loadPromptTemplate(PROMPT_VERSION);
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 1));
    this.batchTemplate = this.batchSize > 1 ? loadPromptTemplate(BATCH_PROMPT_VERSION) : undefined;
    // Batch answers come from another prompt: they must not share cache entries with single ones.
    this.promptVersion = this.batchSize > 1 ? `${PROMPT_VERSION}+${BATCH_PROMPT_VERSION}` : PROMPT_VERSION;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      // Always explicit: the SDK would otherwise read ANTHROPIC_BASE_URL, and text must go only where the
      // user was told it goes.
      baseURL: options.baseURL || DEFAULT_ANTHROPIC_BASE_URL,
      maxRetries: 0,
      timeout: options.timeoutMs ?? 60_000,
    });
  }

  async distill(batch: readonly DistillInput[], token: CancellationSignal): Promise<DistillOutcome[]> {
    this.fatal = undefined;
    const abort = new AbortController();
    // CancellationSignal has no event (core stays free of vscode), so it is polled to abort requests in flight.
    const poll = setInterval(() => {
      if (token.isCancellationRequested) abort.abort();
    }, this.options.cancelPollMs ?? 50);
    try {
      const concurrency = this.options.concurrency ?? 4;
      if (this.batchSize === 1) return withoutCancelled(await mapLimited(batch, concurrency, (input) => this.distillOne(input, abort.signal)));
      const groups: DistillInput[][] = [];
      for (let i = 0; i < batch.length; i += this.batchSize) groups.push(batch.slice(i, i + this.batchSize));
      return withoutCancelled((await mapLimited(groups, concurrency, (group) => this.distillGroup(group, abort.signal))).flat());
    } finally {
      clearInterval(poll);
    }
  }

  private async distillOne(input: DistillInput, signal: AbortSignal): Promise<DistillOutcome> {
    const fail = (error: string, retryAfter?: number): DistillOutcome =>
      retryAfter === undefined ? { n: input.n, ok: false, error } : { n: input.n, ok: false, error, retryAfterMs: Math.ceil(retryAfter) };
    if (signal.aborted) return fail(CANCELLED_ERROR);
    if (this.fatal) return fail(this.fatal);

    const messages: Message[] = [{ role: 'user', content: buildPrompt(input, this.template).text }];
    const first = await this.call(messages, signal);
    if (!first.ok) return fail(first.error, first.retryAfterMs);
    const parsed = parseDistillOutput(first.text);
    if (parsed.ok) return { n: input.n, ok: true, value: parsed.value };

    // One repair round: the model sees its own answer and what was wrong with it.
    this.usage.repairs++;
    messages.push({ role: 'assistant', content: first.text.trim() || '(empty answer)' }, { role: 'user', content: repairRequest(parsed.error) });
    const second = await this.call(messages, signal);
    if (!second.ok) return fail(second.error, second.retryAfterMs);
    const repaired = parseDistillOutput(second.text);
    return repaired.ok ? { n: input.n, ok: true, value: repaired.value } : fail(`invalid answer after one repair: ${repaired.error}`);
  }

  /** Several exchanges in one request; whatever the answer lacks is distilled one by one. */
  private async distillGroup(group: readonly DistillInput[], signal: AbortSignal): Promise<DistillOutcome[]> {
    if (group.length === 1 || !this.batchTemplate) return Promise.all(group.map((input) => this.distillOne(input, signal)));
    if (signal.aborted) return group.map((input) => ({ n: input.n, ok: false, error: CANCELLED_ERROR }));
    const prompt = buildBatchPrompt(group, this.batchTemplate);
    const perAnswer = this.options.maxOutputTokens ?? 512;
    const answer = await this.call([{ role: 'user', content: prompt.text }], signal, Math.min(8_192, perAnswer * group.length));
    if (!answer.ok) {
      return group.map((input) =>
        answer.retryAfterMs === undefined
          ? { n: input.n, ok: false, error: answer.error }
          : { n: input.n, ok: false, error: answer.error, retryAfterMs: Math.ceil(answer.retryAfterMs) },
      );
    }
    const parsed = parseBatchOutput(answer.text, group.length);
    const outcomes: DistillOutcome[] = [];
    for (const [i, input] of group.entries()) {
      const p = parsed[i];
      if (p?.ok) outcomes.push({ n: input.n, ok: true, value: p.value });
      else {
        this.usage.batchFallbacks++;
        outcomes.push(await this.distillOne(input, signal));
      }
    }
    return outcomes;
  }

  /** One logical request with its retries. Never throws. */
  private async call(messages: readonly Message[], signal: AbortSignal, maxTokens = this.options.maxOutputTokens ?? 512): Promise<CallResult> {
    const maxRetries = this.options.maxRetries ?? 2;
    const maxWait = this.options.maxWaitMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      const pause = this.pausedUntil - Date.now();
      if (pause > 0) await sleep(pause, signal);
      if (signal.aborted) return { ok: false, error: CANCELLED_ERROR };
      if (this.fatal) return { ok: false, error: this.fatal };
      try {
        this.usage.requests++;
        const answer = await this.client.messages.create(
          { model: this.model, max_tokens: maxTokens, messages: [...messages] },
          { signal },
        );
        this.usage.inputTokens += answer.usage.input_tokens;
        this.usage.outputTokens += answer.usage.output_tokens;
        const text = answer.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
        return { ok: true, text };
      } catch (err) {
        if (signal.aborted || err instanceof APIUserAbortError) return { ok: false, error: CANCELLED_ERROR };
        const status = err instanceof APIError ? err.status : undefined;
        const error = describe(err);
        if (isFatalStatus(status)) {
          this.fatal = error;
          return { ok: false, error };
        }
        if (!isRetryableStatus(status)) return { ok: false, error };
        const asked = err instanceof APIError ? retryAfterMs(err.headers) : undefined;
        const wait = asked ?? backoffMs(attempt);
        // A rate limit or an overload concerns every worker, not only the one that was told.
        if (status === 429 || status === 529) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
        if (attempt >= maxRetries || wait > maxWait) return { ok: false, error, retryAfterMs: wait };
        await sleep(wait, signal);
      }
    }
  }
}

/** A short, stable message for the outcome (recorded on the exchange and shown in the log). */
function describe(err: unknown): string {
  if (err instanceof APIError) {
    const what = err.status === undefined ? err.constructor.name : `HTTP ${err.status}`;
    const hint = err.status === 401 ? ' (check the Anthropic API key)' : err.status === 404 ? ' (check the model id and base URL)' : '';
    return `anthropic: ${what}${hint}: ${err.message}`.slice(0, 500);
  }
  return `anthropic: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
}
