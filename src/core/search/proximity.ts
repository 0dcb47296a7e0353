import { foldAccents } from '../accents';
import { cyrillicStem, isCyrillicWord } from '../cyrillic';
import { memoize } from '../memo';
import { ROLE_LABEL_RE } from '../render';
import { isAsciiWordCode, isUnspacedWord, isWordUnit, wordEnd } from '../words';
import { FoundPlaces } from './foundPlaces';
import type { Scored } from './fusion';

/**
 * Proximity evidence for multi-word queries, a second stage after BM25 on verbatim. BM25 scores each word
 * alone, so an exchange that says "squash the refactor branch" and one that mentions squash, refactor and
 * branch in three unrelated places score alike. As in the sequential dependence model (Metzler & Croft 2005),
 * each pair of neighbouring query words (stopwords dropped, in the query's order) that stands within
 * PROXIMITY_WINDOW words of each other, in either order, in an exchange is evidence that the exchange says
 * what the query says.
 *
 * A pair found adds the mean IDF of its two words: what one more matched word of that rarity adds to BM25
 * (FTS5's k1 = 1.2: tf 1 in an exchange of average length scores idf * 2.2 / 2.2). One weight, at that
 * natural value, not fitted (a prototype on the dev queries, with FTS5's NEAR, gained the same from half
 * to the full weight and less at 1.5 times it).
 *
 * Cost: only the first RERANK_DEPTH candidates are read, at most PROXIMITY_CHARS of each matched in
 * JavaScript (a word with the query word's base, wordBase): about 2 ms of CPU per query at 50K exchanges. On
 * the dev queries depth 20 changes the same ranks as 50 and 16,000 characters as 64,000 (8,000 lost pairs).
 * FTS5's own NEAR was tried first: it seeks every candidate in every pair's posting lists (0.7 to 2 ms per
 * pair at 50K exchanges).
 */
export const PROXIMITY_WINDOW = 8;
export const RERANK_DEPTH = 20;
export const PROXIMITY_CHARS = 16_000;
/** Eight words never span more characters than this (beyond it, words are not counted). */
const MAX_NEAR_CHARS = 400;

/** A common word is looked at in this many places at most: its first ones are enough to find a pair. */
const MAX_OCCURRENCES = 200;

/** What proximity reads of one exchange: its text's proximity form, and where its words were found in it so far. */
export interface ProximityText {
  readonly form: string;
  readonly places: FoundPlaces;
}

/** The proximity texts of exchanges, by row number. */
export type FormsOf = (ns: readonly number[]) => Promise<ReadonlyMap<number, ProximityText>>;

/**
 * `hits` (best first) with each of the first RERANK_DEPTH candidates' scores raised by its proximity evidence,
 * re-sorted. Scores only grow, so the candidates below the depth stay below those above it.
 */
export async function withProximity(formsOf: FormsOf, terms: readonly string[], idf: ReadonlyMap<string, number>, hits: readonly Scored[]): Promise<Scored[]> {
  const top = hits.slice(0, RERANK_DEPTH);
  if (terms.length < 2 || top.length < 2) return [...hits];
  // loops, not `map`: TurboFan's inlined `map` makes holey arrays where the interpreter's makes packed ones, and code
  // compiled for one kind is thrown away at the other (issue 42); the weights typed, never Smis in one search and
  // doubles in the next
  const ns: number[] = [];
  for (const h of top) ns.push(h.n);
  const forms = await formsOf(ns);
  const weight = new Float64Array(terms.length - 1);
  for (let i = 0; i < weight.length; i++) weight[i] = ((idf.get(terms[i]!) ?? 0) + (idf.get(terms[i + 1]!) ?? 0)) / 2;
  const bonus = new Map<number, number>();
  for (const [n, { form, places }] of forms) {
    let sum = 0;
    for (const pair of pairsIn(form, terms, places)) sum += weight[pair]!;
    bonus.set(n, sum);
  }
  const raised: Scored[] = [];
  for (const h of top) raised.push({ n: h.n, score: h.score + (bonus.get(h.n) ?? 0) });
  // stable: equal scores keep BM25's order
  return [...raised.sort((x, y) => y.score - x.score), ...hits.slice(RERANK_DEPTH)];
}

/**
 * The first `count` characters (code points) of `text`: what SQLite's `substr(text, 1, count)` gives, so a
 * whole text cut here holds the pairs that reading only its head in SQL found.
 */
