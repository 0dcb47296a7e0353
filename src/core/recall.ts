import { withoutSubject } from './distill/subject';
import { AGENT_NAMES, type AgentKind, type Confidence } from './model';
import { MARK_END, MARK_START } from './search/snippet';
import type { Hit, SearchFilters, SearchResult } from './search/types';
import type { ExchangeListing } from './store/browse';
import { formatLineRanges, headline, touchedPhrase } from './format';
import { approximateDate, relativeDate, shortDate } from './time';
import { visible } from './visible';

/**
 * A recall session (DESIGN.md "Recall"): the user describes a vague memory, recognises the exchange among
 * candidates and refines without retyping (facets, "more like this", "not these"). This module turns search
 * hits into candidates shaped for display, so no view re-derives a headline, a date or a snippet.
 */

export type TimeFacet = 'week' | 'month' | 'quarter';

/** Refinements that narrow a query without retyping it. */
export interface Facets {
  readonly agent?: AgentKind;
  readonly time?: TimeFacet;
  readonly room?: { readonly id: string; readonly label: string };
  readonly file?: string;
  /** "More like this": exchanges like this one (never the exchange itself); the query box keeps the user's words. */
  readonly like?: { readonly id: string; readonly label: string };
  /**
   * "N more in this conversation": only this conversation's exchanges, all of its matches (no per-conversation
   * cap); without text, all its exchanges in conversation order.
   */
  readonly conversation?: { readonly id: string; readonly label: string };
}

/** A piece of snippet text; `mark` pieces matched a query term. Never HTML: views make text nodes. */
export interface SnippetPart {
  readonly text: string;
  readonly mark: boolean;
}

export interface CandidateFile {
  /** The path as stored: what a click asks the host to open. */
  readonly path: string;
  /** The path as shown, its hidden characters visible (visible.ts). */
  readonly label: string;
  readonly how: string;
  /** "12–18" when the transcript recorded the touched lines. */
  readonly lines?: string;
  /** "edited line 12", "read". */
  readonly touched: string;
}

/**
 * One recall candidate, already shaped for display (views format nothing): every text from a transcript
 * has its hidden characters shown (visible.ts); ids and paths a click sends back stay as stored.
 */
export interface Candidate {
  readonly exchangeId: string;
  /** The distilled core, or the prompt when the exchange is not distilled yet. */
  readonly headline: string;
  /** The conversation's title, when the agent recorded one. */
  readonly title?: string;
  readonly distilled: boolean;
  readonly context?: string;
  readonly when: string;
  readonly date: string;
  readonly agent: AgentKind;
  /** The agent as people call it ("Copilot Chat"). */
  readonly agentName: string;
  readonly files: readonly CandidateFile[];
  readonly rooms: ReadonlyArray<{ readonly id: string; readonly label: string }>;
  /** How sure the match is; absent for a recent exchange shown before anything was asked. */
  readonly confidence?: Confidence;
  readonly snippet: readonly SnippetPart[];
  /** Why it matched, in the user's words (whyMatched). */
  readonly why: string;
  /** Matches of its conversation the per-conversation cap left out, and that conversation (a `conversation` facet). */
  readonly more?: { readonly count: number; readonly conversation: { readonly id: string; readonly label: string } };
  /** The other transcripts holding this exchange (`path, lines a–b`): it was saved more than once and is shown once. */
  readonly savedIn?: readonly string[];
}

/** What the user asked: the text, the facets chosen and the exchanges they said "not these" about. */
export interface RecallRequest {
  readonly text: string;
  readonly facets?: Facets;
  readonly exclude?: readonly string[];
  readonly limit?: number;
}

export interface RecallAnswer {
  readonly candidates: readonly Candidate[];
  readonly confidence: Confidence;
  readonly notice?: string;
  /** The request asked nothing: the candidates are the workspace's most recent exchanges. */
  readonly recent?: boolean;
  /** A conversation facet without text: the candidates are its exchanges in conversation order, not matches. */
  readonly inOrder?: boolean;
}

/** Candidates the recall panel shows at once. */
export const RECALL_CANDIDATES = 20;

