/**
 * The words the index matched a query word with. The verbatim index stems English words with FTS5's porter
 * tokenizer, so `tests` finds `testing` and `speed` finds `speeds` but not `specific`. Snippets (what is
 * marked, which words a hit holds) look for the same words in the text with the same stemmer: the `stemmer`
 * package is that algorithm, and gives FTS5's stem for every one of the corpus's 60,979 English words
 * (compared through an FTS5 table with fts5vocab). Proximity keeps its own, looser base (proximity.wordBase):
 * with porter's it lost three conceptual dev queries.
 *
 * FTS5 stems ASCII words only: a Cyrillic word has its own stemmer (cyrillic.ts); a word of another script, or
 * with an accent, is left to the callers' own rules (a prefix: `código` marks `códigos`).
 */
import { memoize } from './memo';

const stemmer = require('stemmer') as (word: string) => string;

const ENGLISH_WORD = /^[a-z0-9]+$/;

/** Whether FTS5's porter stemmer stems `word` (a lower-case word: letters a-z and digits only). */
export function isEnglishWord(word: string): boolean {
  return ENGLISH_WORD.test(word);
}

/**
 * FTS5's porter stem of a lower-case English word (`speeds` -> `speed`, `capability` -> `capabl`); remembered:
 * the same words come back in every snippet of a search, and across searches.
 */
export const porterStem: (word: string) => string = memoize(stemmer, 20_000);

/**
 * How every word with porter stem `stem` begins: the stem itself but for a last letter the stemmer may have
 * changed (`happy` -> `happi`, `hoping` -> `hope`, `capability` -> `capabl`). So the words are found with
 * indexOf, then each is stemmed. Checked on the corpus's 215,069 distinct words: each begins with it.
 */
export function stemStart(stem: string): string {
  return stem.replace(/[ei]$/, '').replace(/bl$/, 'b');
}
