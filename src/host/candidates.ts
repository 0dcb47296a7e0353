import type { Hit, SearchFilters } from '../core/search/types';
import { relativeDate, shortDate } from '../core/time';
import type { Candidate, Facets, SnippetPart, TimeFacet } from '../protocol';

const MARK_START = '\u0001';
const MARK_END = '\u0002';

/** Splits a searcher snippet (terms wrapped in \u0001…\u0002) into plain and marked text pieces. */
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

/** "matched coupon, checkout · verbatim/bm25 #1 + core/bm25 #3". */
export function whyMatched(hit: Pick<Hit, 'matchedTerms' | 'parts'>): string {
  const terms = hit.matchedTerms.length ? `matched ${hit.matchedTerms.join(', ')}` : 'no query word in the text (related)';
  const signals = hit.parts.map((p) => `${p.signal} #${p.rank}`).join(' + ');
  return signals ? `${terms} · ${signals}` : terms;
}

export function toCandidate(hit: Hit, now = Date.now()): Candidate {
  const headline = (hit.core ?? hit.prompt).trim().split('\n')[0] || '(continuation of a long exchange)';
  return {
    exchangeId: hit.exchangeId,
    headline: headline.length > 200 ? `${headline.slice(0, 199)}…` : headline,
    distilled: hit.core !== undefined,
    ...(hit.context ? { context: hit.context } : {}),
    when: relativeDate(hit.startedAt, now),
    date: shortDate(hit.startedAt),
    agent: hit.agent,
    files: hit.filesTouched.slice(0, 6).map((f) => ({
      path: f.path,
      how: f.how,
      ...(f.lines?.length ? { lines: f.lines.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}–${r.end}`)).join(', ') } : {}),
    })),
    rooms: hit.rooms.map((r) => ({ id: r.id, label: r.label })),
    confidence: hit.confidence,
    snippet: snippetParts(hit.snippet),
    why: whyMatched(hit),
  };
}

const TIME_DAYS: Record<TimeFacet, number> = { week: 7, month: 31, quarter: 92 };

/** The panel's facets as search filters. */
export function facetFilters(f: Facets, now = Date.now()): SearchFilters {
  return {
    ...(f.agent ? { agents: [f.agent] } : {}),
    ...(f.time ? { since: new Date(now - TIME_DAYS[f.time] * 86400_000).toISOString() } : {}),
    ...(f.room ? { room: f.room.id } : {}),
    ...(f.file ? { file: f.file } : {}),
  };
}