/** True when a request asks nothing (no text and no facet that lists exchanges on its own). */
export function isEmptyRequest(r: RecallRequest): boolean {
  return !r.text.trim() && !r.facets?.room && !r.facets?.file && !r.facets?.like && !r.facets?.conversation;
}

/** A conversation facet without text: the request lists that conversation's exchanges in order (no ranking). */
export function isConversationListing(r: RecallRequest): boolean {
  return !r.text.trim() && r.facets?.conversation !== undefined && !r.facets.like;
}

/** How a conversation is named on a link or chip: its title when recorded, else its first prompt's headline. */
export function conversationLabel(title: string | undefined, firstPrompt: string | undefined): string {
  return headline({ prompt: title ?? firstPrompt ?? '' }, 60);
}

/** Runs one recall request through `search` and shapes the hits. */
export async function recall(
  search: (q: { text: string; limit: number; filters: SearchFilters; exclude: readonly string[] }) => Promise<SearchResult>,
  r: RecallRequest,
  now = Date.now(),
): Promise<RecallAnswer> {
  if (isEmptyRequest(r)) return { candidates: [], confidence: 'low' };
  const result = await search({ text: r.text, limit: r.limit ?? RECALL_CANDIDATES, filters: facetFilters(r.facets ?? {}, now), exclude: r.exclude ?? [] });
  return {
    candidates: result.hits.map((h) => toCandidate(h, now)),
    confidence: result.confidence,
    ...(result.notice ? { notice: result.wordsOnly === 'not-embedded' ? NOT_EMBEDDED_YET : result.notice } : {}),
  };
}

/**
 * What a person is told while the exchanges have no vectors the model can use (the first index run, a new
 * model): the search's own notice names modes and tells a CLI user to re-index, which the extension does itself.
 */
export const NOT_EMBEDDED_YET = 'Matching words only for now: search by meaning starts once indexing has embedded the exchanges.';

/** "More like this": the query text an exchange stands for (its distilled object, else its prompt). */
export function moreLikeThisText(d: { core: string; context: string } | undefined, prompt: string | undefined): string {
  const text = d ? `${d.core} ${d.context}` : (prompt ?? '');
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** A recent exchange as a candidate of the empty panel (nothing matched, so no snippet and no why). */
export function recentCandidate(l: ExchangeListing, now = Date.now()): Candidate {
  return {
    exchangeId: l.exchangeId,
    headline: headline(l),
    ...(l.title ? { title: visible(l.title) } : {}),
    distilled: l.core !== undefined,
    ...(l.context ? { context: visible(l.context, { lines: true }) } : {}),
    when: relativeDate(l.startedAt, now),
    date: shortDate(l.startedAt),
    agent: l.agent,
    agentName: AGENT_NAMES[l.agent],
    files: [],
    rooms: [],
    snippet: [],
    why: '',
  };
}

/** Splits a searcher snippet (terms wrapped in MARK_START…MARK_END) into plain and marked text pieces. */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const plain = (text: string): void => {
    const t = text.replaceAll(MARK_END, '');
    if (t) parts.push({ text: t, mark: false });
  };
  for (const [i, piece] of snippet.split(MARK_START).entries()) {
    const end = piece.indexOf(MARK_END);
    // text before the first start mark, or a start mark never closed, is plain text
    if (i === 0 || end < 0) {
      plain(piece);
      continue;
    }
    if (end > 0) parts.push({ text: piece.slice(0, end), mark: true });
    plain(piece.slice(end + 1));
  }
  return parts;
}

/** A snippet as plain text with the matched terms in brackets (the command line's form). */
export function bracketedSnippet(snippet: string): string {
  return snippetParts(snippet).map((p) => (p.mark ? `[${p.text}]` : p.text)).join('');
}

/**
 * Why a candidate matched, in the user's words: which of their words it contains and where, and whether it
 * is close in meaning. Signal names and ranks (`bm25(verbatim) #17`) stay in the command line's output.
 */
