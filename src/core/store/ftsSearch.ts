import type { Layer } from '../model';
import { searchableText, WORD_TOKEN } from '../words';
import type { Db } from './db';
import type { ExchangeFilter } from './searchFilter';

/**
 * The full-text indexes as search reads them (FTS5; verbatim BM25 has the lexicon, lexicon.ts): BM25 on the
 * distilled facets (`distilled_fts`; the core alone: `distilled_core_fts`) and the exchanges asked with the same
 * words (`exchanges_fts`, near copies).
 * Query words never reach FTS5 as syntax: each is double-quoted and they are OR-joined.
 */

/** One exchange FTS5 matched: its row number and its BM25 score, negated so that higher is better. */
export interface FtsMatch {
  readonly n: number;
  readonly score: number;
}

/** `"a" OR "b"` (`"c"*` for a prefix term); undefined when there is nothing to search for. Terms hold no quotes (WORD_TOKEN), quoted anyway. */
export function ftsExpression(terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map(ftsTerm).join(' OR ');
}

function ftsTerm(t: string): string {
  const prefix = t.endsWith('*');
  const word = prefix ? t.slice(0, -1) : t;
  return `"${word.replace(/"/g, '""')}"${prefix ? '*' : ''}`;
}

/** The expression restricted to some columns of the table (`{core context} : (...)`). */
export function ftsColumnExpression(terms: readonly string[], columns: readonly string[]): string | undefined {
  const expr = ftsExpression(terms);
  return expr === undefined ? undefined : `{${columns.join(' ')}} : (${expr})`;
}

/**
 * Where each distilled layer is searched: the full-text table and its columns. The core (headline + detail) has a
 * table of its own (distilledCoreFts.ts), so BM25 weighs its words against its own length; the others share
 * distilled_fts (terms: all-facets only).
 */
const DISTILLED_INDEX: Record<Exclude<Layer, 'verbatim'>, { readonly table: string; readonly columns?: readonly string[] }> = {
  core: { table: 'distilled_core_fts' },
  'core+files': { table: 'distilled_fts', columns: ['core', 'context', 'files'] },
  'core+rooms': { table: 'distilled_fts', columns: ['core', 'context', 'rooms'] },
  'all-facets': { table: 'distilled_fts', columns: ['core', 'context', 'files', 'rooms', 'terms'] },
};

/** The `k` exchanges whose distilled `layer` best matches any of `terms` by FTS5's bm25(), best first. */
export async function distilledMatches(db: Db, layer: Exclude<Layer, 'verbatim'>, terms: readonly string[], k: number, filter?: ExchangeFilter): Promise<FtsMatch[]> {
  const { table, columns } = DISTILLED_INDEX[layer];
  const match = columns ? ftsColumnExpression(terms, columns) : ftsExpression(terms);
  if (match === undefined) return [];
  // Without filters, no join: FTS5 scores every match, and joining each to its exchange row first costs
  // more than the scoring itself in a large store.
  if (!filter) {
    return db.all<FtsMatch>(
      `SELECT rowid AS n, -bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY bm25(${table}) LIMIT ?`,
      [match, k],
    );
  }
  return db.all<FtsMatch>(
    `SELECT ${table}.rowid AS n, -bm25(${table}) AS score FROM ${table}
     JOIN exchanges e ON e.n = ${table}.rowid JOIN conversations c ON c.id = e.conversation_id
     WHERE ${table} MATCH ? AND ${filter.sql}
     ORDER BY bm25(${table}) LIMIT ?`,
    [match, ...filter.params, k],
  );
}

/** Words of a prompt its copies are looked up by: enough to be rare. */
const PROMPT_WORDS = 32;
/** Words of each run of the prompt looked up: an edit of a few words (a renamed folder) leaves most runs whole. */
const RUN_WORDS = 6;
/** Candidates read at most (the prompt is one everyone types: "continue", "yes"). */
const MAX_PROMPT_COPIES = 50;

/**
 * Row numbers of the other exchanges whose prompt holds a run of RUN_WORDS consecutive words of exchange
 * `exchangeId`'s prompt (all of it when shorter), by transcript path and line: the candidates for its near copies
 * (search/copies.ts decides). Found through the verbatim index (the runs as phrases of its prompt column), so a
 * store of any size is not read row by row; a prompt without a word has none.
 */
export async function similarPromptExchanges(db: Db, exchangeId: string, prompt: string): Promise<number[]> {
  // cut as the index cut them; words hold no quotes (WORD_TOKEN)
  const words = searchableText(prompt).toLowerCase().match(WORD_TOKEN)?.slice(0, PROMPT_WORDS);
  if (!words) return [];
  const runs: string[] = [];
  for (let i = 0; i === 0 || i < words.length; i += RUN_WORDS) runs.push(`"${words.slice(i, i + RUN_WORDS).join(' ')}"`);
  const found = await db.all<{ n: number }>(
    `SELECT e.n FROM exchanges_fts f JOIN exchanges e ON e.n = f.rowid JOIN sources s ON s.id = e.source_id
     WHERE exchanges_fts MATCH ?1 AND e.id <> ?2
     ORDER BY s.path, e.line_start LIMIT ?3`,
    [`{prompt} : (${runs.join(' OR ')})`, exchangeId, MAX_PROMPT_COPIES],
  );
  return found.map((f) => f.n);
}
