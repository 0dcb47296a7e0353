/**
 * User text -> search terms, and terms -> a safe FTS5 expression. User text never reaches FTS5 as syntax:
 * it is cut into word tokens (letters, digits, marks), each token is double-quoted and the tokens are
 * OR-joined, so `NEAR`, `core:`, `*`, `^`, quotes and SQL fragments are plain words or vanish.
 */

/** More terms than this add cost (an OR of many common words is slow) without changing the ranking much. */
export const MAX_TERMS = 32;
/** Longer tokens are base64, hashes or minified code: no one types them to recall a conversation. */
const MAX_TERM_LENGTH = 64;

/** Words that match almost every exchange: dropped unless nothing else is left. */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my ' +
    'no not of on or our so that the their then there these this to was we were what when where which who why ' +
    'will with would you your'
  ).split(' '),
);

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/** The distinct lower-case word tokens of `text`, stopwords dropped (unless only stopwords), at most MAX_TERMS. */
export function queryTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.toLowerCase().matchAll(TOKEN)) {
    const t = m[0];
    if (t.length <= MAX_TERM_LENGTH) seen.add(t);
  }
  const all = [...seen];
  const content = all.filter((t) => !STOPWORDS.has(t));
  return (content.length > 0 ? content : all).slice(0, MAX_TERMS);
}

/** `"a" OR "b"`; undefined when there is nothing to search for. Terms hold no quotes (see TOKEN), quoted anyway. */
export function ftsExpression(terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

/** The expression restricted to some columns of the table (`{core context} : (...)`). */
export function ftsColumnExpression(terms: readonly string[], columns: readonly string[]): string | undefined {
  const expr = ftsExpression(terms);
  return expr === undefined ? undefined : `{${columns.join(' ')}} : (${expr})`;
}

/**
 * A crude stem for highlighting and "why it matched" (FTS5's porter stemmer is not reachable from JS):
 * the term without a common English suffix, so `tests` also marks `testing`.
 */
export function stem(term: string): string {
  const m = /^(.{3,}?)(?:ations?|ings?|ers?|ies|ed|es|s|ly)$/u.exec(term);
  return m ? m[1]! : term;
}
