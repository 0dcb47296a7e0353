import type { Db } from '../store/db';
import type { SqlFilter } from './filters';
import { ftsColumnExpression } from './terms';
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
 * BM25 over FTS5 (porter) on a distilled layer (verbatim has the lexicon: lexiconBm25.ts). FTS5's bm25() is
 * negative with lower = better; it is negated here so every signal's score reads "higher is better".
 */
export async function bm25(db: Db, layer: Exclude<Layer, 'verbatim'>, terms: readonly string[], k: number, filter?: SqlFilter): Promise<Scored[]> {
  const match = ftsColumnExpression(terms, DISTILLED_COLUMNS[layer]);
  if (match === undefined) return [];
  // Without filters, no join: FTS5 scores every match, and joining each to its exchange row first costs
  // more than the scoring itself in a large store.
  if (!filter) {
    return db.all<Scored>(
      'SELECT rowid AS n, -bm25(distilled_fts) AS score FROM distilled_fts WHERE distilled_fts MATCH ? ORDER BY bm25(distilled_fts) LIMIT ?',
      [match, k],
    );
  }
  return db.all<Scored>(
    `SELECT distilled_fts.rowid AS n, -bm25(distilled_fts) AS score FROM distilled_fts
     JOIN exchanges e ON e.n = distilled_fts.rowid JOIN conversations c ON c.id = e.conversation_id
     WHERE distilled_fts MATCH ? AND ${filter.sql}
     ORDER BY bm25(distilled_fts) LIMIT ?`,
    [match, ...filter.params, k],
  );
}
