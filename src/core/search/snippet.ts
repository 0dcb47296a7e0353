import { ROLE_LABEL_RE, isRoleLabelWord } from '../render';
import { isUnspacedWord, isWordCharBefore, isWordUnit, wordEnd } from '../words';
import { foldAccents } from '../accents';
import { cyrillicStem, foldYo, isCyrillicWord } from '../cyrillic';
import { isEnglishWord, porterStem, stemStart } from '../porter';
import type { FoundPlaces } from './foundPlaces';
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
 * marked. A term marks the words the index matched it with (`test` marks `tests`, `testing`, not `testament`;
 * porter.ts). No match: the start of the text, unmarked. `places`: the words found in `verbatim` by earlier
 * snippets of it, and where this one finds more.
 */
export function makeSnippet(verbatim: string, terms: readonly string[], maxChars = SNIPPET_CHARS, places?: FoundPlaces): Snippet {
  const text = withoutMarks(verbatim);
  const wanted = terms.map(wantedOf);
  const matches = findMatches(text, distinctWanted(wanted), MAX_MATCHES, false, places);
  const found = new Set(matches.map((m) => m.term));
  const matchedTerms = terms.filter((_, i) => found.has(wanted[i]!.key));
  const window = densestWindow(matches, maxChars);
  const from = wordStart(text, window, matches.find((m) => m.start >= window)?.start ?? window + 40);
  const to = Math.min(text.length, from + maxChars);
  let out = '';
  let at = from;
  for (const m of matches) {
    if (m.start < from || m.end > to) continue;
    out += text.slice(at, m.start) + MARK_START + text.slice(m.start, m.end) + MARK_END;
    at = m.end;
  }
  out += text.slice(at, to);
  // the character before the window says whether its first line starts a line of the exchange
  const tidy = withoutMarkup((from > 0 ? text[from - 1]! : '\n') + out).slice(1);
  const snippet = (from > 0 ? '…' : '') + tidy.replace(/\s+/g, ' ').trim() + (to < text.length ? '…' : '');
  return { text: snippet, matchedTerms };
}

/** Whether `verbatim` holds a word of `terms` as makeSnippet finds and marks them (`matchedTerms` not empty). */
export function holdsQueryWord(verbatim: string, terms: readonly string[]): boolean {
  // one match of any word is enough to know: the others are not looked for
  return findMatches(withoutMarks(verbatim), distinctWanted(terms.map(wantedOf)), 1, true).length > 0;
}

/** The text without the characters that mark matches (they would mark nothing). */
function withoutMarks(verbatim: string): string {
  // two includes() scan a text of tens of kilobytes several times faster than the character class
  return verbatim.includes(MARK_START) || verbatim.includes(MARK_END) ? verbatim.replace(/[\u0001\u0002]/g, ' ') : verbatim;
}

/** Each query word looked for once (words with one key are one word); none without a start (marks alone). */
function distinctWanted(wanted: readonly Wanted[]): Wanted[] {
  return [...new Map(wanted.filter((w) => w.start.length > 0).map((w) => [w.key, w])).values()];
}

/** `at`, or the start of the next word when `at` falls inside one, never past `limit` (the first match). */
function wordStart(text: string, at: number, limit: number): number {
  if (at === 0 || at >= text.length || !isWordUnit(text, at - 1) || !isWordUnit(text, at)) return at;
  const space = text.slice(at, limit).search(/\s/);
  return space < 0 ? at : at + space + 1;
}

/**
 * An excerpt as a person reads it: without the rendering's role labels (`User:`, `[tool]`) and Markdown's
 * emphasis and fence markers. Matches are never on these, so the marks stay where they were.
 */
