import * as vscode from 'vscode';
import { formatPlan, type DistillPlan } from '../core/distill/plan';
import type { DistillerKind, DistillSettings } from './config';

/** Why an LLM distiller may not be used (the offline one is used instead). */
export type ConsentRefusal = 'untrusted-workspace' | 'not-allowed' | 'needs-confirmation' | 'declined';

export type ConsentResult = { readonly ok: true } | { readonly ok: false; readonly reason: ConsentRefusal };

export const CONSENT_MESSAGES: Record<ConsentRefusal, string> = {
  'untrusted-workspace': 'This workspace is not trusted: nothing is sent to an LLM service.',
  'not-allowed': 'Sending exchanges is off (setting agentRecall.distill.allowRemote).',
  'needs-confirmation': 'Sending exchanges has not been confirmed yet.',
  declined: 'Sending exchanges was not confirmed.',
};

/**
 * The gate in front of every remote distiller: a trusted workspace, the user's opt-in setting, and a
 * one-time modal confirmation per destination (remembered in globalState, so a new base URL or another
 * model vendor asks again). With `interactive: false` it never shows the dialog.
 */
export async function ensureRemoteConsent(
  kind: Exclude<DistillerKind, 'offline'>,
  destination: string,
  settings: DistillSettings,
  memento: vscode.Memento,
  interactive: boolean,
): Promise<ConsentResult> {
  if (!vscode.workspace.isTrusted) return { ok: false, reason: 'untrusted-workspace' };
  if (!settings.allowRemote) return { ok: false, reason: 'not-allowed' };
  const key = `agentRecall.consent.${kind}.${destination}`;
  if (memento.get<boolean>(key) === true) return { ok: true };
  if (!interactive) return { ok: false, reason: 'needs-confirmation' };
  const choice = await vscode.window.showWarningMessage(
    `Send your agent exchanges to ${destination} to distill them?`,
    {
      modal: true,
      detail:
        `Agent Recall will send, for each indexed exchange of this workspace: the prompt, the assistant's replies and ` +
        `one-line tool summaries (cut to 4,000 characters), the project path and the files touched, to ${destination}. ` +
        `API keys, tokens, passwords, private keys and connection-string secrets are redacted first. ` +
        `You can turn this off at any time with the setting agentRecall.distill.allowRemote.`,
    },
    'Send',
  );
  if (choice !== 'Send') return { ok: false, reason: 'declined' };
  await memento.update(key, true);
  return { ok: true };
}

/**
 * Before a backlog goes out: the dry run's numbers (requests, tokens, cost, redactions) in a modal, with
 * the prompts exactly as they would be sent one click away. Returns true only for "Distill".
 */
export async function confirmBacklog(plan: DistillPlan, destination: string): Promise<boolean> {
  for (;;) {
    const choice = await vscode.window.showWarningMessage(
      `Distill ${plan.exchanges} exchanges with ${destination}?`,
      { modal: true, detail: formatPlan(plan, destination) },
      'Distill',
      'Show What Is Sent',
    );
    if (choice === 'Distill') return true;
    if (choice !== 'Show What Is Sent') return false;
    const content = plan.samples.map((s) => `<!-- one request: exchanges ${s.ns.join(', ')} -->\n${s.text}`).join('\n\n---\n\n');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'markdown', content }), { preview: true });
  }
}
