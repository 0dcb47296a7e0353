import { cyrillicStem, isCyrillicWord } from './cyrillic';
import { memoize } from './memo';
import { isEnglishWord, porterStem } from './porter';
import { isAsciiWordCode, wordEnd } from './words';

/**
 * The terms of the lexicon (store/lexicon.ts), BM25's index over what people said: one function for the
 * text indexed and for the words of a query, so the two always agree. A word is a run of letters, digits and
 * marks (as search/terms.ts cuts a query) of text already made searchable (words.searchableText: apostrophes,
 * unspaced scripts cut into words), lower-cased, Latin accents removed (`código` is `codigo`, as FTS5's
 * unicode61 folds them), English words reduced to their porter stem (`tests`, `testing` -> `test`, as FTS5's
 * porter tokenizer does) and Cyrillic words to their Snowball stem (cyrillic.ts: `файлам` -> `файл`; `й` is a
 * letter there, not an accented `и`). Words longer than MAX_TERM_LENGTH are base64, hashes or minified code: no query holds
 * one (terms.ts drops them), so they are not indexed.
 */
export const MAX_TERM_LENGTH = 64;

/** One word character at lastIndex, a surrogate pair whole: where a word starts outside ASCII. */
const WORD_CHAR_AT = /[\p{L}\p{N}\p{M}]/uy;
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
    if (isCyrillicWord(word)) return cyrillicStem(word);
    const nfd = word.normalize('NFD');
    if (DIACRITIC.test(nfd)) folded = nfd.replace(DIACRITICS, '').normalize('NFC');
  }
  if (!HAS_LETTER_OR_DIGIT.test(folded)) return '';
  return isEnglishWord(folded) ? porterStem(folded) : folded;
}

/**
 * Counts the terms of searchable text into `counts` (term -> occurrences) and returns how many words the text
 * has: its length for BM25, overlong words included (they are words of the text, only not searchable). The
 * words are runs of letters, digits and marks (`/[\p{L}\p{N}\p{M}]+/gu` on the lower-cased text), found by
 * their character codes (a regular expression only where a word starts or goes on outside ASCII) and counted
 * as they are before each distinct one is made a term: a transcript repeats its words, and a match array and a
 * lookup of the term for every occurrence were most of an index worker's time here. Terms go into `counts` in the
 * order of their first word. Several texts (an exchange's fields) are counted as one: each distinct word of them
 * all is made a term once (the prompt is in two fields, and the fields share most of their words).
 */
export function countIndexTerms(texts: string | readonly string[], counts: Map<string, number>): number {
  const seen = new Map<string, number>();
  for (const text of typeof texts === 'string' ? [texts] : texts) countWords(text.toLowerCase(), seen);
  let words = 0;
  for (const [word, n] of seen) {
    if (word.length > MAX_TERM_LENGTH) {
      words += n;
      continue;
    }
    const term = indexTerm(word);
    if (term === '') continue; // marks alone: no word
    words += n;
    counts.set(term, (counts.get(term) ?? 0) + n);
  }
  return words;
}

/** Counts each word of lower-case text into `seen`, in the order of their first occurrence. */
function countWords(lower: string, seen: Map<string, number>): void {
  for (let i = 0; i < lower.length; ) {
    const code = lower.charCodeAt(i);
    if (!(code < 128 ? isAsciiWordCode(code) : startsWord(lower, i))) {
      i++;
      continue;
    }
    const end = Math.max(i + 1, wordEnd(lower, i)); // one character at least: the two patterns agree, but never loop
    const word = lower.slice(i, end);
    seen.set(word, (seen.get(word) ?? 0) + 1);
    i = end;
  }
}

function startsWord(text: string, i: number): boolean {
  WORD_CHAR_AT.lastIndex = i;
  return WORD_CHAR_AT.test(text);
}
