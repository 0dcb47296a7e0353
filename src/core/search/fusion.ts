import { RecallError } from '../errors';
import type { FusionName, Mechanism, ScorePart } from './types';

/** One ranked candidate of one signal: exchange row number and the mechanism's score (higher is better). */
export interface Scored {
  readonly n: number;
  readonly score: number;
}

/** One signal's ranked list, best first, as fusion sees it. */
export interface SignalList {
  /** e.g. `bm25(verbatim)`, `vector(core)`: shown to the user in score parts. */
  readonly signal: string;
  readonly mechanism: Mechanism;
  readonly hits: readonly Scored[];
}

export interface Fused {
  readonly n: number;
  readonly score: number;
  readonly parts: readonly ScorePart[];
}

export type Fusion =
  | { readonly kind: 'rrf' | 'combmnz' | 'additive' | 'max' | 'adaptive' }
  | { readonly kind: 'weighted'; readonly weight: number }
  /**
   * The first signal alone when its answer is confident (its first hit `high`); otherwise every signal,
   * weighted as `weighted:<weight>`. The searcher decides which: it needs the first signal's hits shaped.
   */
  | { readonly kind: 'selective'; readonly weight: number };

/** selective's weight of the first signal when it does fuse (the cross-layer modes' weighted default). */
export const SELECTIVE_WEIGHT = 0.8;

/** RRF's constant (Cormack et al. 2009; vstash): damps the gap between the first ranks. */
export const RRF_K = 60;

const FUSION_NAMES = ['rrf', 'combmnz', 'additive', 'max', 'adaptive'] as const;

export function parseFusion(name: FusionName): Fusion {
  if ((FUSION_NAMES as readonly string[]).includes(name)) return { kind: name as (typeof FUSION_NAMES)[number] };
  if (name === 'selective') return { kind: 'selective', weight: SELECTIVE_WEIGHT };
  const m = /^(weighted|selective):(\d*\.?\d+)$/.exec(name);
  if (m) {
    const weight = Number(m[2]);
    if (weight >= 0 && weight <= 1) return { kind: m[1] as 'weighted' | 'selective', weight };
  }
  throw new RecallError(
    'bad-argument',
    `Unknown fusion "${name}". Use one of ${FUSION_NAMES.join(', ')}, selective, or weighted:<w> / selective:<w> with w between 0 and 1 (e.g. weighted:0.7).`,
  );
}

/**
 * Fuses ranked lists into one. Score-based fusions min-max normalise each list first (bm25 and cosine live
 * on different scales). `lexicalWeight` is adaptive fusion's per-query share of the bm25 signals (the
 * vector signals get the rest); the other fusions ignore it. A single list is passed through with its raw scores.
 */
export function fuse(lists: readonly SignalList[], fusion: Fusion, lexicalWeight = 0.5): Fused[] {
  // One list: nothing to fuse; its own (raw) score is the most telling.
  if (lists.length === 1) {
    const list = lists[0]!;
    // a loop, not `map`: a packed array whatever tier runs this (TurboFan's inlined `map` makes holey ones, and code
    // compiled for one kind is thrown away at the other: issue 42)
    const out: Fused[] = [];
    for (let r = 0; r < list.hits.length; r++) {
      const h = list.hits[r]!;
      out.push({ n: h.n, score: h.score, parts: [{ signal: list.signal, rank: r + 1, score: h.score }] });
    }
    return out;
  }
  const weights = signalWeights(lists, fusion, lexicalWeight);
  const byN = new Map<number, { parts: ScorePart[]; values: number[] }>();
  lists.forEach((list, i) => {
    const norm = normaliser(list.hits);
    list.hits.forEach((hit, r) => {
      let entry = byN.get(hit.n);
      if (!entry) byN.set(hit.n, (entry = { parts: [], values: [] }));
      entry.parts.push({ signal: list.signal, rank: r + 1, score: hit.score });
      const w = weights[i]!;
      switch (fusion.kind) {
        case 'rrf':
        case 'adaptive':
          entry.values.push(w / (RRF_K + r + 1));
          break;
        case 'weighted':
        case 'selective':
          entry.values.push(w * norm(hit.score));
          break;
        default:
          entry.values.push(norm(hit.score));
      }
    });
  });
  const out: Fused[] = [];
  for (const [n, { parts, values }] of byN) {
    const sum = values.reduce((a, b) => a + b, 0);
    const score =
      fusion.kind === 'max' ? Math.max(...values) : fusion.kind === 'combmnz' ? sum * values.length : sum;
    out.push({ n, score, parts });
  }
  // Ties (common under max and for a lone signal's equal scores) go to the better best rank, then the older row.
  const bestRank = (f: Fused) => Math.min(...f.parts.map((p) => p.rank));
  return out.sort((a, b) => b.score - a.score || bestRank(a) - bestRank(b) || a.n - b.n);
}

function signalWeights(lists: readonly SignalList[], fusion: Fusion, lexicalWeight: number): number[] {
  if (fusion.kind === 'weighted' || fusion.kind === 'selective') {
    // The first signal gets w, the others share the rest (the paper's W50..W95 for cross-layer modes).
    if (lists.length === 1) return [1];
    return lists.map((_, i) => (i === 0 ? fusion.weight : (1 - fusion.weight) / (lists.length - 1)));
  }
  if (fusion.kind === 'adaptive') {
    const lexical = lists.filter((l) => l.mechanism === 'bm25').length;
    const vector = lists.length - lexical;
    if (lexical === 0 || vector === 0) return lists.map(() => 1);
    return lists.map((l) => (l.mechanism === 'bm25' ? lexicalWeight / lexical : (1 - lexicalWeight) / vector));
  }
  return lists.map(() => 1);
}

/** Min-max into [0, 1]; a list whose scores are all equal maps to 1. */
function normaliser(hits: readonly Scored[]): (score: number) => number {
  if (hits.length === 0) return () => 0;
  let min = Infinity;
  let max = -Infinity;
  for (const h of hits) {
    if (h.score < min) min = h.score;
    if (h.score > max) max = h.score;
  }
  const span = max - min;
  return span > 0 ? (s) => (s - min) / span : () => 1;
}
