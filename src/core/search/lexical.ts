import type { Db } from '../store/db';
import type { SqlFilter } from './filters';
import { ftsColumnExpression, ftsExpression } from './terms';
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
