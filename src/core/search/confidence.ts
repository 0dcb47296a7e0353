import type { Confidence } from './types';

/**
 * How likely a hit is the exchange the user is looking for, from evidence every mode has. The rules and
 * thresholds were calibrated on the dev queries with the default mode (docs/search.md, "Every hit"): there,
 * `high` first hits were right 41 of 47 times, `medium` hits 16 of 80, `low` hits 5 of 523. `selective`
 * fusion trusts a `high` first hit of its first signal alone.
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
}

export const CONFIDENCE_RULES = {
  /** A first hit is `high` with at least this coverage and either this margin or `highCoverage`. */
  minCoverage: 0.5,
  highMargin: 0.15,
  highCoverage: 0.8,
  /** A first hit holding fewer of the query's words than this is `low` (dev: 0 right of 2). */
  lowCoverage: 0.4,
  /** Other hits this close to the first one's score are `medium`. */
  mediumRelative: 0.8,
} as const;

export function confidenceOf(e: ConfidenceEvidence): Confidence {
  const r = CONFIDENCE_RULES;
  if (e.position === 1) {
    if (e.coverage < r.lowCoverage) return 'low';
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
