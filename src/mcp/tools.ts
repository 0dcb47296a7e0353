import * as path from 'node:path';
import type { AgentKind } from '../core/model';
import { redactedDistilled, redactedExchange, redactedListing, shownHit } from '../core/outbound';
import { fenceFor, QUOTED_NOTE, quoteBlock, visibleControls, visibleControlsIn } from '../core/quoted';
import { snippetParts } from '../core/recall';
import type { Hit, SearchFilters } from '../core/search/types';
import type { ExchangeListing } from '../core/memory';
import { shortDate } from '../core/time';
import { countTokens, cutToTokens } from '../core/tokens';
import { DEFAULT_TOKENS, searchAsked, type FileHistoryInput, type ReadExchangeInput, type RecentInput, type SearchInput } from './schemas';
import type { ScopedMemory } from './scopedMemory';

/**
 * What the MCP tools answer, independent of the SDK: plain text for the agent (token-budgeted, ids to ask
 * for more) and the same items as data. Every answer is read from one snapshot of the store. In the text,
 * the tool's own words (counts, ids, dates, agents, how to ask for more) stand outside, and everything that
 * comes from a transcript (summaries, snippets, files, rooms, titles, the verbatim exchange) stands inside a
 * fenced block it cannot close (core/quoted.ts), under a note that it is data, not instructions.
 */
export interface ToolAnswer {
  readonly text: string;
  readonly data: Record<string, unknown>;
}

/** A request the memory cannot answer as asked (unknown id, nothing to read): told to the agent as an error. */
export class ToolInputError extends Error {}

export interface ToolOptions {
  /** Replace secrets (API keys, tokens, passwords, private keys) in every returned text. */
  readonly redact: boolean;
}

/** read_exchange's text joins the verbatim text to the parts around it in three places. */
const JOINS = 3;
const DEFAULT_SEARCH_LIMIT = 8;
const DEFAULT_LIST_LIMIT = 20;

export class MemoryTools {
  private readonly redacting: boolean;

  constructor(
    private readonly memory: ScopedMemory,
    options: ToolOptions,
  ) {
    this.redacting = options.redact;
  }

  search(input: SearchInput): Promise<ToolAnswer> {
    return this.memory.read((m) => this.searchIn(m, input));
  }

  /** The server's warm-up (ScopedMemory.warmUp) through this tool's path, each answer given to `shown` and dropped. */
  warmUp(shown: (a: ToolAnswer) => unknown = () => undefined): Promise<void> {
    return this.memory.warmUp(async (m, query) => shown(await this.searchIn(m, searchAsked(query))));
  }

  private async searchIn(m: ScopedMemory, input: SearchInput): Promise<ToolAnswer> {
    const filters: SearchFilters = {
      ...(input.agent?.length ? { agents: input.agent as AgentKind[] } : {}),
      ...(input.since ? { since: isoBound(input.since, 'start') } : {}),
      ...(input.until ? { until: isoBound(input.until, 'end') } : {}),
      ...(input.file ? { file: this.relativePath(input.file) } : {}),
      ...(input.room ? { room: input.room } : {}),
      ...(input.conversation ? { conversation: input.conversation } : {}),
    };
    const result = await m.search({ text: input.query, limit: input.limit ?? DEFAULT_SEARCH_LIMIT, filters, redact: this.redacting });
    // characters shown per item, once the snippet's highlight marks (control characters) are gone; loops, not `map`:
    // packed arrays whatever tier of V8 runs this (TurboFan's inlined `map` makes holey ones, and code compiled for one
    // kind is thrown away at the other: issue 42)
    const items: Array<ReturnType<MemoryTools['searchItem']>> = [];
    for (const h of result.hits) items.push(visibleControlsIn(this.searchItem(h)));
    const query = oneLine(visibleControls(input.query), 120);
    const header = items.length
      ? `${items.length} past exchanges for "${query}", best first (confidence ${result.confidence}). Read one verbatim with read_exchange.`
      : `No past exchange in this workspace matches "${query}".`;
    const blocks: string[] = [];
    for (const [i, it] of items.entries()) {
      blocks.push([
        `${i + 1}. ${it.id} · ${shortDate(it.date ?? undefined)} · ${it.agent} · ${it.confidence}`,
        quoteBlock(
          [
            it.core !== null ? `core: ${it.core}` : `prompt (not distilled): ${it.prompt}`,
            ...(it.detail ? [`detail: ${oneLine(it.detail, 200)}`] : []),
            ...(it.files.length ? [`files: ${it.files.join(', ')}`] : []),
            ...(it.rooms.length ? [`rooms: ${it.rooms.map((r) => `${r.label} (${r.id})`).join(', ')}`] : []),
            `snippet: ${it.snippet}`,
          ].join('\n'),
        ),
        ...(it.more > 0 ? [`${it.more} more in this conversation: search again with conversation ${it.conversation}`] : []),
      ].join('\n'));
    }
    return this.budgeted(header, blocks, items, input.maxTokens, result.notice ? { notice: result.notice } : {});
  }

