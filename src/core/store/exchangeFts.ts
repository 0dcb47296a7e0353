import type { Db } from './db';
import { resetFtsTable } from './ftsReset';
import { type IndexText, indexText, termCounts } from '../indexText';
import { TimeSlice } from '../timeSlice';
import { addToLexicon, clearLexicon, type LexiconDoc, replaceTerms } from './lexicon';
import type { HeldMerges } from './lexiconHold';
import { CYRILLIC_RANGES, hasCyrillicLetter } from '../cyrillic';

/**
 * The verbatim indexes of the exchanges a transaction adds, from text computed in JavaScript (indexText.ts),
 * which SQL triggers cannot compute: `exchanges_fts` (the prompt alone, schema v14: near copies, copies.ts; no copy
 * of the text since v30, contentlessFts.ts), and the lexicon (lexicon.ts), which BM25 on verbatim reads, gets each exchange's
 * terms. Deleting an exchange deletes its FTS row by trigger (schema v30) and records it in the lexicon (v11). An
 * exchange's prompt and verbatim are never updated in place.
 */
export async function indexExchanges(db: Db, rows: ReadonlyArray<{ n: number; prompt: string; verbatim: string }>): Promise<void> {
  await addIndexText(db, rows.map((r) => ({ n: r.n, prompt: r.prompt, text: indexText(r.prompt, r.verbatim) })));
}

/**
 * indexExchanges with each exchange's index text already computed (where it was parsed); `prompt`: the prompt as
 * stored; `held`: a write pass's lexicon merges. `exchanges_fts` keeps no text (schema v30, contentlessFts.ts): an
 * index text other than the stored prompt is kept in `exchanges_fts_text`, for the row's delete trigger.
 */
export async function addIndexText(db: Db, rows: ReadonlyArray<{ n: number; prompt: string; text: IndexText }>, held?: HeldMerges): Promise<void> {
  await db.insertRows(
    'INSERT INTO exchanges_fts(rowid, prompt)',
    rows.map((r) => [r.n, r.text.prompt]),
  );
  const other = rows.filter((r) => r.text.prompt !== r.prompt);
  if (other.length > 0) await db.insertRows('INSERT OR REPLACE INTO exchanges_fts_text(n, prompt)', other.map((r) => [r.n, r.text.prompt]));
  await addToLexicon(db, rows.map((r) => ({ n: r.n, doc: r.text.doc })), undefined, held);
}

/** Rows read per step when the whole index is rebuilt (bounded memory at any store size). */
const REBUILD_BATCH = 500;

/**
 * Re-creates `exchanges_fts` and the lexicon from the stored exchanges (the verbatim rows are the truth). Call
 * inside a transaction.
 */
export async function rebuildExchangeFts(db: Db): Promise<void> {
  await resetFtsTable(db, 'exchanges_fts');
  await db.run('DELETE FROM exchanges_fts_text');
  await clearLexicon(db);
  for (let after = -1; ; ) {
    const rows = await db.all<{ n: number; prompt: string; verbatim: string }>(
      'SELECT n, prompt, verbatim FROM exchanges WHERE n > ? ORDER BY n LIMIT ?',
      [after, REBUILD_BATCH],
    );
    if (rows.length === 0) return;
    await indexExchanges(db, rows);
    after = rows[rows.length - 1]!.n;
  }
}

/** Exchanges per segment when the lexicon is built whole: fewer, larger segments to merge (~8 MB of text). */
const LEXICON_BATCH = 2000;
/** Exchanges read per statement: the driver makes a statement's rows in one go on this thread (~100 ms for 2,000). */
const LEXICON_PAGE = 500;

/**
 * Builds the lexicon from the text the three-column `exchanges_fts` of schema v5 to v13 holds (the v11
 * migration): no verbatim is read again. Call inside a transaction. `progress` hears how many of the exchanges
 * are in: 0 first, then after each segment.
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
    for (const r of rows) {
      await slice.yieldIfDue();
      docs.push({ n: r.n, doc: termCounts({ prompt: r.prompt, said: r.said, tools: r.tools }) });
    }
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

/**
 * Indexes again, from the stored verbatim, the terms that changed when Cyrillic words became terms by their stem
 * (schema v19, cyrillic.ts): those beginning with a Cyrillic letter, as every Cyrillic word's did and does, in place
 * (replaceTerms). Only an exchange holding a Cyrillic letter can hold one, so only those are indexed again: a store
 * with no Cyrillic text reads its exchanges once and writes nothing. Rebuilding the whole lexicon instead took
 * 111 s user + 53 s sys at 250,000 exchanges (docs/search-log.md). Call inside a transaction; `progress` hears how
 * many exchanges were read: 0 first, then every LEXICON_BATCH.
 */
export async function retermCyrillic(db: Db, progress?: (done: number, total: number) => void): Promise<void> {
  await replaceTerms(db, CYRILLIC_RANGES, cyrillicDocs(db, progress));
}

/**
 * The exchanges holding a Cyrillic letter with their terms, a page at a time. Tested in JavaScript: SQLite's GLOB
 * over the Cyrillic ranges took ~15 times as long as reading the text out and testing it here.
 */
async function* cyrillicDocs(db: Db, progress?: (done: number, total: number) => void): AsyncGenerator<LexiconDoc[]> {
  const total = (await db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges'))?.c ?? 0;
  const slice = new TimeSlice();
  let done = 0;
  progress?.(0, total);
  for (let after = -1; ; ) {
    const read = await db.all<{ n: number; prompt: string; verbatim: string }>('SELECT n, prompt, verbatim FROM exchanges WHERE n > ? ORDER BY n LIMIT ?', [
      after,
      LEXICON_PAGE,
    ]);
    const docs: LexiconDoc[] = [];
    for (const row of read) {
      await slice.yieldIfDue();
      if (hasCyrillicLetter(row.prompt) || hasCyrillicLetter(row.verbatim)) docs.push({ n: row.n, doc: indexText(row.prompt, row.verbatim).doc });
    }
    yield docs;
    done += read.length;
    const last = read.length < LEXICON_PAGE;
    if (last || done % LEXICON_BATCH === 0) progress?.(done, total);
    if (last) return;
    after = read[read.length - 1]!.n;
  }
}
