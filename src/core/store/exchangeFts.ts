import type { Db } from './db';
import { resetFtsTable } from './ftsReset';
import { ftsFields } from './ftsText';
import { TimeSlice } from '../timeSlice';
import { addToLexicon, clearLexicon, type LexiconDoc } from './lexicon';

/**
 * `exchanges_fts` holds text computed in JavaScript (ftsText.ts: labels out, words segmented), which SQL
 * triggers cannot compute; so it keeps its own copy of that text (a plain FTS5 table, not an external-content
 * one) and rows are added here, in the transaction that adds their exchanges, with the same text to the
 * lexicon (lexicon.ts), which BM25 on verbatim reads. Deleting an exchange deletes its row by trigger (schema
 * v5) and records it in the lexicon (v11). An exchange's prompt and verbatim are never updated in place.
 */
export async function indexExchanges(db: Db, rows: ReadonlyArray<{ n: number; prompt: string; verbatim: string }>, lexicon = true): Promise<void> {
  const docs = rows.map((r) => ({ n: r.n, fields: ftsFields(r.prompt, r.verbatim) }));
  await db.insertRows(
    'INSERT INTO exchanges_fts(rowid, prompt, said, tools)',
    docs.map((d) => [d.n, d.fields.prompt, d.fields.said, d.fields.tools]),
  );
  if (lexicon) await addToLexicon(db, docs);
}

/** Rows read per step when the whole index is rebuilt (bounded memory at any store size). */
const REBUILD_BATCH = 500;

/**
 * Re-creates `exchanges_fts` and the lexicon from the stored exchanges (the verbatim rows are the truth). Call
 * inside a transaction. Without `lexicon`, the FTS5 table alone (schema v5, before the lexicon's tables exist).
 */
export async function rebuildExchangeFts(db: Db, lexicon = true): Promise<void> {
  await resetFtsTable(db, 'exchanges_fts');
  if (lexicon) await clearLexicon(db);
  for (let after = -1; ; ) {
    const rows = await db.all<{ n: number; prompt: string; verbatim: string }>(
      'SELECT n, prompt, verbatim FROM exchanges WHERE n > ? ORDER BY n LIMIT ?',
      [after, REBUILD_BATCH],
    );
    if (rows.length === 0) return;
    await indexExchanges(db, rows, lexicon);
    after = rows[rows.length - 1]!.n;
  }
}

/** Exchanges per segment when the lexicon is built whole: fewer, larger segments to merge (~8 MB of text). */
const LEXICON_BATCH = 2000;
/** Exchanges read per statement: the driver makes a statement's rows in one go on this thread (~100 ms for 2,000). */
const LEXICON_PAGE = 500;

/**
 * Builds the lexicon from the text `exchanges_fts` holds (schema v11): no verbatim is read again. Call inside a
 * transaction. `progress` hears how many of the exchanges are in: 0 first, then after each segment.
 */
export async function buildLexicon(db: Db, progress?: (done: number, total: number) => void): Promise<void> {
  await clearLexicon(db);
  const total = (await db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges'))?.c ?? 0;
  const slice = new TimeSlice();
  let docs: LexiconDoc[] = [];
  let done = 0;
  progress?.(0, total);
  for (let after = -1; ; ) {
    const rows = await db.all<{ n: number; prompt: string; said: string; tools: string }>(
      'SELECT rowid AS n, prompt, said, tools FROM exchanges_fts WHERE rowid > ? ORDER BY rowid LIMIT ?',
      [after, LEXICON_PAGE],
    );
    for (const r of rows) docs.push({ n: r.n, fields: { prompt: r.prompt, said: r.said, tools: r.tools } });
    const last = rows.length < LEXICON_PAGE;
    if (docs.length > 0 && (docs.length >= LEXICON_BATCH || last)) {
      await addToLexicon(db, docs, slice);
      done += docs.length;
      progress?.(Math.min(done, total), total);
      docs = [];
    }
    if (last) return;
    after = rows[rows.length - 1]!.n;
  }
}