  readExchange(input: ReadExchangeInput): Promise<ToolAnswer> {
    return this.memory.read(async (m) => {
      const stored = await m.exchange(input.id);
      if (!stored) throw new ToolInputError(`No exchange ${input.id} in this workspace's memory. Take an id from search, recent or file_history.`);
      const [view, around] = await Promise.all([m.distilled(stored.exchangeId), m.neighbours(stored.exchangeId)]);
      const e = this.outgoing(stored, redactedExchange);
      const distilled = view && this.outgoing(view, redactedDistilled);
      const head = [
        `Exchange ${e.exchangeId} · ${isoDate(e.startedAt)} · ${e.agent}`,
        ...(around ? [`Conversation: exchange ${around.position} of ${around.total}; previous ${around.previous ?? 'none'}, next ${around.next ?? 'none'}`] : []),
        QUOTED_NOTE,
      ].join('\n');
      const about = [
        ...(e.title ? [`Title: ${oneLine(e.title, 120)}`] : []),
        `Transcript: ${e.file}:${e.lineStart}-${e.lineEnd} (session ${e.sessionId})`,
        ...(distilled ? [`Core: ${distilled.exchangeCore}`, ...(distilled.specificContext ? [`Detail: ${distilled.specificContext}`] : [])] : []),
        `Files: ${e.filesTouched.map((f) => `${f.path} (${f.how})`).join(', ') || 'none'}`,
        '',
      ].join('\n');
      // what is not the verbatim text, with the widest fence the text could need (its cut needs no wider one),
      // and a token for each of the three joins, where pieces counted apart can merge into another token
      const frame = countTokens(`${head}\n${quoteBlock(`${about}\n`, fenceFor(`${about}\n${e.verbatim}`))}\n`) + JOINS;
      const asked = input.maxTokens ?? DEFAULT_TOKENS;
      // the stored count is the stored text's: of no use once redaction or shown characters changed it
      const body = cutToTokens(e.verbatim, Math.max(50, asked - frame), e.verbatim === stored.verbatim ? stored.verbatimTokens : undefined, asked);
      return {
        text: `${head}\n${quoteBlock(`${about}\n${body.text}`)}${body.cut ? `\n${body.marker}` : ''}`,
        data: {
          id: e.exchangeId,
          date: e.startedAt ?? null,
          agent: e.agent,
          file: e.file,
          lineStart: e.lineStart,
          lineEnd: e.lineEnd,
          sessionId: e.sessionId,
          previous: around?.previous ?? null,
          next: around?.next ?? null,
          core: distilled?.exchangeCore ?? null,
          detail: distilled?.specificContext || null,
          files: e.filesTouched.map((f) => ({ path: f.path, how: f.how })),
          verbatim: body.text,
          cut: body.cut,
        },
      };
    });
  }

  fileHistory(input: FileHistoryInput): Promise<ToolAnswer> {
    return this.memory.read(async (m) => {
      const file = this.relativePath(input.path);
      const stored = await m.fileHistory(file, input.limit ?? DEFAULT_LIST_LIMIT);
      const entries = stored.map((x) => this.outgoing(x, redactedListing));
      const items = entries.map((e) => ({ ...this.listed(e), how: e.how, lines: e.lines?.map((r) => [r.start, r.end]) ?? [] }));
      const header = items.length
        ? `${items.length} past exchanges touched ${file}, newest first. Read one verbatim with read_exchange.`
        : `No past exchange in this workspace touched ${file} (paths are workspace-relative, like src/auth.ts).`;
      const lines = items.map(
        (it) =>
          `- ${it.id} · ${shortDate(it.date ?? undefined)} · ${it.agent} · ${it.how}${it.lines.length ? ` lines ${it.lines.map(([a, b]) => (a === b ? a : `${a}-${b}`)).join(',')}` : ''}\n` +
          quoteBlock(it.summary),
      );
      return this.budgeted(header, lines, items, input.maxTokens, { path: file });
    });
  }