export function firstCharacters(text: string, count: number): string {
  if (text.length <= count) return text;
  let units = 0;
  for (let points = 0; points < count && units < text.length; points++) {
    const code = text.charCodeAt(units);
    const next = code >= 0xd800 && code <= 0xdbff ? text.charCodeAt(units + 1) : 0;
    units += next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return text.slice(0, units);
}

/**
 * The neighbouring pairs of `terms` (pair i = terms i and i + 1) whose words stand in `text` with at most
 * PROXIMITY_WINDOW words between them, in either order. Two terms of one word are not a pair.
 */
export function pairsNear(text: string, terms: readonly string[]): Set<number> {
  return pairsIn(foldAccents(text.replace(ROLE_LABEL_RE, ' ').toLowerCase()), terms, new FoundPlaces());
}

/**
 * What proximity reads of a verbatim text: its first PROXIMITY_CHARS characters, lower-cased, without the role
 * labels (they are not what anyone said: a query's "user" is not every `User:`), accents folded as the index folds them.
 */
export function proximityForm(verbatim: string): string {
  return foldAccents(firstCharacters(verbatim, PROXIMITY_CHARS).replace(ROLE_LABEL_RE, ' ').toLowerCase());
}

/** pairsNear of a text in its proximity form (`lower`: lower-cased, without labels); `places`: its terms' occurrences. */
function pairsIn(lower: string, queryTerms: readonly string[], places: FoundPlaces): Set<number> {
  // the form's words are folded: `codigo` stands where `código` was (a loop: a packed array, as in withProximity)
  const terms: string[] = [];
  for (const t of queryTerms) terms.push(foldAccents(t));
  const occurrencesOf = (t: string) => places.of(t, () => occurrences(lower, t));
  const found = new Set<number>();
  for (let i = 0; i + 1 < terms.length; i++) {
    if (wordBase(terms[i]!) === wordBase(terms[i + 1]!)) continue;
    const a = occurrencesOf(terms[i]!);
    // a word the text does not hold has no neighbour: the other is not looked for (unless another pair needs it)
    if (a.length > 0 && near(lower, a, occurrencesOf(terms[i + 1]!))) found.add(i);
  }
  return found;
}

/**
 * Whether a word of `a` and one of `b` (start and end, flat; in text order) have at most PROXIMITY_WINDOW words
 * between them. Only the `b` words closest to each `a` word, one before and one after, need counting.
 */
function near(text: string, a: readonly number[], b: readonly number[]): boolean {
  let j = 0;
  for (let p = 0; p < a.length; p += 2) {
    const start = a[p]!;
    while (j < b.length && b[j]! < start) j += 2;
    if (j > 0 && wordsBetween(text, b[j - 1]!, start) <= PROXIMITY_WINDOW) return true;
    if (j < b.length && wordsBetween(text, a[p + 1]!, b[j]!) <= PROXIMITY_WINDOW) return true;
  }
  return false;
}

/**
 * Words in text[from, to) (0 when the two words overlap), counted only up to PROXIMITY_WINDOW + 1: all a caller
 * asks is whether they are within the window. More than PROXIMITY_WINDOW when far apart in characters.
 */
function wordsBetween(text: string, from: number, to: number): number {
  if (to <= from) return 0;
  if (to - from > MAX_NEAR_CHARS) return PROXIMITY_WINDOW + 1;
  let words = 0;
  let inWord = false;
  for (let i = from; i < to; ) {
    const code = text.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (code < 128) word = isAsciiWordCode(code);
    else {
      const point = text.codePointAt(i)!;
      width = point > 0xffff ? 2 : 1;
      // a character cut by `to` is half a surrogate pair: not a word character, as in a slice
      word = i + width <= to && WORD_POINT.test(String.fromCodePoint(point));
    }
    if (word && !inWord && ++words > PROXIMITY_WINDOW) return words;
    inWord = word;
    i += width;
  }
  return words;
}

const WORD_POINT = /^[\p{L}\p{N}\p{M}]$/u;

/**
 * Where `term`'s word stands in `lower`: words with the same base (wordBase), or for a prefix term (`word*`)
 * and words of unspaced scripts, any text starting with it. At most MAX_OCCURRENCES, in text order: start and
 * end, flat.
 */
function occurrences(lower: string, term: string): number[] {
  const prefix = term.endsWith('*');
  const word = prefix ? term.slice(0, -1) : term;
  const base = wordBase(word);
  const loose = prefix || isUnspacedWord(word);
  const out: number[] = [];
  for (let i = lower.indexOf(base); i >= 0 && out.length < 2 * MAX_OCCURRENCES; i = lower.indexOf(base, i + 1)) {
    if (loose) {
      out.push(i, i + base.length);
      continue;
    }
    if (i > 0 && isWordUnit(lower, i - 1)) continue;
    const end = wordEnd(lower, i + base.length);
    if (end === i + word.length && lower.startsWith(word, i)) out.push(i, end);
    else if (wordBase(lower.slice(i, end)) === base) out.push(i, end);
  }
  return out;
}

/**
 * A word without one common English ending (`codes`, `coded` and `code` are `cod`; `rewriting` and
 * `rewrite` are `rewrit`): close enough to FTS5's porter stemmer to tell the same word, which is all
 * proximity needs (it only looks at words BM25 already matched). A Cyrillic word's base is its lexicon stem.
 */
export const wordBase: (word: string) => string = memoize(baseOf, 50_000);

/** wordBase's rule, run once a word: proximity asks it of every occurrence that is not the query's word itself. */
function baseOf(word: string): string {
  if (isCyrillicWord(word)) return cyrillicStem(word); // the lexicon's stem: an ending cut, so still a prefix
  const m = /^(.{3,}?)(?:ations?|ings?|ers?|ies|ed|es|e|s|ly)$/u.exec(word);
  return m ? m[1]! : word;
}
