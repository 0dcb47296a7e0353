import Anthropic, { APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { CancellationSignal } from '../cancellation';
import { CANCELLED_ERROR, type DistillInput, type DistillOutcome, type Distiller } from './distiller';
import { mapLimited, sleep } from './pool';
import { buildPrompt, loadPromptTemplate, PROMPT_VERSION } from './prompt';
import { backoffMs, isFatalStatus, isRetryableStatus, retryAfterMs } from './retryPolicy';
import { parseDistillOutput, repairRequest } from './validate';

/** A Haiku-class model, as in the paper (Claude Haiku 4.5). */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

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
}

/** Tokens and requests as the service counted them, summed over the distiller's life. */
export interface AnthropicUsage {
  requests: number;
  repairs: number;
  inputTokens: number;
  outputTokens: number;
}

type Message = { role: 'user' | 'assistant'; content: string };
type CallResult = { ok: true; text: string } | { ok: false; error: string; retryAfterMs?: number; fatal?: boolean };

/**
 * The Anthropic distiller (paper 3.2, Appendix B): one Messages API request per exchange, text redacted
 * of secrets before it is sent, the answer validated, one repair round for an invalid answer. The SDK's
 * own retries are off: this class retries itself so that a rate limit pauses every worker (not just the
 * one that hit it), so that waits are cancellable, and so that a long `retry-after` becomes a recorded
 * outcome instead of a stalled run.
 */
export class AnthropicDistiller implements Distiller {
  readonly name = 'anthropic';
  readonly promptVersion = PROMPT_VERSION;
  readonly remote = true;
  readonly model: string;
  readonly usage: AnthropicUsage = { requests: 0, repairs: 0, inputTokens: 0, outputTokens: 0 };

  private readonly client: Anthropic;
  private readonly template: string;
  /** Set by a 429/529: no worker starts a request before this time. */
  private pausedUntil = 0;
  /** Set by an answer that will repeat for every request (bad key, unknown model). */
  private fatal: string | undefined;

  constructor(private readonly options: AnthropicDistillerOptions) {
    if (!options.apiKey) throw new Error('The Anthropic distiller needs an API key (Agent Recall: Set Anthropic API Key, or ANTHROPIC_API_KEY).');
    this.model = options.model || DEFAULT_ANTHROPIC_MODEL;
    this.template = options.promptTemplate ?? loadPromptTemplate(PROMPT_VERSION);
    this.client = new Anthropic({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
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
      return await mapLimited(batch, this.options.concurrency ?? 4, (input) => this.distillOne(input, abort.signal));
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

  /** One logical request with its retries. Never throws. */
  private async call(messages: readonly Message[], signal: AbortSignal): Promise<CallResult> {
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
          { model: this.model, max_tokens: this.options.maxOutputTokens ?? 512, messages: [...messages] },
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
