import * as vscode from 'vscode';
import { type ReadInput, readForAgent, type SearchInput, searchForAgent } from './agentAnswers';
import type { IndexService } from './indexService';

function text(s: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);
}

/** Registers the language-model tools (contributes.languageModelTools) when the host has the LM API. */
export function registerLmTools(index: IndexService): vscode.Disposable[] {
  if (typeof vscode.lm?.registerTool !== 'function') return [];
  return [
    vscode.lm.registerTool<SearchInput>('agent_recall_search', {
      prepareInvocation: (o) => ({ invocationMessage: `Searching past agent conversations for "${String(o.input?.query ?? '')}"` }),
      // a call of the user's agent: the tools' warm-up gives way to it (ToolWarmUp)
      invoke: async (o) => text(await index.searching((memory, embedding) => searchForAgent(memory, embedding, o.input))),
    }),
    vscode.lm.registerTool<ReadInput>('agent_recall_read_exchange', {
      prepareInvocation: (o) => ({ invocationMessage: `Reading past exchange ${String(o.input?.exchangeId ?? '')}` }),
      invoke: async (o) => text(await index.searching((memory) => readForAgent(memory, o.input))),
    }),
  ];
}
