import type { Confidence } from './types';

/**
 * How likely a hit is the exchange the user is looking for, from evidence every mode has. The labels' rules
 * were calibrated on the dev and agents' queries with the extension's default (built-in model, `bm25(v)+vec(d)`,
 * selective fusion) the way that carries over to queries nobody tuned on (2026-11-30, docs/search.md, "Every hit";
 * `test/bench/confidenceFolds.mjs`): on each of three folds the rule chosen on the other two was right 27-29 of
 * 28-30 times. `selective` fusion keeps its own, looser rule for trusting its first signal alone (SELECTIVE_TRUST):
 * that rule decides a ranking and stays as its ranking was measured; these only label.
 */
export interface ConfidenceEvidence {
  /** Matched query terms / query terms (0..1). */
  readonly coverage: number;
  /** 1-based place in the final list. */
  readonly position: number;
  /** This hit's score / the first hit's (0..1). */
  readonly relative: number;
  /** For the first hit: (its score - the second's) / its score; 1 when it is alone. */
  readonly margin: number;
  /** Query words in no exchange of the store: no hit holds them (they count against every hit's coverage). */
  readonly nowhere: number;
  /** How many of the query's telling words the hit holds (those `coverage` counts). */
  readonly held: number;
}

export interface ConfidenceRules {
  /** A first hit is `high` with at least this coverage and either this margin or `highCoverage`. */
  readonly minCoverage: number;
  readonly highMargin: number;
  readonly highCoverage: number;
  /** A first hit holding fewer of the query's words than this is `low`. */
  readonly lowCoverage: number;
  /** Other hits this close to the first one's score are `medium`. */
  readonly mediumRelative: number;
  /** While a query word is in no exchange, a first hit is `high` only with at least this coverage too. */
  readonly nowhereCoverage: number;
  /** A first hit is `high` only when it holds at least this many of the query's telling words. */
  readonly minHeld: number;
}

/**
 * The labels shown: `high` ("confident") should be right at least 9 times in 10. A first hit is `high` when it holds
 * every telling word of the query, or stands well clear of the next hit: a near tie between two exchanges that both
 * hold most of the words (often two neighbours of one conversation) is not a confident answer.
 */
export const CONFIDENCE_RULES: ConfidenceRules = {
  minCoverage: 0.4,
  /** 0.15, then 0.25 with `highCoverage` 0.85 (2026-11-29): right 43 of 48 times on the queries chosen on, 83-86 % held out. */
  highMargin: 0.35,
  highCoverage: 0.95,
  lowCoverage: 0.4,
  mediumRelative: 0.8,
  /**
   * A word in no exchange is held by no hit, so the next hit's score says nothing about it: "token refresh" with
   * "refresh" nowhere gave a lone hit holding "token" (margin 1) `high`. Variants of the eval queries with a word
   * misspelt were right 10 of 14 times when `high` holding 2 of 3 words; 0.7 was chosen on folds of them
   * (2026-12-02, docs/search.md, "Every hit").
   */
  nowhereCoverage: 0.7,
  /**
   * A few words do not single out one exchange of a history, however clear the first hit's lead: variants of the
   * eval queries of 2-4 words, as a person types them, had `high` first hits right 188 of 329 times (2 words 60 of
   * 134), where the 81 queries of 6-19 words were right 27 of 27 (holding 4-11). 5 was chosen on folds of both (every
   * fold of three seeds): no first hit of 2-4 words is `high`, nor d035's, holding 4 (2026-12-02, docs/search.md).
   */
  minHeld: 5,
};

/**
 * When `selective` fusion trusts its first signal's answer alone (its first hit `high` by these rules). With a query
 * word in no exchange and less than `nowhereCoverage` of the words it asks the vectors too (they may know the
 * exchange by another word): on variants of the eval queries MRR rose or held on every fold (2026-12-02). A first
 * hit holding few words is trusted (no `minHeld`): asking the vectors below 5 words lost MRR on the short variants
 * (0.640 -> 0.631).
 */
export const SELECTIVE_TRUST: ConfidenceRules = { ...CONFIDENCE_RULES, minCoverage: 0.5, highMargin: 0.15, highCoverage: 0.8, minHeld: 0 };

export function confidenceOf(e: ConfidenceEvidence, r: ConfidenceRules = CONFIDENCE_RULES): Confidence {
  if (e.position === 1) {
    if (e.coverage < r.lowCoverage) return 'low';
    if (e.nowhere > 0 && e.coverage < r.nowhereCoverage) return 'medium';
    if (e.held < r.minHeld) return 'medium';
    return e.coverage >= r.minCoverage && (e.margin >= r.highMargin || e.coverage >= r.highCoverage) ? 'high' : 'medium';
  }
  return e.relative >= r.mediumRelative ? 'medium' : 'low';
}

/**
 * The labels of a ranked list: each hit's own label, but never above the label of a hit ranked before it.
 * A lower-ranked hit is not more likely the right one than those above it (without this, a near-tie
 * second hit was `medium` below a `low` first hit whose query words were mostly missing).
 */
export function confidencesByRank(evidence: readonly ConfidenceEvidence[]): Confidence[] {
  const order: Record<Confidence, number> = { high: 2, medium: 1, low: 0 };
  const out: Confidence[] = [];
  for (const e of evidence) {
    const own = confidenceOf(e);
    const above = out[out.length - 1];
    out.push(above !== undefined && order[above] < order[own] ? above : own);
  }
  return out;
}
