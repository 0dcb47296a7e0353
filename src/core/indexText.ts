import { indexTermCounts } from './indexTerms';
import { type FtsFields, ftsFields } from './store/ftsText';

/**
 * What one exchange adds to the verbatim indexes, computed from its prompt and verbatim alone (so it can be
 * computed where the exchange is parsed, off the thread that writes): the prompt as `exchanges_fts` holds it,
 * and the lexicon's document (lexicon.ts): its length in words and each term's count.
 */
export interface IndexText {
  /** The prompt's searchable text (ftsText.ts). */
  readonly prompt: string;
  readonly doc: TermCounts;
}

/** A document of the lexicon: its length in words (BM25's), its distinct terms, and each term's count. */
export interface TermCounts {
  readonly words: number;
  /** The distinct terms, joined by spaces (a term holds none): one string crosses threads cheaply. */
  readonly terms: string;
  /**
   * Each term's count, in the order of `terms`: an Int32Array where the index text is made (a typed array crosses
   * threads as one copy of its bytes; an array of numbers is cloned and rebuilt number by number).
   */
  readonly counts: ArrayLike<number>;
}

export function indexText(prompt: string, verbatim: string): IndexText {
  const fields = ftsFields(prompt, verbatim);
  return { prompt: fields.prompt, doc: termCounts(fields) };
}

/** The lexicon's document of an exchange's searchable fields. */
export function termCounts(fields: FtsFields): TermCounts {
  return indexTermCounts([fields.prompt, fields.said, fields.tools]);
}
