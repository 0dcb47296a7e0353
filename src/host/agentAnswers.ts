import type { Embedding, Memory } from '../core/memory';
import { redactedExchange, shownHit } from '../core/outbound';
import { fenceFor, QUOTED_NOTE, quoteBlock, visibleControls, visibleControlsIn } from '../core/quoted';
import { shortDate } from '../core/time';
import { countTokens, cutToTokens } from '../core/tokens';

/*
 * What the language-model tools answer (lmTools.ts registers them), without VS Code's API: the tools' warm-up
 * (toolWarmUp.ts) and the bench (test/bench/hostTools.mjs) run the same path.
 */

export interface SearchInput {
  readonly query: string;
  readonly limit?: number;
  readonly file?: string;
}

export interface ReadInput {
  readonly exchangeId: string;
  readonly maxTokens?: number;
}

const DEFAULT_READ_TOKENS = 2000;

/**
 * Searches memory for an agent: distilled lines first (cheap), ids to read the verbatim text on request. What
 * the tools return goes into a language model's context, so its secrets are always redacted (core/outbound.ts:
 * the fields shown of each hit, as the MCP server's) and every character a person cannot see is shown
 * (core/quoted.ts). The tool's own words (count, date, agent, id) stand outside; what comes from transcripts is
 * quoted.
 */
export async function searchForAgent(memory: Memory, embedding: Embedding, input: SearchInput): Promise<string> {
  if (typeof input?.query !== 'string' || !input.query.trim()) return 'Give a non-empty "query".';
  const query = visibleControls(input.query);
  const limit = Math.max(1, Math.min(20, Math.floor(Number(input.limit ?? 8)) || 8));
  const result = await memory.search(
    { text: input.query, limit, ...(typeof input.file === 'string' && input.file ? { filters: { file: input.file } } : {}) },
    embedding,
  );
  if (!result.hits.length) return `No past exchange matches "${query}".`;
  const blocks = result.hits.map((hit) => {
    const shown = visibleControlsIn(shownHit(hit, { files: 4, rooms: false }, true));
    const summary = `${oneLine(shown.core ?? `(not distilled) ${shown.prompt}`, 300)}${shown.context ? ` — ${oneLine(shown.context, 160)}` : ''}`;
    const files = shown.files.join(', ');
    return [
      // the date as before: a transcript's time field may hold any text, and is shown as a person can see it
      `- ${shortDate(hit.startedAt && visibleControls(hit.startedAt))} [${hit.agent}] confidence ${hit.confidence} (id ${hit.exchangeId.slice(0, 12)})`,
      quoteBlock(`${summary}${files ? `\nfiles: ${files}` : ''}`),
    ].join('\n');
  });
  return [`${blocks.length} past exchanges for "${query}" (best first; read one with agent_recall_read_exchange).`, QUOTED_NOTE, ...blocks].join('\n');
}

/** One exchange verbatim, quoted, cut to a token budget with a visible marker after the quote. */
export async function readForAgent(memory: Memory, input: ReadInput): Promise<string> {
  if (typeof input?.exchangeId !== 'string' || !/^[\w-]{6,}$/.test(input.exchangeId)) return 'Give an "exchangeId" from agent_recall_search.';
  const budget = Math.max(100, Math.min(20_000, Math.floor(Number(input.maxTokens ?? DEFAULT_READ_TOKENS)) || DEFAULT_READ_TOKENS));
  const stored = await memory.exchange(input.exchangeId);
  if (!stored) return `No exchange ${input.exchangeId} in the index.`;
  const e = visibleControlsIn(redactedExchange(stored));
  const head = `Exchange ${e.exchangeId} (${e.agent}, ${shortDate(e.startedAt)})\n${QUOTED_NOTE}`;
  const files = `Files: ${e.filesTouched.map((f) => f.path).join(', ') || 'none'}\n\n`;
  const verbatim = e.verbatim;
  // the answer around the verbatim text, with the widest fence the text could need
  const frame = countTokens(`${head}\n${quoteBlock(files, fenceFor(files + verbatim))}\n`);
  const body = cutToTokens(verbatim, Math.max(50, budget - frame), undefined, budget);
  return `${head}\n${quoteBlock(files + body.text)}${body.cut ? `\n${body.marker}` : ''}`;
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
