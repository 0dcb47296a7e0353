import type { AgentKind } from '../model';
import type { SourceAdapter } from './adapter';
import { aiderAdapter } from './aider';
import { claudeCodeAdapter } from './claudeCode';
import { codexAdapter } from './codex';
import { copilotAdapter, copilotLogAdapter } from './copilot';
import { geminiAdapter, geminiLogAdapter } from './gemini';
import { specstoryAdapter } from './specstory';

/**
 * Every supported agent format (an agent with two file forms has an adapter per form). Adapters whose
 * storage layout proves the format claim by path; the others are told apart by sniffing, in this order,
 * markdown ones by path.
 */
export const ADAPTERS: readonly SourceAdapter[] = [
  claudeCodeAdapter, codexAdapter, copilotLogAdapter, geminiLogAdapter, geminiAdapter, copilotAdapter,
  specstoryAdapter, aiderAdapter,
];

export function adapterFor(agent: AgentKind): SourceAdapter {
  const a = ADAPTERS.find((x) => x.agent === agent);
  if (!a) throw new Error(`no adapter for ${agent}`);
  return a;
}
