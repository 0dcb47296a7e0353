import * as vscode from 'vscode';
import { buildDigest, type Digest } from '../core/digest';
import { exchangeListings, recentExchanges } from '../core/store/browse';
import { countTokens } from '../core/tokens';
import type { Config } from './config';
import type { IndexService } from './indexService';

/** More than a budget can hold, so the digest is cut by tokens, not by count. */
const MAX_ENTRIES = 2000;

/** The digest of the newest exchanges, or of the best matches of `query`, within the token budget. */
export async function memoryDigest(index: IndexService, budget: number, query?: string, limit = MAX_ENTRIES): Promise<Digest> {
  const store = await index.getStore();
  if (query?.trim()) {
    const result = await (await index.searcher()).search({ text: query, limit: Math.min(limit, 200), perConversation: 3 });
    const entries = await exchangeListings(store.db, result.hits.map((h) => h.exchangeId));
    return buildDigest(entries, budget, countTokens, `Agent Recall memory: "${query.trim()}"`);
  }
  return buildDigest(await recentExchanges(store.db, limit), budget, countTokens, 'Agent Recall memory: recent exchanges');
}

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
  const digest = await memoryDigest(index, config.memoryTokenBudget, query);
  await vscode.env.clipboard.writeText(digest.text);
  void vscode.window.showInformationMessage(
    `Agent Recall: copied ${digest.included} of ${digest.available} exchanges (${digest.tokens} tokens) to the clipboard.`,
  );
  return digest;
}
