import type { SearchReads } from '../store/searchReads';
import { fts5Idf, type LexiconBm25 } from './lexiconBm25';

/**
 * Per-term statistics over the verbatim layer, for adaptive fusion (seeds/003 section 4) and the second
 * stage's word weights (proximity, confidence): the mean IDF of the query's terms, through a sigmoid, gives
 * the lexical signals' share. Rare, technical terms (an error code, a file name) trust BM25; common
 * vocabulary trusts the vectors. Document frequencies are the lexicon's, exact (lexiconBm25.ts): the search's
 * BM25 counted them already. `refresh`, which the searcher calls once per search, tells the lexicon when the
 * store changed.
 */
export const ADAPTIVE_MIDPOINT = 0.5;
export const ADAPTIVE_STEEPNESS = 8;

export interface TermWeights {
  readonly idf: Map<string, number>;
  /** How many of the terms are in no exchange of the store. */
  readonly nowhere: number;
}

export class TermStats {
  private stamp = '';

  constructor(
    private readonly reads: SearchReads,
    private readonly lexicon: LexiconBm25,
  ) {}

  /** The lexical share (0..1) for `terms`; 0.5 when there are none. */
  async lexicalWeight(terms: readonly string[]): Promise<number> {
    if (terms.length === 0) return 0.5;
    const { exchanges, of } = await this.lexicon.documentFrequencies(terms);
    if (exchanges === 0) return 0.5;
    const idf = (df: number) => Math.log(1 + (exchanges - df + 0.5) / (df + 0.5));
    let sum = 0;
    for (const t of terms) sum += idf(of.get(t)!);
    const relative = sum / terms.length / idf(0);
    return 1 / (1 + Math.exp(-ADAPTIVE_STEEPNESS * (relative - ADAPTIVE_MIDPOINT)));
  }

  /** Each term's IDF as FTS5's bm25() weighs it. */
  async idf(terms: readonly string[]): Promise<Map<string, number>> {
    return (await this.weights(terms)).idf;
  }

  /** Each term's IDF, and the terms in no exchange of the store (a hit's confidence counts them, confidence.ts). */
  async weights(terms: readonly string[]): Promise<TermWeights> {
    const { exchanges, of } = await this.lexicon.documentFrequencies(terms);
    const idf = new Map<string, number>();
    let nowhere = 0;
    for (const t of terms) {
      if (idf.has(t)) continue;
      const df = of.get(t)!;
      idf.set(t, fts5Idf(exchanges, df));
      if (df === 0) nowhere++;
    }
    return { idf, nowhere };
  }

  /**
   * The store's new change stamp when it changed since the last call (one O(1) statement), else undefined. When it
   * did, the lexicon reads the exchanges' lengths and counts the words again when next asked.
   */
  async refresh(): Promise<string | undefined> {
    const stamp = await this.reads.changeStamp();
    if (stamp === this.stamp) return undefined;
    this.stamp = stamp;
    this.lexicon.storeChanged(stamp);
    return stamp;
  }
}
