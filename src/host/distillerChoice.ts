import * as vscode from 'vscode';
import type { Distiller } from '../core/distill/distiller';
import { loadPromptTemplate } from '../core/distill/prompt';
import { readAnthropicApiKey } from './anthropicKey';
import type { DistillerKind, DistillSettings } from './config';
import { CONSENT_MESSAGES, ensureRemoteConsent } from './distillConsent';
import { LmDistiller } from './lmDistiller';

/**
 * Which distiller runs: the configured LLM one when every condition holds (trusted workspace, opt-in,
 * confirmation, a key or a model), otherwise the offline one with the reason an LLM one was not used.
 */
export type DistillerChoice =
  | { readonly kind: 'offline'; readonly configured: DistillerKind; readonly reason?: string }
  | { readonly kind: Exclude<DistillerKind, 'offline'>; readonly configured: DistillerKind; readonly distiller: Distiller; readonly destination: string };

export interface ChoiceDeps {
  readonly settings: DistillSettings;
  readonly secrets: vscode.SecretStorage;
  readonly memento: vscode.Memento;
  /** Show the one-time confirmation dialog when needed (false: report `needs-confirmation` instead). */
  readonly interactive: boolean;
}

/** Host name the Anthropic distiller would send to, as shown in the consent dialog. */
export function anthropicDestination(baseUrl: string): string {
  if (!baseUrl) return 'api.anthropic.com';
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return baseUrl;
  }
}

export async function chooseDistiller({ settings, secrets, memento, interactive }: ChoiceDeps): Promise<DistillerChoice> {
  const configured = settings.distiller;
  const offline = (reason: string): DistillerChoice => ({ kind: 'offline', configured, reason });
  if (configured === 'offline') return { kind: 'offline', configured };

  if (configured === 'anthropic') {
    const apiKey = await readAnthropicApiKey(secrets);
    if (!apiKey) return offline('No Anthropic API key: run "Agent Recall: Set Anthropic API Key".');
    const destination = anthropicDestination(settings.anthropic.baseUrl);
    const consent = await ensureRemoteConsent('anthropic', destination, settings, memento, interactive);
    if (!consent.ok) return offline(CONSENT_MESSAGES[consent.reason]);
    // required here, not imported: the SDK loads only for users of this distiller, never at activation
    const { AnthropicDistiller } = require('../core/distill/anthropic') as typeof import('../core/distill/anthropic');
    const distiller = new AnthropicDistiller({
      apiKey,
      ...(settings.anthropic.model ? { model: settings.anthropic.model } : {}),
      ...(settings.anthropic.baseUrl ? { baseURL: settings.anthropic.baseUrl } : {}),
      concurrency: settings.anthropic.concurrency,
      batchSize: settings.anthropic.batchSize,
    });
    return { kind: 'anthropic', configured, distiller, destination };
  }

  // vscode-lm: the trust and opt-in checks come before asking VS Code for models (which may prompt).
  if (!vscode.workspace.isTrusted) return offline(CONSENT_MESSAGES['untrusted-workspace']);
  if (!settings.allowRemote) return offline(CONSENT_MESSAGES['not-allowed']);
  let lm: LmDistiller | undefined;
  try {
    lm = await LmDistiller.select(settings.vscodeLmFamily);
  } catch (err) {
    return offline(`VS Code language models are unavailable: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!lm) return offline(`VS Code offers no chat model${settings.vscodeLmFamily ? ` of family ${settings.vscodeLmFamily}` : ''}.`);
  const consent = await ensureRemoteConsent('vscode-lm', lm.destination, settings, memento, interactive);
  if (!consent.ok) return offline(CONSENT_MESSAGES[consent.reason]);
  return { kind: 'vscode-lm', configured, distiller: lm, destination: lm.destination };
}

/** What the status view and the API report about distillation; never shows a dialog. */
export interface DistillerStatus {
  readonly configured: DistillerKind;
  readonly active: DistillerKind;
  readonly reason?: string;
  readonly hasAnthropicKey: boolean;
  /** False when prompts/ is missing from the installation (LLM distillers cannot run). */
  readonly promptFound: boolean;
}

export async function distillerStatus(deps: Omit<ChoiceDeps, 'interactive'>): Promise<DistillerStatus> {
  let promptFound = true;
  try {
    loadPromptTemplate();
  } catch {
    promptFound = false;
  }
  const hasAnthropicKey = (await readAnthropicApiKey(deps.secrets)) !== undefined;
  const choice = promptFound ? await chooseDistiller({ ...deps, interactive: false }) : undefined;
  return {
    configured: deps.settings.distiller,
    active: choice?.kind ?? 'offline',
    ...(choice?.kind === 'offline' && choice.reason ? { reason: choice.reason } : {}),
    ...(!promptFound ? { reason: 'The distillation prompt is missing from the installation.' } : {}),
    hasAnthropicKey,
    promptFound,
  };
}
