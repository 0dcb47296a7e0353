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
  const wanted = wantedOfAll(terms);
  const distinct = distinctWanted(wanted);
  const matches = findMatches(text, distinct, MAX_MATCHES, false, places);
  const found = new Set<string>();
  for (let m = 0; m < matches.count; m++) found.add(distinct[matches.word[m]!]!.key);
  const matchedTerms = terms.filter((_, i) => found.has(wanted[i]!.key));
  const window = densestWindow(matches, distinct.length, maxChars);
  let first = 0;
  while (first < matches.count && matches.start[first]! < window) first++;
  const from = wordStart(text, window, first < matches.count ? matches.start[first]! : window + 40);
  const to = Math.min(text.length, from + maxChars);
  let out = '';
  let at = from;
  for (let m = 0; m < matches.count; m++) {
    const start = matches.start[m]!;
    const end = matches.end[m]!;
    if (start < from || end > to) continue;
    out += text.slice(at, start) + MARK_START + text.slice(start, end) + MARK_END;
    at = end;
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
  return findMatches(withoutMarks(verbatim), distinctWanted(wantedOfAll(terms)), 1, true).count > 0;
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

/**
 * A text's first `count` matches in text order: each one's start and end, and which word it is (its index among the
 * distinct wanted words). Typed arrays, not an object a match: a snippet finds up to MAX_MATCHES, a search makes ten,
 * and a typed array's numbers (beyond a few) are not in the young heap V8 scavenges (issue 42: an agent's slowest calls
 * were those that met a scavenge, and what a call allocates sets how many do).
 */
interface Matches {
  readonly count: number;
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly word: Int32Array;
}

/**
 * A query word as the snippet looks for it: the words beginning with `start`; for an English or a Cyrillic word
 * only those its stemmer gives `stem` (porter.ts, cyrillic.ts), the words the index matched it with. A class, every
 * field always set: one shape for V8, so the functions reading it stay optimised (an object literal with and one
 * without the stem were two maps, and code compiled for one was thrown away at the other: issue 42).
 */
class Wanted {
  constructor(
    /** What a match names: query words with one key are one word (`tests`, `testing`), looked for once. */
    readonly key: string,
    readonly start: string,
    /** The stem the index gave the word ('' without a stemmer). */
    readonly stem: string,
    /** Its stemmer: a word found is the wanted one when it has that stem. */
    readonly stemOf: ((word: string) => string) | undefined,
  ) {}
}

/**
 * Each term's Wanted, in a packed array: TurboFan's inlined `map` makes holey arrays where the interpreter's makes
 * packed ones, and code compiled for one kind is thrown away at the other (issue 42).
 */
function wantedOfAll(terms: readonly string[]): Wanted[] {
  const out: Wanted[] = [];
  for (let i = 0; i < terms.length; i++) out.push(wantedOf(terms[i]!));
  return out;
}

/**
 * A query word's Wanted: its porter stem for an English word, its Snowball stem for a Cyrillic one (cyrillic.ts),
 * else its crude stem (any word beginning with it).
 */
function wantedOf(queryTerm: string): Wanted {
  const term = foldAccents(queryTerm); // as the index folds it: `código` is looked for as `codigo`, in folded text
  if (!term.endsWith('*') && isEnglishWord(term)) {
    const porter = porterStem(term);
    return new Wanted(porter, stemStart(porter), porter, porterStem);
  }
  if (isCyrillicWord(term)) {
    const cyrillic = cyrillicStem(term);
    return new Wanted(cyrillic, cyrillic, cyrillic, cyrillicStem);
  }
  const start = stem(term);
  return new Wanted(`${start}*`, start, '', undefined);
}

/**
 * The words of `text` that are a wanted word, in text order, the first `max`; a word two wanted words find
 * marks the first of them. Another language's short stem (`x`, `на`) would mark every word that begins with
 * it, so short ones match whole words only. Found with indexOf on the lower-cased text: exchanges are tens of
 * kilobytes, and a case-insensitive Unicode regular expression was ten times slower. Each word is looked for
 * up to its `max`-th match only: a match after it has `max` matches before it. `anyOne`: the words after the first
 * one found are not looked for (whether the text holds any). `places`: the words' places in `text` found before.
 */
function findMatches(text: string, wanted: readonly Wanted[], max: number, anyOne = false, places?: FoundPlaces): Matches {
  let lower: string | undefined;
  const cyrillic = wanted.some((w) => w.stemOf === cyrillicStem);
  // each word's places, in text order (start and end, flat), by its index in `wanted`
  const lists: Array<readonly number[]> = [];
  let placesFound = 0;
  for (const w of wanted) {
    const find = () => wordPlaces(text, (lower ??= lowerCased(text, cyrillic)), w, max);
    // a word's key names its start and porter stem: the same key finds the same places
    const found = places ? places.of(`${w.key}\u0000${max}`, find) : find();
    lists.push(found);
    placesFound += found.length / 2;
    if (anyOne && found.length > 0) break;
  }
  // the lists merged in text order, the first `max` places (not a map of every place, an object each, sorted after)
  const size = Math.min(max, placesFound);
  const start = new Int32Array(size);
  const end = new Int32Array(size);
  const word = new Int32Array(size);
  const next = new Int32Array(lists.length);
  let count = 0;
  let last = -1;
  while (count < size) {
    let first = -1;
    let at = Infinity;
    for (let w = 0; w < lists.length; w++) {
      const list = lists[w]!;
      let i = next[w]!;
      while (i < list.length && list[i]! <= last) i += 2;
      next[w] = i;
      if (i < list.length && list[i]! < at) {
        at = list[i]!;
        first = w;
      }
    }
    if (first < 0) break;
    start[count] = at;
    end[count] = lists[first]![next[first]! + 1]!;
    word[count++] = first;
    last = at;
  }
  return { count, start, end, word };
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
function densestWindow(matches: Matches, words: number, maxChars: number): number {
  const { count, start, end: ends, word } = matches;
  let from = 0;
  let best = -1;
  // matches of each word in the window, and how many words it holds
  const inWindow = new Int32Array(words);
  let held = 0;
  let end = 0;
  for (let i = 0; i < count; i++) {
    if (end < i) end = i; // a word longer than the window holds nothing, not even itself
    const limit = start[i]! + maxChars;
    for (; end < count && ends[end]! <= limit; end++) if (inWindow[word[end]!]!++ === 0) held++;
    const value = held * 1000 + (end - i);
    if (value > best) {
      best = value;
      from = Math.max(0, start[i]! - 40);
    }
    if (end === i) continue;
    if (--inWindow[word[i]!]! === 0) held--;
  }
  return from;
}
