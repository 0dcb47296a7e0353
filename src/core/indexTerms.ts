import { memoize } from './memo';
import { isEnglishWord, porterStem } from './porter';

/**
 * The terms of the lexicon (store/lexicon.ts), BM25's index over what people said: one function for the
 * text indexed and for the words of a query, so the two always agree. A word is a run of letters, digits and
 * marks (as search/terms.ts cuts a query) of text already made searchable (words.searchableText: apostrophes,
 * unspaced scripts cut into words), lower-cased, Latin accents removed (`código` is `codigo`, as FTS5's
 * unicode61 folds them) and English words reduced to their porter stem (`tests`, `testing` -> `test`, as FTS5's
 * porter tokenizer does). Words longer than MAX_TERM_LENGTH are base64, hashes or minified code: no query holds
 * one (terms.ts drops them), so they are not indexed.
 */
export const MAX_TERM_LENGTH = 64;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Combining diacritical marks: what a Latin letter with an accent leaves beside its base letter in NFD. */
const DIACRITIC = /[\u0300-\u036f]/;
const DIACRITICS = /[\u0300-\u036f]/g;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The lexicon's term for one lower-case word (a query term, or a word of indexed text); remembered: a transcript
 * repeats its words, and indexing them is most of the work.
 */
export const indexTerm: (word: string) => string = memoize(termOf, 50_000);

function termOf(word: string): string {
  let folded = word;
  if (!ASCII.test(word)) {
    const nfd = word.normalize('NFD');
    if (DIACRITIC.test(nfd)) folded = nfd.replace(DIACRITICS, '').normalize('NFC');
  }
  if (!HAS_LETTER_OR_DIGIT.test(folded)) return '';
  return isEnglishWord(folded) ? porterStem(folded) : folded;
}

/**
 * Counts the terms of searchable text into `counts` (term -> occurrences) and returns how many words the text
 * has: its length for BM25, overlong words included (they are words of the text, only not searchable).
 */
export function countIndexTerms(text: string, counts: Map<string, number>): number {
  let words = 0;
  const lower = text.toLowerCase();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(lower); m !== null; m = WORD.exec(lower)) {
    const word = m[0];
    if (word.length > MAX_TERM_LENGTH) {
      words++;
      continue;
    }
    const term = indexTerm(word);
    if (term === '') continue; // marks alone: no word
    words++;
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return words;
}
