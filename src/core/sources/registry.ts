import type { AgentKind } from '../model';
import type { SourceAdapter } from './adapter';
import { aiderAdapter } from './aider';
import { claudeCodeAdapter } from './claudeCode';
import { codexAdapter } from './codex';
import { specstoryAdapter } from './specstory';

/** Every supported agent format. JSONL adapters are told apart by sniffing, markdown ones by path. */
export const ADAPTERS: readonly SourceAdapter[] = [claudeCodeAdapter, codexAdapter, specstoryAdapter, aiderAdapter];

export function adapterFor(agent: AgentKind): SourceAdapter {
  const a = ADAPTERS.find((x) => x.agent === agent);
  if (!a) throw new Error(`no adapter for ${agent}`);
  return a;
}