  recent(input: RecentInput): Promise<ToolAnswer> {
    return this.memory.read(async (m) => {
      const stored = await m.recent(input.limit ?? DEFAULT_LIST_LIMIT);
      const items = stored.map((x) => this.listed(this.outgoing(x, redactedListing)));
      const header = items.length
        ? `The ${items.length} newest past exchanges of this workspace, newest first. Read one verbatim with read_exchange.`
        : 'No past exchange is indexed for this workspace yet.';
      const lines = items.map((it) => `- ${it.id} · ${shortDate(it.date ?? undefined)} · ${it.agent}\n${quoteBlock(it.summary)}`);
      return this.budgeted(header, lines, items, input.maxTokens);
    });
  }

  /**
   * A hit as search answers it, with its secrets redacted when redacting (core/outbound.ts: only the fields shown).
   * The snippet was cut from the redacted text by the searcher.
   */
  private searchItem(h: Hit) {
    const shown = shownHit(h, { files: 6, rooms: true }, this.redacting);
    return {
      id: h.exchangeId,
      date: h.startedAt ?? null,
      agent: h.agent,
      confidence: h.confidence,
      core: shown.core ?? null,
      detail: shown.context || null,
      files: shown.files,
      rooms: shown.rooms,
      snippet: snippetParts(h.snippet).map((p) => p.text).join(''),
      prompt: shown.prompt === undefined ? undefined : oneLine(shown.prompt, 200),
      conversation: h.conversationId,
      // matches of its conversation the per-conversation cap left out (two, six on a short query): ask again with `conversation`
      more: h.more,
    };
  }

  /**
   * A record as it may leave: secrets replaced when redacting (core/outbound.ts), and every character a person
   * cannot see shown (core/quoted.ts), before any token is counted (server.ts shows any left in the whole answer).
   */
  private outgoing<T>(value: T, redacted: (v: T) => T): T {
    return visibleControlsIn(this.redacting ? redacted(value) : value);
  }

  private listed(e: ExchangeListing): { id: string; date: string | null; agent: AgentKind; summary: string } {
    const summary = e.core !== undefined ? `${e.core}${e.context ? ` — ${e.context}` : ''}` : `(not distilled) ${e.prompt}`;
    return { id: e.exchangeId, date: e.startedAt ?? null, agent: e.agent, summary: oneLine(summary, 400) };
  }

  /** The header and as many blocks as fit the budget, in order; says how many were left out. */
  private budgeted(header: string, blocks: readonly string[], items: readonly object[], maxTokens: number | undefined, extra: Record<string, unknown> = {}): ToolAnswer {
    const budget = maxTokens ?? DEFAULT_TOKENS;
    const notice = typeof extra['notice'] === 'string' ? `\n(${extra['notice']})` : '';
    const lead = `${header}${notice}${blocks.length ? `\n${QUOTED_NOTE}` : ''}`;
    let used = countTokens(lead) + 20; // room for the "left out" line
    const shown: string[] = [];
    for (const b of blocks) {
      const t = countTokens(`${b}\n`);
      if (used + t > budget) break;
      shown.push(b);
      used += t;
    }
    const left = blocks.length - shown.length;
    const tail = left > 0 ? `\n(${left} more left out to stay within ${budget} tokens; ask with a larger maxTokens or a smaller limit.)` : '';
    return {
      text: [lead, ...shown].join('\n') + tail,
      data: { ...extra, items: items.slice(0, shown.length), leftOut: left },
    };
  }

  /** A path as the store keeps it: workspace-relative POSIX when it lies in the workspace. */
  private relativePath(p: string): string {
    const posix = p.replace(/\\/g, '/').replace(/^\.\//, '');
    if (!path.isAbsolute(p)) return posix;
    for (const root of this.memory.within ?? []) {
      const rel = path.relative(root, p);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
    }
    return posix;
  }
}

/** A stored date as ISO, or 'unknown date': a transcript's own time field may hold any text. */
function isoDate(v: string | undefined): string {
  const t = v === undefined ? Number.NaN : Date.parse(v);
  return Number.isNaN(t) ? 'unknown date' : new Date(t).toISOString();
}

/** A date-only bound covers its whole day; a date-time is taken as given (normalised to UTC ISO). */
function isoBound(v: string, side: 'start' | 'end'): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return side === 'start' ? `${v}T00:00:00.000Z` : `${v}T23:59:59.999Z`;
  return new Date(v).toISOString();
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
