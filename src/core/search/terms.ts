import { MAX_TERM_LENGTH } from '../indexTerms';
import { hangulQueryWord, searchableText, WORD_TOKEN } from '../words';

/**
 * User text -> search terms: word tokens (letters, digits, marks) cut the way the index was (core/words.ts:
 * apostrophes, unspaced scripts), so `NEAR`, `core:`, `*`, `^`, quotes and SQL fragments are plain words or
 * vanish (store/ftsSearch.ts quotes them for FTS5). A term ending in `*` is a prefix (Korean words without their
 * particle, see words.hangulQueryWord); no token can end in `*` otherwise.
 */

/** More terms than this add cost without changing the ranking much. */
export const MAX_TERMS = 32;

/** Words that match almost every exchange: dropped unless nothing else is left. */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my ' +
    'no not of on or our so that the their then there these this to was we were what when where which who why ' +
    'will with would you your ' +
    // contractions as the index holds them (apostrophe removed), e.g. typed without one
    'dont doesnt didnt isnt arent wasnt werent cant couldnt wouldnt shouldnt wont hasnt havent hadnt im ive ' +
    'youre youve theyre theyve weve thats whats lets theres heres'
  ).split(' '),
);

/**
 * Contractions are function words (`aren't`, `I'm`, `we've`, `it's`): dropped from a query whole, so no
 * fragment of them (`t`, `m`, `aren`) is searched or marked. A possessive (`user's`) stays, as `users`.
 */
const CONTRACTION =
  /(?<![\p{L}\p{N}\p{M}])(?:\p{L}+['\u2019](?:t|m|re|ve|ll|d)|(?:it|that|what|let|there|here|he|she|who|where)['\u2019]s)(?![\p{L}\p{N}\p{M}])/giu;

/** The distinct lower-case word tokens of `text`, stopwords dropped (unless only stopwords), at most MAX_TERMS. */
export function queryTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const m of searchableText(text.replace(CONTRACTION, ' ')).toLowerCase().matchAll(WORD_TOKEN)) {
    const t = m[0];
    if (t.length > MAX_TERM_LENGTH) continue; // base64, hashes, minified code: not indexed either
    const hangul = hangulQueryWord(t);
    seen.add(hangul !== undefined ? `${hangul}*` : t);
  }
  const all = [...seen];
  const content = all.filter((t) => !STOPWORDS.has(t));
  return (content.length > 0 ? content : all).slice(0, MAX_TERMS);
}

/**
 * A crude stem, for highlighting the words FTS5's porter stemmer leaves alone (accented words, other scripts;
 * English words go by porter.ts): the term without a common suffix, so `códigos` also marks `código`.
 */
export function stem(term: string): string {
  if (term.endsWith('*')) return term.slice(0, -1);
  const m = /^(.{3,}?)(?:ations?|ings?|ers?|ies|ed|es|s|ly)$/u.exec(term);
  return m ? m[1]! : term;
}
