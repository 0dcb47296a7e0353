import * as vscode from 'vscode';
import type { CancellationSignal } from '../core/cancellation';
import { CANCELLED_ERROR, withoutCancelled, type DistillInput, type DistillOutcome, type Distiller } from '../core/distill/distiller';
import { mapLimited } from '../core/concurrency';
import { buildPrompt, loadPromptTemplate, PROMPT_VERSION } from '../core/distill/prompt';
import { parseDistillOutput, repairRequest } from '../core/distill/validate';

/** Requests in flight at most: VS Code's models are shared with the user's own chat. */
const CONCURRENCY = 2;

/**
 * A distiller over a chat model VS Code already provides (`vscode.lm`, e.g. Copilot), behind the same
 * interface and the same prompt, redaction and validation as the Anthropic one. Created only after the
 * user's consent (distillConsent.ts).
 */
export class LmDistiller implements Distiller {
  readonly name = 'vscode-lm';
  readonly promptVersion = PROMPT_VERSION;
  readonly remote = true;
  readonly model: string;
  private fatal: string | undefined;

  constructor(
    private readonly chat: vscode.LanguageModelChat,
    private readonly template = loadPromptTemplate(PROMPT_VERSION),
  ) {
    this.model = `${chat.vendor}/${chat.id}`;
  }

  /** The first chat model of `family` (any family when empty), or undefined when VS Code offers none. */
  static async select(family: string): Promise<LmDistiller | undefined> {
    const [chat] = await vscode.lm.selectChatModels(family ? { family } : {});
    return chat ? new LmDistiller(chat) : undefined;
  }

  /** Where text goes, as named in the consent dialog. */
  get destination(): string {
    return `${this.chat.vendor} (${this.chat.name})`;
  }

  async distill(batch: readonly DistillInput[], token: CancellationSignal): Promise<DistillOutcome[]> {
    this.fatal = undefined;
    const cts = new vscode.CancellationTokenSource();
    const poll = setInterval(() => {
      if (token.isCancellationRequested) cts.cancel();
    }, 50);
    try {
      return withoutCancelled(await mapLimited(batch, CONCURRENCY, (input) => this.distillOne(input, cts.token)));
    } finally {
      clearInterval(poll);
      cts.dispose();
    }
  }

  private async distillOne(input: DistillInput, token: vscode.CancellationToken): Promise<DistillOutcome> {
    const fail = (error: string): DistillOutcome => ({ n: input.n, ok: false, error });
    if (token.isCancellationRequested) return fail(CANCELLED_ERROR);
    if (this.fatal) return fail(this.fatal);
    const messages = [vscode.LanguageModelChatMessage.User(buildPrompt(input, this.template).text)];
    const first = await this.ask(messages, token);
    if (!first.ok) return fail(first.error);
    const parsed = parseDistillOutput(first.text);
    if (parsed.ok) return { n: input.n, ok: true, value: parsed.value };
    messages.push(vscode.LanguageModelChatMessage.Assistant(first.text.trim() || '(empty answer)'), vscode.LanguageModelChatMessage.User(repairRequest(parsed.error)));
    const second = await this.ask(messages, token);
    if (!second.ok) return fail(second.error);
    const repaired = parseDistillOutput(second.text);
    return repaired.ok ? { n: input.n, ok: true, value: repaired.value } : fail(`invalid answer after one repair: ${repaired.error}`);
  }

  private async ask(
    messages: vscode.LanguageModelChatMessage[],
    token: vscode.CancellationToken,
  ): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    try {
      const response = await this.chat.sendRequest(messages, { justification: 'Agent Recall distills your indexed agent exchanges into short search summaries.' }, token);
      let text = '';
      for await (const part of response.text) text += part;
      return { ok: true, text };
    } catch (err) {
      if (token.isCancellationRequested) return { ok: false, error: CANCELLED_ERROR };
      const error = `vscode-lm: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
      // No permission, blocked, or the model is gone: every further request would fail the same way.
      if (err instanceof vscode.LanguageModelError && ['NoPermissions', 'Blocked', 'NotFound'].includes(err.code)) this.fatal = error;
      return { ok: false, error };
    }
  }
}
