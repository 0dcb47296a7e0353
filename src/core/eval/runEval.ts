import type { FusionName, ModeName, Searcher } from '../search/types';
import { type EvalQuery, firstCorrectRank, type Metrics, metrics, percentile } from './metrics';

export interface EvalConfig {
  /** Absent: the searcher's default. */
  readonly mode?: ModeName;
  readonly fusion?: FusionName;
}

export interface EvalRow {
  readonly mode: ModeName;
  readonly fusion: FusionName;
  readonly metrics: Metrics;
  /** The same metrics per query type (exact, phrase, conceptual). */
  readonly byType: Record<string, Metrics>;
  /** Search time per query (including query embedding), one pass: in a fresh process its first searches are the slowest. */
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  /** Set when the mode could not run as asked (e.g. no vectors): the numbers are of its fallback. */
  readonly notice?: string;
  readonly ranks: ReadonlyArray<{ readonly id: string; readonly rank?: number; readonly confidence: string }>;
}

/** Runs every query under every configuration, through the same Searcher the CLI and the panel use. */
export async function runEval(
  searcher: Searcher,
  queries: readonly EvalQuery[],
  configs: readonly EvalConfig[],
  limit = 10,
): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  for (const config of configs) {
    const ranks: Array<{ id: string; rank?: number; confidence: string; type?: string }> = [];
    const times: number[] = [];
    let notice: string | undefined;
    let fusion: FusionName = config.fusion ?? '';
    let mode: ModeName | undefined = config.mode;
    for (const q of queries) {
      const r = await searcher.search({ text: q.query, ...(config.mode ? { mode: config.mode } : {}), ...(config.fusion ? { fusion: config.fusion } : {}), limit });
      fusion = r.fusion;
      mode = r.mode;
      notice ??= r.notice;
      times.push(r.tookMs);
      const rank = firstCorrectRank(r.hits, q.targets);
      ranks.push({ id: q.id, ...(rank ? { rank } : {}), confidence: r.confidence, ...(q.type ? { type: q.type } : {}) });
    }
    const byType: Record<string, Metrics> = {};
    for (const type of new Set(ranks.map((r) => r.type).filter((t): t is string => t !== undefined))) {
      byType[type] = metrics(ranks.filter((r) => r.type === type).map((r) => r.rank));
    }
    rows.push({
      mode: mode ?? 'verbatim/bm25',
      fusion,
      metrics: metrics(ranks.map((r) => r.rank)),
      byType,
      p50Ms: percentile(times, 50),
      p95Ms: percentile(times, 95),
      p99Ms: percentile(times, 99),
      ...(notice ? { notice } : {}),
      ranks: ranks.map(({ id, rank, confidence }) => ({ id, ...(rank ? { rank } : {}), confidence })),
    });
  }
  return rows;
}
