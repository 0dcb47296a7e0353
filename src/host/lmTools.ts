import * as vscode from 'vscode';
import { countTokens } from '../core/tokens';
import { digestLine } from '../core/digest';
import { redactedExchange, redactedHit, redactedListing } from '../core/outbound';
import type { IndexService } from './indexService';

interface SearchInput {
  readonly query: string;
  readonly limit?: number;
  readonly file?: string;
}

interface ReadInput {
  readonly exchangeId: string;
  readonly maxTokens?: number;
}

const DEFAULT_READ_TOKENS = 2000;

function text(s: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);
}

/**
 * Searches memory for an agent: distilled lines first (cheap), ids to read the verbatim text on request. What
 * the tools return goes into a language model's context, so its secrets are always redacted (core/outbound.ts).
 */
export async function searchForAgent(index: IndexService, input: SearchInput): Promise<string> {
  if (typeof input?.query !== 'string' || !input.query.trim()) return 'Give a non-empty "query".';
  const limit = Math.max(1, Math.min(20, Math.floor(Number(input.limit ?? 8)) || 8));
  const memory = await index.memory();
  const result = await memory.search(
    { text: input.query, limit, ...(typeof input.file === 'string' && input.file ? { filters: { file: input.file } } : {}) },
    await index.embedding(),
  );
  if (!result.hits.length) return `No past exchange matches "${input.query}".`;
  const hits = result.hits.map(redactedHit);
  const listings = (await memory.listings(hits.map((h) => h.exchangeId))).map(redactedListing);
  const lines = listings.map((l, i) => {
    const files = hits[i]?.filesTouched.slice(0, 4).map((f) => f.path).join(', ');
    return `${digestLine(l)} [confidence ${hits[i]?.confidence}]${files ? ` files: ${files}` : ''}`;
  });
  return [`${lines.length} past exchanges for "${input.query}" (best first; read one with agent_recall_read_exchange):`, ...lines].join('\n');
}

/** One exchange verbatim, cut to a token budget with a visible marker. */
export async function readForAgent(index: IndexService, input: ReadInput): Promise<string> {
  if (typeof input?.exchangeId !== 'string' || !/^[\w-]{6,}$/.test(input.exchangeId)) return 'Give an "exchangeId" from agent_recall_search.';
  const budget = Math.max(100, Math.min(20_000, Math.floor(Number(input.maxTokens ?? DEFAULT_READ_TOKENS)) || DEFAULT_READ_TOKENS));
  const stored = await (await index.memory()).exchange(input.exchangeId);
  if (!stored) return `No exchange ${input.exchangeId} in the index.`;
  const e = redactedExchange(stored);
  const head = `Exchange ${e.exchangeId} (${e.agent}, ${e.startedAt ?? 'unknown date'}, files: ${e.filesTouched.map((f) => f.path).join(', ') || 'none'})\n\n`;
  let body = e.verbatim;
  if (countTokens(head + body) > budget) {
    // cut by characters in proportion, then trim until it fits
    let chars = Math.floor(body.length * (budget / countTokens(head + body)));
    while (chars > 0 && countTokens(head + body.slice(0, chars)) > budget - 12) chars = Math.floor(chars * 0.9);
    body = `${body.slice(0, chars)}\n… [cut at ${budget} tokens; ${e.verbatim.length - chars} more chars]`;
  }
  return head + body;
}

/** Registers the language-model tools (contributes.languageModelTools) when the host has the LM API. */
export function registerLmTools(index: IndexService): vscode.Disposable[] {
  if (typeof vscode.lm?.registerTool !== 'function') return [];
  return [
    vscode.lm.registerTool<SearchInput>('agent_recall_search', {
      prepareInvocation: (o) => ({ invocationMessage: `Searching past agent conversations for "${String(o.input?.query ?? '')}"` }),
      invoke: async (o) => text(await searchForAgent(index, o.input)),
    }),
    vscode.lm.registerTool<ReadInput>('agent_recall_read_exchange', {
      prepareInvocation: (o) => ({ invocationMessage: `Reading past exchange ${String(o.input?.exchangeId ?? '')}` }),
      invoke: async (o) => text(await readForAgent(index, o.input)),
    }),
  ];
}
