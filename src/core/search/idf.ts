import type { Db } from '../store/db';
import { ftsExpression } from './terms';

/**
 * Adaptive fusion's per-query weighting (seeds/003 section 4): the mean IDF of the query's terms over the
 * verbatim layer, through a sigmoid, gives the lexical signals' share. Rare, technical terms (an error
 * code, a file name) trust BM25; common vocabulary trusts the vectors. Document frequencies are cached
 * per term and dropped whenever the store's exchanges change.
 */
export const ADAPTIVE_MIDPOINT = 0.5;
export const ADAPTIVE_STEEPNESS = 8;

export class IdfWeights {
  private readonly df = new Map<string, number>();
  private stamp = '';

  constructor(private readonly db: Db) {}

  /** The lexical share (0..1) for `terms`; 0.5 when there are none. */
  async lexicalWeight(terms: readonly string[]): Promise<number> {
    if (terms.length === 0) return 0.5;
    const state = await this.db.get<{ c: number; m: number | null }>('SELECT count(*) AS c, max(n) AS m FROM exchanges');
    const total = state?.c ?? 0;
    const stamp = `${total}:${state?.m ?? 0}`;
    if (stamp !== this.stamp) {
      this.df.clear();
      this.stamp = stamp;
    }
    if (total === 0) return 0.5;
    const idf = (df: number) => Math.log(1 + (total - df + 0.5) / (df + 0.5));
    let sum = 0;
    for (const t of terms) sum += idf(await this.docFrequency(t));
    const relative = sum / terms.length / idf(0);
    return 1 / (1 + Math.exp(-ADAPTIVE_STEEPNESS * (relative - ADAPTIVE_MIDPOINT)));
  }

  private async docFrequency(term: string): Promise<number> {
    let df = this.df.get(term);
    if (df === undefined) {
      const row = await this.db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges_fts WHERE exchanges_fts MATCH ?', [ftsExpression([term])!]);
      df = row?.c ?? 0;
      this.df.set(term, df);
    }
    return df;
  }
}
