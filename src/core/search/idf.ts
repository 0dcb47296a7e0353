import type { Db } from '../store/db';
import { ftsExpression } from './terms';

/**
 * Per-term statistics over the verbatim layer, for two jobs:
 * - adaptive fusion (seeds/003 section 4): the mean IDF of the query's terms, through a sigmoid, gives the
 *   lexical signals' share. Rare, technical terms (an error code, a file name) trust BM25; common
 *   vocabulary trusts the vectors;
 * - splitting a query for BM25 on verbatim (`split`): FTS5 scores every exchange an OR-query matches
 *   (about 1.5 µs each at 50K exchanges, most of a query's time), so only the exchanges holding the
 *   query's rarest words are scored.
 * A term's document frequency is estimated from a sample of SAMPLE_EXCHANGES exchanges in SAMPLE_WINDOWS
 * row-number ranges spread over the store (old and new exchanges talk of different things): FTS5 seeks a
 * posting list to a rowid range, so the count costs at most the sample's size however big the store is.
 * It is exact while the store is no bigger than the sample. Estimates are cached per term and dropped
 * whenever the store's exchanges change (`refresh`, which the searcher calls once per search: the other
 * methods answer from the statistics as of the last refresh).
 */
export const ADAPTIVE_MIDPOINT = 0.5;
export const ADAPTIVE_STEEPNESS = 8;
export const SAMPLE_EXCHANGES = 2000;
export const SAMPLE_WINDOWS = 4;
/** How many exchanges, roughly, BM25 on verbatim scores first per query (the lead words' exchanges). */
export const CANDIDATE_BUDGET = 2000;
/**
 * A word in more than this share of exchanges adds nothing to a split query: its IDF is near zero, and
 * FTS5 would walk its whole posting list to compute it. Measured on the dev queries: 0.35 loses nothing.
 */
export const COMMON_SHARE = 0.35;

/** A query's terms for BM25 on verbatim: see `TermStats.split`. */
export interface TermSplit {
  readonly lead: string[];
  /** Rarest first, each with the most it can add to an exchange's BM25 score. */
  readonly rest: RestTerm[];
}

export interface RestTerm {
  readonly term: string;
  readonly maxScore: number;
}

/** FTS5's bm25(): k1 = 1.2, so one word adds at most idf * (k1 + 1), however often it occurs. */
const BM25_MAX_TF_FACTOR = 2.2;

/** FTS5's floor of a word's IDF: a word in more than half the exchanges still counts a little. */
export const IDF_FLOOR = 1e-6;

/** FTS5's IDF, floored like FTS5 does. */
function fts5Idf(total: number, df: number): number {
  return Math.max(IDF_FLOOR, Math.log((total - df + 0.5) / (df + 0.5)));
}

export class TermStats {
  private readonly shares = new Map<string, number>();
  private stamp = '';
  private total = 0;
  /** The sample: row-number ranges (inclusive) and how many exchanges they hold. */
  private windows: Array<readonly [number, number]> = [];
  private sampleSize = 0;

  constructor(private readonly db: Db) {}

  /** The lexical share (0..1) for `terms`; 0.5 when there are none. */
  async lexicalWeight(terms: readonly string[]): Promise<number> {
    if (terms.length === 0 || this.total === 0) return 0.5;
    const idf = (df: number) => Math.log(1 + (this.total - df + 0.5) / (df + 0.5));
    let sum = 0;
    const shares = await this.sharesOf(terms);
    for (const t of terms) sum += idf(shares.get(t)! * this.total);
    const relative = sum / terms.length / idf(0);
    return 1 / (1 + Math.exp(-ADAPTIVE_STEEPNESS * (relative - ADAPTIVE_MIDPOINT)));
  }

