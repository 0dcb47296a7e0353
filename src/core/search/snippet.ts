import { stem } from './terms';

/** Marks around a matched term in a snippet (the UI escapes the text, then turns these into highlights). */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

const SNIPPET_CHARS = 240;
/** Enough to find a good window in a long exchange without scanning all of it quadratically. */
const MAX_MATCHES = 300;

export interface Snippet {
  readonly text: string;
  readonly matchedTerms: string[];
}

/**
 * A short excerpt of `verbatim` around the densest cluster of query-term matches, with every match
 * marked. A term matches a word that starts with its stem (`test` marks `tests`, `testing`). No match:
 * the start of the text, unmarked.
 */
export function makeSnippet(verbatim: string, terms: readonly string[], maxChars = SNIPPET_CHARS): Snippet {
  const text = verbatim.replace(/[\u0001\u0002]/g, ' ');
  const stems = [...new Set(terms.map(stem))].filter((s) => s.length > 0);
  const matches: Array<{ start: number; end: number; term: string }> = [];
  if (stems.length > 0) {
    const word = /[\p{L}\p{N}\p{M}]+/gu;
    for (const m of text.matchAll(word)) {
      const lower = m[0].toLowerCase();
      // A short stem (`x`, `id`) would mark every word that begins with it: short terms match whole words only.
      const s = stems.find((st) => (st.length >= 3 ? lower.startsWith(st) : lower === st));
      if (s !== undefined) matches.push({ start: m.index!, end: m.index! + m[0].length, term: s });
      if (matches.length >= MAX_MATCHES) break;
    }
  }
  const matchedTerms = terms.filter((t) => matches.some((m) => m.term === stem(t)));
  // The window that holds the most distinct terms, then the most matches.
  let from = 0;
  let best = -1;
  for (let i = 0; i < matches.length; i++) {
    const inWindow = matches.filter((m) => m.start >= matches[i]!.start && m.end <= matches[i]!.start + maxChars);
    const value = new Set(inWindow.map((m) => m.term)).size * 1000 + inWindow.length;
    if (value > best) {
      best = value;
      from = Math.max(0, matches[i]!.start - 40);
    }
  }
  const to = Math.min(text.length, from + maxChars);
  let out = '';
  let at = from;
  for (const m of matches) {
    if (m.start < from || m.end > to) continue;
    out += text.slice(at, m.start) + MARK_START + text.slice(m.start, m.end) + MARK_END;
    at = m.end;
  }
  out += text.slice(at, to);
  const snippet = (from > 0 ? '…' : '') + out.replace(/\s+/g, ' ').trim() + (to < text.length ? '…' : '');
  return { text: snippet, matchedTerms };
}
