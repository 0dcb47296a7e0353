import type { Confidence, ScorePart } from './types';

/**
 * How sure a hit is, from evidence every mode has: the share of the query's terms the exchange contains,
 * how many signals agree on it near the top, and its place in the list. Thresholds are calibrated on
 * the dev queries (README, "Confidence"): `high` hits were right at least 2 times in 3 there.
 */
export interface ConfidenceEvidence {
  /** Matched query terms / query terms (0..1). */
  readonly coverage: number;
  readonly parts: readonly ScorePart[];
  /** 1-based place in the final list. */
  readonly position: number;
  /** Signals the mode ran. */
  readonly signals: number;
}

export const CONFIDENCE_THRESHOLDS = { high: 0.75, medium: 0.45 } as const;

/** A 0..1 evidence score: term coverage, top-3 agreement among signals, and position. */
export function evidenceScore(e: ConfidenceEvidence): number {
  // Agreement means something only between several signals; a lone signal leans on coverage instead.
  const agreement = e.signals > 1 ? e.parts.filter((p) => p.rank <= 3).length / e.signals : e.coverage;
  const place = e.position === 1 ? 1 : e.position <= 3 ? 0.6 : 0.2;
  return 0.5 * e.coverage + 0.3 * agreement + 0.2 * place;
}

export function confidenceOf(e: ConfidenceEvidence): Confidence {
  const s = evidenceScore(e);
  return s >= CONFIDENCE_THRESHOLDS.high ? 'high' : s >= CONFIDENCE_THRESHOLDS.medium ? 'medium' : 'low';
}
