import type { Layer } from '../model';
import { searchableText, WORD_TOKEN } from '../words';
import type { Db } from './db';
import type { ExchangeFilter } from './searchFilter';

/**
 * The full-text indexes as search reads them (FTS5; verbatim BM25 has the lexicon, lexicon.ts): BM25 on the
 * distilled facets (`distilled_fts`) and the exchanges asked with the same words (`exchanges_fts`, near copies).
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
 * The first `max` words of `text`, cut as the index cut them, as one phrase of one column (`{prompt} : "a b c"`);
 * undefined when `text` has no word. Words hold no quotes (WORD_TOKEN).
 */
export function ftsColumnPhrase(text: string, column: string, max: number): string | undefined {
  const words = searchableText(text).toLowerCase().match(WORD_TOKEN)?.slice(0, max);
  return words ? `{${column}} : "${words.join(' ')}"` : undefined;
}

/** The distilled_fts columns each distilled layer searches (core = the distilled text: core + context; terms: all-facets only). */
const DISTILLED_COLUMNS: Record<Exclude<Layer, 'verbatim'>, readonly string[]> = {
  core: ['core', 'context'],
  'core+files': ['core', 'context', 'files'],
  'core+rooms': ['core', 'context', 'rooms'],
  'all-facets': ['core', 'context', 'files', 'rooms', 'terms'],
};

/** The `k` exchanges whose distilled `layer` best matches any of `terms` by FTS5's bm25(), best first. */
export async function distilledMatches(db: Db, layer: Exclude<Layer, 'verbatim'>, terms: readonly string[], k: number, filter?: ExchangeFilter): Promise<FtsMatch[]> {
  const match = ftsColumnExpression(terms, DISTILLED_COLUMNS[layer]);
  if (match === undefined) return [];
  // Without filters, no join: FTS5 scores every match, and joining each to its exchange row first costs
  // more than the scoring itself in a large store.
  if (!filter) {
    return db.all<FtsMatch>(
      'SELECT rowid AS n, -bm25(distilled_fts) AS score FROM distilled_fts WHERE distilled_fts MATCH ? ORDER BY bm25(distilled_fts) LIMIT ?',
      [match, k],
    );
  }
  return db.all<FtsMatch>(
    `SELECT distilled_fts.rowid AS n, -bm25(distilled_fts) AS score FROM distilled_fts
     JOIN exchanges e ON e.n = distilled_fts.rowid JOIN conversations c ON c.id = e.conversation_id
     WHERE distilled_fts MATCH ? AND ${filter.sql}
     ORDER BY bm25(distilled_fts) LIMIT ?`,
    [match, ...filter.params, k],
  );
}

/** Words of a prompt its copies are looked up by (a phrase of the prompt's column): enough to be rare. */
const PROMPT_WORDS = 32;
/** Candidates read at most (the prompt is one everyone types: "continue", "yes"). */
const MAX_PROMPT_COPIES = 50;
/** What String.trim removes, as far as SQLite's trim() is told (search/copies.ts compares trimmed prompts). */
const SPACES = ' \t\r\n';

/**
 * Row numbers of the other exchanges asked with the same prompt (outer spaces aside) as exchange `exchangeId`, by
 * transcript path and line: the candidates for its near copies (search/copies.ts). Found through the verbatim index
 * (the prompt's first words as a phrase of its prompt column), so a store of any size is not read row by row; a
 * prompt without a word has none.
 */
export async function samePromptExchanges(db: Db, exchangeId: string, prompt: string): Promise<number[]> {
  const phrase = ftsColumnPhrase(prompt, 'prompt', PROMPT_WORDS);
  if (!phrase) return [];
  const found = await db.all<{ n: number }>(
    `SELECT e.n FROM exchanges_fts f JOIN exchanges e ON e.n = f.rowid JOIN sources s ON s.id = e.source_id
     WHERE exchanges_fts MATCH ?1 AND e.id <> ?2 AND trim(e.prompt, ?3) = trim(?4, ?3)
     ORDER BY s.path, e.line_start LIMIT ?5`,
    [phrase, exchangeId, SPACES, prompt, MAX_PROMPT_COPIES],
  );
  return found.map((f) => f.n);
}
