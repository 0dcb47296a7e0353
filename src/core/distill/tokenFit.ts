import { memoize } from '../memo';
import { countTokens } from '../tokens';

/**
 * Token counts of distilled text, fast: cl100k pre-tokenises so that no token spans a single space, so a
 * text's count is the sum of its space-separated words' (each counted with its leading space), and words recur.
 */

/** Token counts of words, memoised: the same words recur across a store's exchanges. */
const pieceTokens = memoize((piece) => (piece ? countTokens(piece) : 0), 100_000);
/**
 * The same of a word after a space, remembered by the word: no ` ${word}` made, flattened and hashed for each
 * call (the word's own hash is kept with it, and other lookups of the word reuse it).
 */
const spacedTokens = memoize((word) => countTokens(` ${word}`), 100_000);

/** The tokens of the `i`-th space-separated word of a text (the first has no leading space). */
export function wordPieceTokens(word: string, i: number): number {
  return i === 0 ? pieceTokens(word) : spacedTokens(word);
}

/** The token count of a text as the sum of its space-separated words' (exact, see above; memoised). */
export function wordTokens(text: string): number {
  let total = 0;
  for (const [i, w] of text.split(' ').entries()) total += wordPieceTokens(w, i);
  return total;
}

/**
 * The longest word-boundary prefix of `text` within `maxTokens` (with an ellipsis when cut, if `ellipsis`).
 * Without the ellipsis the result stays a substring of `text` (the context must occur verbatim).
 */
export function fitTokens(text: string, maxTokens: number, ellipsis: boolean): string {
  // A cl100k token rarely spans more than 6 characters of prose: cut long text near there before counting.
  const roughEnd = maxTokens * 6;
  if (text.length > roughEnd) {
    const space = text.lastIndexOf(' ', roughEnd);
    text = text.slice(0, space > 0 ? space : roughEnd);
  }
  const mark = ellipsis ? '…' : '';
  const words = text.split(' ');
  let total = 0;
  for (const [i, w] of words.entries()) {
    const t = wordPieceTokens(w, i);
    const last = i === words.length - 1;
    if (total + t + (last ? 0 : pieceTokens(mark)) > maxTokens) {
      if (i > 0) return words.slice(0, i).join(' ') + mark;
      // one long first word: cut by characters until it fits
      let end = Math.min(w.length, maxTokens * 4);
      while (end > 1 && countTokens(w.slice(0, end) + mark) > maxTokens) end = Math.floor(end * 0.8);
      return w.slice(0, end) + mark;
    }
    total += t;
  }
  return text;
}