  /**
   * The rarest terms whose exchanges add up to at most `budget` lead (at least one term): exchanges
   * holding a lead term are the candidates. The other terms, the `rest`, add their part to those
   * exchanges' scores (see lexical.splitBm25), except words too common to matter (COMMON_SHARE).
   * Everything leads when it all fits the budget, as in any store of up to `budget` exchanges.
   */
  async split(terms: readonly string[], budget = CANDIDATE_BUDGET): Promise<TermSplit> {
    if (this.total <= budget) return { lead: [...terms], rest: [] };
    const share = await this.sharesOf(terms);
    const lead: string[] = [];
    const rest: RestTerm[] = [];
    let exchanges = 0;
    for (const t of [...terms].sort((a, b) => share.get(a)! - share.get(b)!)) {
      const df = share.get(t)! * this.total;
      if (lead.length === 0 || exchanges + df <= budget) {
        lead.push(t);
        exchanges += df;
      } else if (share.get(t)! <= COMMON_SHARE) {
        rest.push({ term: t, maxScore: fts5Idf(this.total, df) * BM25_MAX_TF_FACTOR });
      }
    }
    return { lead, rest };
  }

  /** Each term's IDF as FTS5's bm25() weighs it, from the estimated document frequencies. */
  async idf(terms: readonly string[]): Promise<Map<string, number>> {
    const share = await this.sharesOf(terms);
    return new Map(terms.map((t) => [t, fts5Idf(this.total, share.get(t)! * this.total)]));
  }

  /**
   * Drops the cache when the store changed: `total_changes()` counts this connection's writes and
   * `data_version` other connections' (both O(1), asked in one statement); only then are the exchanges
   * counted again. A searcher calls it once per search: `split`, `idf` and `lexicalWeight` then answer from
   * the same statistics, with no statement of their own for a cached word. Returns whether the store changed.
   */
  async refresh(): Promise<boolean> {
    const now = await this.db.get<{ t: number; v: number }>('SELECT total_changes() AS t, data_version AS v FROM pragma_data_version');
    const stamp = `${now?.t ?? 0}:${now?.v ?? 0}`;
    if (stamp === this.stamp) return false;
    this.shares.clear();
    this.stamp = stamp;
    this.total = (await this.db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges'))?.c ?? 0;
    await this.chooseSample();
    return true;
  }

  /** Row numbers are dense but for deletions, so equal steps of row numbers hold about equal shares. */
  private async chooseSample(): Promise<void> {
    const range = await this.db.get<{ lo: number | null; hi: number | null }>('SELECT min(n) AS lo, max(n) AS hi FROM exchanges');
    const lo = range?.lo ?? 0;
    const hi = range?.hi ?? -1;
    const span = hi - lo + 1;
    if (this.total <= SAMPLE_EXCHANGES || span <= SAMPLE_EXCHANGES) {
      this.windows = [[lo, hi]];
    } else {
      const width = Math.ceil(((SAMPLE_EXCHANGES / this.total) * span) / SAMPLE_WINDOWS);
      const step = span / SAMPLE_WINDOWS;
      this.windows = Array.from({ length: SAMPLE_WINDOWS }, (_, w) => {
        const from = lo + Math.floor(w * step);
        return [from, Math.min(hi, from + width - 1)] as const;
      });
    }
    this.sampleSize = 0;
    for (const [from, to] of this.windows) {
      this.sampleSize += (await this.db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges WHERE n BETWEEN ? AND ?', [from, to]))?.c ?? 0;
    }
  }

  /** The estimated share (0..1) of exchanges holding each term; the uncached ones counted in one statement. */
  private async sharesOf(terms: readonly string[]): Promise<Map<string, number>> {
    const missing = [...new Set(terms.filter((t) => !this.shares.has(t)))];
    if (missing.length > 0) {
      // ?1..?m are the terms, then each window's bounds (numbered, as a bare ? would reuse a term's number)
      const m = missing.length;
      const windows = this.windows.map((_, j) => `rowid BETWEEN ?${m + 2 * j + 1} AND ?${m + 2 * j + 2}`);
      const counts = missing.map((_, i) =>
        windows.map((w) => `(SELECT count(*) FROM exchanges_fts WHERE exchanges_fts MATCH ?${i + 1} AND ${w})`).join(' + ') + ` AS c${i}`,
      );
      const row = await this.db.get<Record<string, number>>(`SELECT ${counts.join(', ')}`, [...missing.map((t) => ftsExpression([t])!), ...this.windows.flat()]);
      missing.forEach((t, i) => this.shares.set(t, this.sampleSize > 0 ? (row?.[`c${i}`] ?? 0) / this.sampleSize : 0));
    }
    return new Map(terms.map((t) => [t, this.shares.get(t)!]));
  }
}
