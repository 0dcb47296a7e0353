import type { Db } from '../store/db';
import { ftsExpression } from './terms';

/**
 * Per-term statistics over the verbatim layer, for two jobs:
 * - adaptive fusion (seeds/003 section 4): the mean IDF of the query's terms, through a sigmoid, gives the
 *   lexical signals' share. Rare, technical terms (an error code, a file name) trust BM25; common
 *   vocabulary trusts the vectors;
 * - pruning: FTS5 scores every document an OR-query matches, so a word found in most exchanges costs the
 *   most time and, with an IDF near zero, changes the ranking least. Such words are left out.
 * Document frequencies are counted only up to a cap (a word past it is "common" whatever its exact count),
 * cached per term and dropped whenever the store's exchanges change.
 */
export const ADAPTIVE_MIDPOINT = 0.5;
export const ADAPTIVE_STEEPNESS = 8;
/**
 * A word in more than this share of exchanges is common (see `prune`). Measured on the dev queries: 0.35
 * loses nothing (0.2 lost 3 first hits) and halves BM25 time at 50K exchanges.
 */
export const COMMON_SHARE = 0.35;
/** Below this many exchanges every query is fast: nothing is pruned. */
export const PRUNE_FROM_EXCHANGES = 1000;

export class TermStats {
  private readonly df = new Map<string, number>();
  private stamp = '';
  private total = 0;

  constructor(private readonly db: Db) {}

  /** The lexical share (0..1) for `terms`; 0.5 when there are none. */
  async lexicalWeight(terms: readonly string[]): Promise<number> {
    await this.refresh();
    if (terms.length === 0 || this.total === 0) return 0.5;
    const idf = (df: number) => Math.log(1 + (this.total - df + 0.5) / (df + 0.5));
    let sum = 0;
    for (const t of terms) sum += idf(await this.docFrequency(t));
    const relative = sum / terms.length / idf(0);
    return 1 / (1 + Math.exp(-ADAPTIVE_STEEPNESS * (relative - ADAPTIVE_MIDPOINT)));
  }

  /** `terms` without the common ones; all of them when every one is common (something must be searched). */
  async prune(terms: readonly string[]): Promise<string[]> {
    await this.refresh();
    if (this.total < PRUNE_FROM_EXCHANGES) return [...terms];
    const cap = this.cap();
    const kept: string[] = [];
    for (const t of terms) if ((await this.docFrequency(t)) < cap) kept.push(t);
    return kept.length > 0 ? kept : [...terms];
  }

  private cap(): number {
    return Math.max(1, Math.ceil(this.total * COMMON_SHARE));
  }

  /**
   * Drops the cache when the store changed: `total_changes()` counts this connection's writes and
   * `data_version` other connections' (both O(1)); only then are the exchanges counted again.
   */
  private async refresh(): Promise<void> {
    const changes = await this.db.get<{ t: number }>('SELECT total_changes() AS t');
    const version = await this.db.get<{ data_version: number }>('PRAGMA data_version');
    const stamp = `${changes?.t ?? 0}:${version?.data_version ?? 0}`;
    if (stamp !== this.stamp) {
      this.df.clear();
      this.stamp = stamp;
      this.total = (await this.db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges'))?.c ?? 0;
    }
  }

  /** Documents holding `term`, counted up to the cap (walking a posting list to its end is what pruning avoids). */
  private async docFrequency(term: string): Promise<number> {
    let df = this.df.get(term);
    if (df === undefined) {
      const row = await this.db.get<{ c: number }>(
        'SELECT count(*) AS c FROM (SELECT rowid FROM exchanges_fts WHERE exchanges_fts MATCH ? LIMIT ?)',
        [ftsExpression([term])!, this.cap()],
      );
      df = row?.c ?? 0;
      this.df.set(term, df);
    }
    return df;
  }
}
