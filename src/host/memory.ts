import * as vscode from 'vscode';
import type { Digest } from '../core/digest';
import type { Config } from './config';
import type { IndexService } from './indexService';

/**
 * "Show Memory for Agent": copies a token-budgeted digest to the clipboard. With a string argument
 * (a query, '' for the newest exchanges) it asks nothing, so it can be bound to keys or called by tests.
 */
export async function showMemoryForAgent(index: IndexService, config: Config, arg?: unknown): Promise<Digest | undefined> {
  let query: string | undefined = typeof arg === 'string' ? arg : undefined;
  if (query === undefined) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Newest exchanges', description: 'the last exchanges, newest first', query: '' },
        { label: 'Exchanges about…', description: 'the best matches of a query', query: undefined },
      ],
      { title: `Memory for an agent (${config.memoryTokenBudget} tokens)` },
    );
    if (!pick) return undefined;
    query = pick.query ?? (await vscode.window.showInputBox({ title: 'Memory about', prompt: 'What should the digest be about?' }));
    if (query === undefined) return undefined;
  }
  const digest = await index.searching((memory, embedding) => memory.digest(config.memoryTokenBudget, query, embedding));
  await vscode.env.clipboard.writeText(digest.text);
  void vscode.window.showInformationMessage(
    `Agent Recall: copied ${digest.included} of ${digest.available} exchanges (${digest.tokens} tokens) to the clipboard.`,
  );
  return digest;
}