export function whyMatched(hit: Pick<Hit, 'matchedTerms' | 'parts'>): string {
  const lexical = hit.parts.filter((p) => /bm25/.test(p.signal));
  const places = [...new Set(lexical.map((p) => (/verbatim/.test(p.signal) ? 'the conversation' : 'its summary')))];
  const meaning = hit.parts.some((p) => /vec/.test(p.signal));
  const pieces: string[] = [];
  if (hit.matchedTerms.length) {
    const words = hit.matchedTerms.slice(0, 6).map((t) => `“${t}”`).join(', ');
    pieces.push(`Your words ${words}${places.length ? ` in ${places.join(' and ')}` : ''}`);
  }
  if (meaning) pieces.push(pieces.length ? 'close in meaning too' : 'Close in meaning to what you wrote');
  return pieces.length ? pieces.join('; ') : 'Related: none of your words appear in it';
}

export function toCandidate(hit: Hit, now = Date.now()): Candidate {
  const context = hit.context ? withoutSubject(hit.context, hit.title) : '';
  return {
    exchangeId: hit.exchangeId,
    headline: headline(hit),
    ...(hit.title ? { title: visible(hit.title) } : {}),
    distilled: hit.core !== undefined,
    ...(context ? { context: visible(context, { lines: true }) } : {}),
    when: relativeDate(hit.startedAt, now),
    date: `${shortDate(hit.startedAt)}${approximateDate(hit.datePrecision) ? ' (approx.)' : ''}`,
    agent: hit.agent,
    agentName: AGENT_NAMES[hit.agent],
    files: hit.filesTouched.slice(0, 6).map((f) => ({
      path: f.path,
      label: visible(f.path),
      how: f.how,
      ...(f.lines?.length ? { lines: formatLineRanges(f.lines) } : {}),
      touched: touchedPhrase(f.how, f.lines),
    })),
    rooms: hit.rooms.map((r) => ({ id: r.id, label: visible(r.label) })),
    confidence: hit.confidence,
    snippet: snippetParts(hit.snippet).map((p) => ({ ...p, text: visible(p.text, { lines: true }) })),
    why: whyMatched(hit),
    ...(hit.more > 0 ? { more: { count: hit.more, conversation: { id: hit.conversationId, label: conversationLabel(hit.title, hit.firstPrompt) } } } : {}),
    ...(hit.copies.length > 0 ? { savedIn: hit.copies.map((c) => `${visible(c.file)}, lines ${c.lineStart}–${c.lineEnd}`) } : {}),
  };
}

const TIME_DAYS: Record<TimeFacet, number> = { week: 7, month: 31, quarter: 92 };

/**
 * The time facets that narrow this memory: a window some exchanges fall in and some do not. "Past week" on a
 * history whose last exchange is a year old can only empty the list, and on one that is all from this week it
 * changes nothing.
 */
export function refiningTimes(dates: { readonly oldest?: string; readonly newest?: string }, now = Date.now()): TimeFacet[] {
  const oldest = dates.oldest ? Date.parse(dates.oldest) : NaN;
  const newest = dates.newest ? Date.parse(dates.newest) : NaN;
  if (Number.isNaN(oldest) || Number.isNaN(newest)) return [];
  return (Object.keys(TIME_DAYS) as TimeFacet[]).filter((t) => {
    const since = now - TIME_DAYS[t] * 86400_000;
    return newest >= since && oldest < since;
  });
}

/**
 * Facets as the panel's chips name them: a room's or a conversation's label is transcript text (its hidden
 * characters shown); ids and the file path stay as they are, since they filter.
 */
export function shownFacets(f: Facets): Facets {
  const shown = <T extends { readonly label: string }>(n: T): T => ({ ...n, label: visible(n.label) });
  return { ...f, ...(f.room ? { room: shown(f.room) } : {}), ...(f.like ? { like: shown(f.like) } : {}), ...(f.conversation ? { conversation: shown(f.conversation) } : {}) };
}

/** The facets as search filters. */
export function facetFilters(f: Facets, now = Date.now()): SearchFilters {
  return {
    ...(f.agent ? { agents: [f.agent] } : {}),
    ...(f.time ? { since: new Date(now - TIME_DAYS[f.time] * 86400_000).toISOString() } : {}),
    ...(f.room ? { room: f.room.id } : {}),
    ...(f.file ? { file: f.file } : {}),
    ...(f.conversation ? { conversation: f.conversation.id } : {}),
  };
}
