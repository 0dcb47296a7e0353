import { isStopWord } from './stopWords';
import { wordPieceTokens } from './tokenFit';
import type { VerbatimPart } from './verbatimParts';
import { type WordRarity, words } from './wordRarity';
import { type ExchangeWords, exchangeWords } from './exchangeWords';

/**
 * The offline distiller's search terms (issue 39 (b)): the words the exchange is found by that its headline and
 * detail do not say — its names, identifiers, error words and the human's own key words, most distinctive first.
 * The headline is a sentence a person reads and holds a few of them; a person searching remembers others ("gl_screen
 * log spam", "Nord theme, 80% opacity" of an exchange headlined by what was asked). A facet for search, never shown:
 * searched in the `all-facets` layer, not counted in the distilled text's tokens.
 *
 * Words are weighed as the headline weighs them (IDF in English × (1 + ln uses)), from what people and agents said
 * and did: the human's prompt, the assistant's text, tool calls (without the tool's name) and errors; tool results (file contents, listings,
 * logs) are left out, as most of their rare words are nobody's topic. The human's words count double: the person
 * remembers what they asked in their own words.
 */

/** Tokens the terms may take (cl100k): the headline and detail take ~28, so the object stays far under verbatim. */
export const TERMS_MAX_TOKENS = 24;
const HUMAN_WEIGHT = 2;
/** Longer runs are hashes, keys or blobs, not words anyone searches by. */
const MAX_WORD_CHARS = 32;

export function searchTerms(prompt: string, parts: readonly VerbatimPart[], stats: WordRarity, said: string, counted: ExchangeWords = exchangeWords(prompt, parts)): string {
  // each word's uses where people and agents said something (exchangeWords.ts: the headline's counts too); the human's
  // prompt, the assistant's text, errors and tool calls without the tool's name, of each part its first PART_CHARS (a
  // long paste says its topic early)
  const already = new Set(words(said));
  // the terms best first are read until one does not fit, and each takes a token at least: the first TERMS_MAX_TOKENS + 1
  // in that order are all that can be read, kept here in order as they come (the same order as a sort of every term,
  // without an object a term and the sort's copy: a third of the distiller's garbage was these)
  const best: string[] = [];
  const bestWeights: number[] = [];
  // (forEach: no [word, uses] pair made for each entry)
  counted.forEach(({ said: inProse, inErrorsAndArgs, human }, w) => {
    const n = inProse + inErrorsAndArgs;
    if (n === 0) return;
    const uses = 1 + Math.log(n);
    const voice = human ? HUMAN_WEIGHT : 1;
    // once the best are as many as can be read, a word that would not enter them even as rare as a word can be is not
    // weighed (nor looked up, nor tested as a term): most words of a long exchange (a third of a pass's word lookups)
    if (!mayEnter(bestWeights, stats.maxIdf * uses * voice)) return;
    if (!already.has(w) && isTerm(w)) keepBest(best, bestWeights, w, stats.idf(w) * uses * voice);
  });
  const kept: string[] = [];
  let tokens = 0;
  for (const w of best) {
    // (a word after a space: wordTokens(` ${w}`) without the text made and split)
    const t = wordPieceTokens(w, 1);
    if (tokens + t > TERMS_MAX_TOKENS) break;
    kept.push(w);
    tokens += t;
  }
  return kept.join(' ');
}

/** The most terms searchTerms can read: each takes a token at least, and the first that does not fit ends the terms. */
const MOST_READ = TERMS_MAX_TOKENS + 1;

/**
 * `w` of `weight` put in its place among the best terms so far (`best`, `weights`: heaviest first, then by the word's
 * code units, as a sort of every term by weight and word orders them), if it is among the first MOST_READ.
 */
export function keepBest(best: string[], weights: number[], w: string, weight: number): void {
  let at = best.length;
  while (at > 0 && (weights[at - 1]! < weight || (weights[at - 1] === weight && best[at - 1]! > w))) at--;
  if (at >= MOST_READ) return;
  // one place more while there is room (the last is dropped once there is not), the lighter ones moved down
  if (best.length < MOST_READ) {
    best.push(w);
    weights.push(weight);
  }
  for (let i = best.length - 1; i > at; i--) {
    best[i] = best[i - 1]!;
    weights[i] = weights[i - 1]!;
  }
  best[at] = w;
  weights[at] = weight;
}

/**
 * Whether a term weighing at most `bound` may still enter the best (keepBest): always while they are fewer than can be
 * read, else when it weighs at least the last (at equal weight the word decides). `bound` is computed as a weight is,
 * with the rarest word's IDF: floating-point products keep their order, so no term weighs more than its bound.
 */
export function mayEnter(weights: readonly number[], bound: number): boolean {
  return weights.length < MOST_READ || bound >= weights[MOST_READ - 1]!;
}

/** A word worth searching by: no function word, no bare number, hash or blob, no redaction marker (`[REDACTED_IP]`). */
function isTerm(w: string): boolean {
  if (w.length < 2 || w.length > MAX_WORD_CHARS || isStopWord(w)) return false;
  if (/^[\d_]+$/u.test(w)) return false;
  if (/^(?=[a-f\d]*\d)(?=[a-f\d]*[a-f])[a-f\d]{8,}$/u.test(w)) return false;
  return !/^redacted(?:_|$)/u.test(w);
}
