import type { Db } from '../store/db';
import type { SqlFilter } from './filters';
import { ftsColumnExpression, ftsExpression } from './terms';
import type { TermSplit } from './idf';
import type { Layer } from './types';

/** One ranked candidate of one signal: exchange row number and the mechanism's score (higher is better). */
export interface Scored {
  readonly n: number;
  readonly score: number;
}

/** The distilled_fts columns each distilled layer searches (core = the distilled text: core + context). */
const DISTILLED_COLUMNS: Record<Exclude<Layer, 'verbatim'>, readonly string[]> = {
  core: ['core', 'context'],
  'core+files': ['core', 'context', 'files'],
  'core+rooms': ['core', 'context', 'rooms'],
  'all-facets': ['core', 'context', 'files', 'rooms'],
};

/**
 * BM25 over FTS5 (porter). FTS5's bm25() is negative with lower = better; it is negated here so every
 * signal's score reads "higher is better".
 */
export async function bm25(db: Db, layer: Layer, terms: readonly string[], k: number, filter?: SqlFilter): Promise<Scored[]> {
  const table = layer === 'verbatim' ? 'exchanges_fts' : 'distilled_fts';
  const match = layer === 'verbatim' ? ftsExpression(terms) : ftsColumnExpression(terms, DISTILLED_COLUMNS[layer]);
  if (match === undefined) return [];
  return ranked(db, table, match, k, filter);
}

/**
 * BM25 on verbatim for a split query (TermStats.split): only exchanges holding a lead word are scored.
 * BM25 is a sum over words, so an exchange's score is its lead words' part plus, when it holds some of
 * the rest too, theirs: `(rest) AND (lead)` scores exactly those exchanges in full, `lead` the others.
 * The first `exact` hits are those of the unsplit query (MaxScore): while an exchange holding only rest
 * words could still reach the `exact`-th score, the rarest rest words join the lead and only the exchanges
 * they bring (holding none of the earlier lead words) are scored: the earlier ones already have their full
 * scores, and each statement holding rest words costs a walk of their whole posting lists (bm25()'s IDF).
 * Of those, the exchanges holding none of the remaining rest words are scored only when the joining words'
 * bounds together reach the `exact`-th score (at 50K exchanges they do in 4 of the dev queries' 25 later
 * passes; skipping the others' statement saves ~10 % of this function's time, the hits unchanged).
 * When the lead words find fewer than `k` exchanges, exchanges holding only rest words fill the list.
 *
 * With `beside` (a second connection to the store, Store.reader), each pass's `(rest) AND (lead)` statement
 * runs there while `lead` runs on `db`: on two cores at once. The two may see the store a write apart (each
 * statement reads its own snapshot). That is harmless: each list's scores are right for what its statement
 * saw; an exchange written between the two gets only its lead words' part (the next search scores it in
 * full), and one deleted between them is dropped when the hits' rows are read.
 */
export async function splitBm25(db: Db, split: TermSplit, k: number, exact: number, filter?: SqlFilter, beside: Db = db): Promise<Scored[]> {
  const score = new Map<number, number>();
  let scored: string[] = [];
  let fresh = split.lead;
  let rest = split.rest;
  let alone = true;
  for (;;) {
    const complete = await scorePass(db, beside, score, fresh, scored, rest.map((r) => r.term), k, alone, filter);
    const hits = [...score].map(([n, value]) => ({ n, score: value })).sort((x, y) => y.score - x.score).slice(0, k);
    if (complete || rest.length === 0) return hits;
    const threshold = hits[exact - 1]?.score ?? 0;
    let bound = rest.reduce((sum, r) => sum + r.maxScore, 0);
    let moved = 0;
    while (moved < rest.length && bound > threshold) bound -= rest[moved++]!.maxScore;
    if (moved === 0) return hits;
    scored = [...scored, ...fresh];
    fresh = rest.slice(0, moved).map((r) => r.term);
    // an exchange holding the moved words and none of the others scores at most their bounds' sum: when that
    // cannot reach the threshold, only the exchanges holding other words too are scored
    alone = rest.slice(0, moved).reduce((sum, r) => sum + r.maxScore, 0) > threshold;
    rest = rest.slice(moved);
  }
}

/**
 * One pass of `splitBm25`: scores into `score` the exchanges holding a `fresh` lead word and none of the
 * words `scored` before, those holding only fresh words unless `alone` is false. Returns `complete` when
 * every exchange holding any of the words was considered (the first pass's lead found fewer than `k`;
 * exchanges holding only rest words were then scored too).
 */
async function scorePass(db: Db, beside: Db, score: Map<number, number>, fresh: readonly string[], scored: readonly string[], restTerms: readonly string[], k: number, alone: boolean, filter?: SqlFilter): Promise<boolean> {
  const freshMatch = ftsExpression(fresh);
  if (freshMatch === undefined) return true;
  const before = ftsExpression(scored);
  const lead = before === undefined ? freshMatch : `(${freshMatch}) NOT (${before})`;
  const rest = ftsExpression(restTerms);
  const [single, both] = await Promise.all([
    alone ? ranked(db, 'exchanges_fts', lead, k, filter) : undefined,
    rest === undefined ? undefined : ranked(beside, 'exchanges_fts', `(${rest}) AND (${lead})`, k, filter),
  ]);
  const lists = single ? [single] : [];
  if (both) lists.push(both);
  const complete = before === undefined && single !== undefined && single.length < k;
  if (complete && rest !== undefined) lists.push(await ranked(db, 'exchanges_fts', `(${rest}) NOT (${lead})`, k, filter));
  for (const list of lists) for (const h of list) score.set(h.n, h.score); // later lists hold full scores
  return complete;
}

async function ranked(db: Db, table: string, match: string, k: number, filter?: SqlFilter): Promise<Scored[]> {
  // Without filters, no join: FTS5 scores every match, and joining each to its exchange row first costs
  // more than the scoring itself at 50K exchanges.
  if (!filter) {
    return db.all<Scored>(
      `SELECT rowid AS n, -bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY bm25(${table}) LIMIT ?`,
      [match, k],
    );
  }
  return db.all<Scored>(
    `SELECT ${table}.rowid AS n, -bm25(${table}) AS score FROM ${table}
     JOIN exchanges e ON e.n = ${table}.rowid JOIN conversations c ON c.id = e.conversation_id
     WHERE ${table} MATCH ? AND ${filter.sql}
     ORDER BY bm25(${table}) LIMIT ?`,
    [match, ...filter.params, k],
  );
}