function withoutMarkup(s: string): string {
  return s
    .replace(ROLE_LABEL_RE, '')
    .replace(/```[\w+-]*|\*\*|__/g, ' ');
}

interface Match {
  readonly start: number;
  readonly end: number;
  readonly term: string;
}

/**
 * A query word as the snippet looks for it: the words beginning with `start`; for an English or a Cyrillic word
 * only those its stemmer gives `stem` (porter.ts, cyrillic.ts), the words the index matched it with.
 */
interface Wanted {
  /** What a match names: query words with one key are one word (`tests`, `testing`), looked for once. */
  readonly key: string;
  readonly start: string;
  /** The stem the index gave the word, and its stemmer: a word found is the wanted one when it has that stem. */
  readonly stem?: string;
  readonly stemOf?: (word: string) => string;
}

/**
 * A query word's Wanted: its porter stem for an English word, its Snowball stem for a Cyrillic one (cyrillic.ts),
 * else its crude stem (any word beginning with it).
 */
function wantedOf(queryTerm: string): Wanted {
  const term = foldAccents(queryTerm); // as the index folds it: `código` is looked for as `codigo`, in folded text
  if (!term.endsWith('*') && isEnglishWord(term)) {
    const porter = porterStem(term);
    return { key: porter, start: stemStart(porter), stem: porter, stemOf: porterStem };
  }
  if (isCyrillicWord(term)) {
    const cyrillic = cyrillicStem(term);
    return { key: cyrillic, start: cyrillic, stem: cyrillic, stemOf: cyrillicStem };
  }
  const start = stem(term);
  return { key: `${start}*`, start };
}

/**
 * The words of `text` that are a wanted word, in text order, the first `max`; a word two wanted words find
 * marks the first of them. Another language's short stem (`x`, `на`) would mark every word that begins with
 * it, so short ones match whole words only. Found with indexOf on the lower-cased text: exchanges are tens of
 * kilobytes, and a case-insensitive Unicode regular expression was ten times slower. Each word is looked for
 * up to its `max`-th match only: a match after it has `max` matches before it. `anyOne`: the words after the first
 * one found are not looked for (whether the text holds any). `places`: the words' places in `text` found before.
 */
function findMatches(text: string, wanted: readonly Wanted[], max: number, anyOne = false, places?: FoundPlaces): Match[] {
  // One array filled one way: three kinds of array here made densestWindow's loads polymorphic (V8 deopts)
  const out: Match[] = [];
  if (wanted.length === 0) return out;
  let lower: string | undefined;
  const cyrillic = wanted.some((w) => w.stemOf === cyrillicStem);
  const byStart = new Map<number, { end: number; rank: number }>();
  for (const [rank, w] of wanted.entries()) {
    const find = () => wordPlaces(text, (lower ??= lowerCased(text, cyrillic)), w, max);
    // a word's key names its start and porter stem: the same key finds the same places
    const found = places ? places.of(`${w.key}\u0000${max}`, find) : find();
    for (let p = 0; p < found.length; p += 2) {
      const start = found[p]!;
      const seen = byStart.get(start);
      if (!seen || seen.rank > rank) byStart.set(start, { end: found[p + 1]!, rank });
    }
    if (anyOne && byStart.size > 0) break;
  }
  for (const start of [...byStart.keys()].sort((a, b) => a - b)) {
    if (out.length === max) break;
    const m = byStart.get(start)!;
    out.push({ start, end: m.end, term: wanted[m.rank]!.key });
  }
  return out;
}

/**
 * `text` lower-cased, each character where it was; accents folded as the index folds them (accents.ts); for Cyrillic
 * words, `ё` as `е`, as their stems write it.
 */
function lowerCased(text: string, cyrillic: boolean): string {
  let lower = text.toLowerCase();
  // The one character whose lower case is longer (İ -> i + dot): offsets must stay those of `text`.
  if (lower.length !== text.length) lower = text.replace(/\u0130/g, 'I').toLowerCase();
  lower = foldAccents(lower);
  return cyrillic ? foldYo(lower) : lower;
}

/** The first `max` words of `text` (`lower`: lower-cased) that are the wanted word `w`: start and end, flat. */
function wordPlaces(text: string, lower: string, { start: st, stem: wantedStem, stemOf }: Wanted, max: number): number[] {
  // a Chinese, Japanese or Thai word sits inside a run of letters: it matches where it stands
  const unspaced = isUnspacedWord(st);
  const out: number[] = [];
  for (let i = lower.indexOf(st); i >= 0 && out.length < 2 * max; i = lower.indexOf(st, i + 1)) {
    if (!unspaced && isWordCharBefore(lower, i)) continue;
    const end = unspaced ? i + st.length : wordEnd(lower, i + st.length);
    if (stemOf !== undefined ? stemOf(lower.slice(i, end)) !== wantedStem : !unspaced && st.length < 3 && end !== i + st.length) continue;
    if (isRoleLabelWord(text, i, end)) continue;
    out.push(i, end);
  }
  return out;
}

/**
 * Where the excerpt starts: 40 characters before the window of `maxChars` that holds the most distinct
 * terms, then the most matches (a sliding window over the matches, which are in text order).
 */
function densestWindow(matches: readonly Match[], maxChars: number): number {
  let from = 0;
  let best = -1;
  const inWindow = new Map<string, number>();
  let end = 0;
  for (let i = 0; i < matches.length; i++) {
    if (end < i) end = i; // a word longer than the window holds nothing, not even itself
    const limit = matches[i]!.start + maxChars;
    for (; end < matches.length && matches[end]!.end <= limit; end++) {
      const term = matches[end]!.term;
      inWindow.set(term, (inWindow.get(term) ?? 0) + 1);
    }
    const value = inWindow.size * 1000 + (end - i);
    if (value > best) {
      best = value;
      from = Math.max(0, matches[i]!.start - 40);
    }
    if (end === i) continue;
    const first = matches[i]!.term;
    const left = inWindow.get(first)! - 1;
    if (left === 0) inWindow.delete(first);
    else inWindow.set(first, left);
  }
  return from;
}
