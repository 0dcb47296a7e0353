import * as path from 'node:path';
import { RecallError } from '../errors';

/**
 * Recall evaluation (issue 5): a query has ONE right exchange, which may be found at several places
 * (`alt`: the same conversation saved twice). A hit is right when its file is a target's and its line
 * range holds the target line, or one of its copies' does (the same exchange saved in another transcript,
 * which search shows once). Metrics use the rank of the first right hit only, so duplicates of the answer
 * neither help nor hurt.
 */
export interface Target {
  /** Absolute path. */
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
}

export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  /** `exact`, `phrase`, `conceptual` in the dev set. */
  readonly type?: string;
  readonly targets: readonly Target[];
}

export interface Located {
  readonly file: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  /** Other places the hit's exchange was saved. */
  readonly copies?: ReadonlyArray<Omit<Located, 'copies'>>;
}

export interface Metrics {
  readonly queries: number;
  readonly mrr: number;
  readonly p1: number;
  readonly ndcg10: number;
  readonly recall5: number;
  readonly recall10: number;
}

/** 1-based rank of the first hit that holds a target, or undefined. */
export function firstCorrectRank(hits: readonly Located[], targets: readonly Target[]): number | undefined {
  const holds = (at: Omit<Located, 'copies'>) => targets.some((t) => t.file === at.file && at.lineStart <= t.line && t.line <= at.lineEnd);
  const i = hits.findIndex((h) => holds(h) || (h.copies ?? []).some(holds));
  return i < 0 ? undefined : i + 1;
}

/** Means over queries; `ranks[i]` is query i's first right rank (undefined: not found). */
export function metrics(ranks: ReadonlyArray<number | undefined>): Metrics {
  const n = ranks.length;
  const mean = (f: (r: number | undefined) => number) => {
    let sum = 0;
    for (const r of ranks) sum += f(r);
    return n === 0 ? 0 : sum / n;
  };
  return {
    queries: n,
    mrr: mean((r) => (r ? 1 / r : 0)),
    p1: mean((r) => (r === 1 ? 1 : 0)),
    // one relevant item: the ideal DCG is 1, so nDCG@10 = 1 / log2(rank + 1)
    ndcg10: mean((r) => (r && r <= 10 ? 1 / Math.log2(r + 1) : 0)),
    recall5: mean((r) => (r && r <= 5 ? 1 : 0)),
    recall10: mean((r) => (r && r <= 10 ? 1 : 0)),
  };
}

interface RawQuery {
  qid?: unknown;
  id?: unknown;
  query?: unknown;
  type?: unknown;
  file?: unknown;
  line?: unknown;
  alt?: unknown;
}

/** Parses the dev-queries JSONL format; `file`s are relative to `corpusRoot`. Bad lines name their line number. */
export function parseEvalQueries(text: string, corpusRoot: string): EvalQuery[] {
  const out: EvalQuery[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `queries line ${i + 1}`;
    let raw: RawQuery;
    try {
      raw = JSON.parse(line) as RawQuery;
    } catch (err) {
      throw new RecallError('bad-argument', `${where}: not JSON (${(err as Error).message}).`);
    }
    const id = raw.qid ?? raw.id;
    if (typeof id !== 'string' || typeof raw.query !== 'string') throw new RecallError('bad-argument', `${where}: needs string "qid" (or "id") and "query".`);
    const target = (t: { file?: unknown; line?: unknown }): Target => {
      if (typeof t.file !== 'string' || !Number.isInteger(t.line)) throw new RecallError('bad-argument', `${where}: a target needs "file" and an integer "line".`);
      return { file: path.resolve(corpusRoot, t.file), line: t.line as number };
    };
    const alts = Array.isArray(raw.alt) ? (raw.alt as Array<{ file?: unknown; line?: unknown }>) : [];
    out.push({
      id,
      query: raw.query,
      ...(typeof raw.type === 'string' ? { type: raw.type } : {}),
      targets: [target(raw), ...alts.map(target)],
    });
  });
  return out;
}

/** p-th percentile (0..100) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
