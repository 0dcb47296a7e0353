import type { TermCounts } from '../indexText';
import { TimeSlice } from '../timeSlice';
import type { HeldMerges } from './lexiconHold';
import type { Db } from './db';
import type { SegmentPostings, WrittenPostings } from './writtenPostings';
import { chunksAsPairs, encodePairs, encodePairsInto, forEachPair, joinChunksInto, lastRowNumber, liveChunk, placeLengths, VarintWriter } from './postings';

// search reads postings through the lexicon (lexiconBm25.ts), as storeDump.mjs does
export { addLivePostings, decodePairs, forEachPair } from './postings';

/**
 * The lexicon: BM25's own index over what people said (the verbatim index's three columns, ftsText.ts), so a
 * search reads each query term's postings once and scores them in JavaScript, instead of FTS5 scoring every
 * matching row through bm25() (about 1.5 µs a row, and a walk of every word's postings per statement: most of a
 * search at 50K exchanges; docs/search.md, "BM25 on verbatim: the lexicon"). FTS5 stays for phrase queries and the distilled layers.
 *
 * Like FTS5 it is a set of segments, one per write transaction that adds exchanges: a segment holds its
 * exchanges' lengths (words) and, per term, the exchanges holding it with the term's count in each
 * (`postings`: varints, row number deltas and counts, by row number). Segments of about the same size are
 * merged, four at a time (FANOUT), so a store indexed in many runs has a few dozen at most and each exchange is
 * rewritten O(log n) times. A deleted exchange is recorded in `lexicon_deleted` with the newest segment of that
 * moment (`upto`): its postings in that segment and older ones are dead, while a row number SQLite gives again
 * later lives in a newer segment. Merges leave dead postings out and forget the deletions nothing holds any more.
 */
export const LEXICON_SCHEMA = `
  CREATE TABLE lexicon_segments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    docs INTEGER NOT NULL,
    lengths BLOB NOT NULL
  );
  CREATE TABLE lexicon_postings (
    term TEXT NOT NULL,
    segment INTEGER NOT NULL,
    df INTEGER NOT NULL,
    postings BLOB NOT NULL,
    PRIMARY KEY (term, segment)
  ) WITHOUT ROWID;
  CREATE INDEX lexicon_postings_segment ON lexicon_postings(segment);
  CREATE TABLE lexicon_deleted (n INTEGER PRIMARY KEY, upto INTEGER NOT NULL);
  CREATE TRIGGER exchanges_lexicon_ad AFTER DELETE ON exchanges BEGIN
    INSERT OR REPLACE INTO lexicon_deleted(n, upto) VALUES (old.n, (SELECT coalesce(max(id), 0) FROM lexicon_segments));
  END;
`;

/** Segments whose sizes share a power of FANOUT are merged when FANOUT of them are there. */
export const FANOUT = 4;

/** A document of the lexicon: an exchange's row number and its terms (indexText.ts). */
export interface LexiconDoc {
  readonly n: number;
  readonly doc: TermCounts;
}

/**
 * Adds one segment for `docs` (exchanges just inserted), then merges what has piled up (what `held` lets merge,
 * when a write pass holds the merges). Call inside the transaction that inserted them. Its JavaScript yields to the
 * event loop every `slice` (TimeSlice).
 */
export async function addToLexicon(db: Db, docs: readonly LexiconDoc[], slice = new TimeSlice(), held?: HeldMerges): Promise<void> {
  if (docs.length === 0) return;
  const sorted = [...docs].sort((a, b) => a.n - b.n);
  const lengths: number[] = [];
  const byTerm = new Map<string, number[]>();
  for (const { n, doc } of sorted) {
    await slice.yieldIfDue();
    lengths.push(n, doc.words);
    addPairs(byTerm, n, doc);
  }
  await writeSegment(db, sorted.length, encodePairs(lengths), byTerm, slice, held?.written);
  if (held) await held.added(db, slice);
  else await mergeLexicon(db, slice);
}

/** Adds exchange `n`'s (row number, count) pair to the list of each of its terms (those `keep` keeps) in `byTerm`. */
function addPairs(byTerm: Map<string, number[]>, n: number, doc: TermCounts, keep?: (term: string) => boolean): void {
  if (doc.counts.length === 0) return;
  const terms = doc.terms.split(' ');
  for (let i = 0; i < terms.length; i++) {
    if (keep && !keep(terms[i]!)) continue;
    const pairs = byTerm.get(terms[i]!);
    if (pairs) pairs.push(n, doc.counts[i]!);
    else byTerm.set(terms[i]!, [n, doc.counts[i]!]);
  }
}

/**
 * Indexes stored exchanges again in place, where what makes a word a term changed for some words only (schema v19:
 * Cyrillic words by their stem): every term whose first character is in `ranges` (code points, [from, to)) loses
 * its postings, and `pages` (every exchange that holds such a term before or after, with its terms now) give them
 * again, each exchange's in the segment it lives in; its length too where it changed. The other terms' postings
 * are not touched, and no segment is added or merged. Recording the exchanges dead and adding them again as new
 * segments (as a deleted and inserted exchange) merged the 250,000 exchanges' segments three times over: 23 s of
 * CPU, 12 of them one merge, and the process's peak at 582 MB. An exchange not in the lexicon stays out (`check`).
 */
export async function replaceTerms(
  db: Db,
  ranges: ReadonlyArray<readonly [number, number]>,
  pages: AsyncIterable<readonly LexiconDoc[]>,
  slice = new TimeSlice(),
): Promise<void> {
  const live = await readLexiconDocs(db);
  const replaced = (term: string): boolean => {
    const c = term.codePointAt(0) ?? 0;
    return ranges.some(([from, to]) => c >= from && c < to);
  };
  const bySegment = new Map<number, Map<string, number[]>>();
  const lengths = new Map<number, Map<number, number>>();
  for await (const page of pages) {
    for (const { n, doc } of page) {
      await slice.yieldIfDue();
      const segment = live.segmentOf[n] ?? 0;
      if (segment === 0) continue;
      if (doc.words !== live.lengthOf[n]) lengths.set(segment, (lengths.get(segment) ?? new Map<number, number>()).set(n, doc.words));
      if (doc.counts.length === 0) continue;
      let byTerm = bySegment.get(segment);
      if (!byTerm) bySegment.set(segment, (byTerm = new Map()));
      addPairs(byTerm, n, doc, replaced);
    }
  }
  // the terms sort by code point (UTF-8 bytes): a range of first characters is a range of terms
  await db.run(
    `DELETE FROM lexicon_postings WHERE ${ranges.map(() => '(term >= ? AND term < ?)').join(' OR ')}`,
    ranges.flatMap(([from, to]) => [String.fromCodePoint(from), String.fromCodePoint(to)]),
  );
  for (const [segment, byTerm] of bySegment) await writePostings(db, segment, byTerm, slice);
  for (const [segment, changed] of lengths) {
    const row = await db.get<{ lengths: Uint8Array }>('SELECT lengths FROM lexicon_segments WHERE id = ?', [segment]);
    const flat: number[] = [];
    forEachPair(row!.lengths, (n, words) => flat.push(n, changed.get(n) ?? words));
    await db.run('UPDATE lexicon_segments SET lengths = ? WHERE id = ?', [encodePairs(flat), segment]);
  }
}

/** Empties the lexicon (before it is built again from the stored exchanges). */
export async function clearLexicon(db: Db): Promise<void> {
  await db.run('DELETE FROM lexicon_postings');
  await db.run('DELETE FROM lexicon_segments');
  await db.run('DELETE FROM lexicon_deleted');
}

/** Merges segments while FANOUT of about the same size are there. Returns how many merges it made. */
export async function mergeLexicon(db: Db, slice = new TimeSlice()): Promise<number> {
  let merges = 0;
  for (;;) {
    const segments = await db.all<{ id: number; docs: number }>('SELECT id, docs FROM lexicon_segments ORDER BY id');
    const levels = new Map<number, number[]>();
    for (const s of segments) {
      const level = s.docs <= 1 ? 0 : Math.floor(Math.log(s.docs) / Math.log(FANOUT));
      const ids = levels.get(level) ?? [];
      ids.push(s.id);
      levels.set(level, ids);
    }
    const full = [...levels.values()].find((ids) => ids.length >= FANOUT);
    if (!full) return merges;
    await mergeSegments(db, full, slice);
    merges++;
  }
}

/**
 * Postings rows a merge holds at most: it reads this many divided among its segments per segment and statement
 * (`page`; 5,000 for FANOUT segments), so a merge of HELD_SEGMENTS holds no more than one of FANOUT.
 */
const MERGE_ROWS = 20_000;

/**
 * Merges the segments `ids` into one, leaving out dead postings; forgets deletions no segment holds any more. The
 * postings are merged a range of terms at a time, so what the merge holds is a few pages of each segment, not
 * every term of them: the last merges of a first index of 1 GB of transcripts held all 40,000 exchanges' postings
 * (the run thread's heap reached 300 MB, 266 MB of it live). Returns the merged segment's id, none when no
 * exchange of them was live.
 */
export async function mergeSegments(
  db: Db,
  ids: readonly number[],
  slice = new TimeSlice(),
  page = Math.ceil(MERGE_ROWS / ids.length),
  written?: WrittenPostings,
): Promise<number | undefined> {
  const deleted = await deletions(db);
  const json = JSON.stringify(ids);
  const docs: number[] = [];
  const segments = await db.all<{ id: number; lengths: Uint8Array }>(`SELECT id, lengths FROM lexicon_segments WHERE id IN (SELECT value FROM json_each(?))`, [json]);
  for (const s of segments) {
    forEachPair(s.lengths, (n, words) => {
      if (!isDead(deleted, n, s.id)) docs.push(n, words);
    });
  }
  // with no live exchange left, every posting is dead: nothing to write
  let merged: number | undefined;
  if (docs.length > 0) {
    merged = await addSegment(db, docs.length / 2, encodePairs(docs));
    // oldest segment first, so each term's pairs come mostly in row order; each range ends at the first term
    // (SQLite's order) that closes a page of some segment, so a term's chunks are all in the same range
    const oldestFirst = [...ids].sort((a, b) => a - b);
    const remembered = written?.all(oldestFirst);
    if (remembered) {
      await mergeRemembered(db, json, merged, oldestFirst, remembered, deleted, slice);
      await db.run(`DELETE FROM lexicon_segments WHERE id IN (SELECT value FROM json_each(?))`, [json]);
      await forgetDeletions(db, deleted);
      return merged;
    }
    for (let after = ''; ; ) {
      const bound = await rangeEnd(db, json, after, page);
      const byTerm = new Map<string, Uint8Array[]>();
      for (const segment of oldestFirst) {
        const rows = await db.all<{ term: string; postings: Uint8Array }>(
          bound === null
            ? 'SELECT term, postings FROM lexicon_postings WHERE segment = ? AND term > ? ORDER BY term'
            : 'SELECT term, postings FROM lexicon_postings WHERE segment = ? AND term > ? AND term <= ? ORDER BY term',
          bound === null ? [segment, after] : [segment, after, bound],
        );
        for (const r of rows) {
          await slice.yieldIfDue();
          // the chunks are kept as stored (those holding dead postings written again without them), joined when
          // written (writePostings)
          const chunk = deleted.size === 0 ? r.postings : liveChunk(r.postings, (n) => isDead(deleted, n, segment));
          if (chunk.length === 0) continue;
          const held = byTerm.get(r.term);
          if (held) held.push(chunk);
          else byTerm.set(r.term, [chunk]);
        }
      }
      // the range's old rows go before its merged rows are written, into the pages they leave: written beside them
      // and deleted after, they left the table's pages a third full (the corpus's postings 501 pages instead of 298)
      await db.run(
        `DELETE FROM lexicon_postings WHERE segment IN (SELECT value FROM json_each(?)) AND term > ?${bound === null ? '' : ' AND term <= ?'}`,
        bound === null ? [json, after] : [json, after, bound],
      );
      await writePostings(db, merged, byTerm, slice);
      if (bound === null) break;
      after = bound;
    }
  } else {
    // the ranges above delete the segments' postings as they go
    await db.run(`DELETE FROM lexicon_postings WHERE segment IN (SELECT value FROM json_each(?))`, [json]);
  }
  await db.run(`DELETE FROM lexicon_segments WHERE id IN (SELECT value FROM json_each(?))`, [json]);
  await forgetDeletions(db, deleted);
  return merged;
}

/**
 * mergeSegments' postings when the pass that wrote every segment of it still has their postings (WrittenPostings):
 * the same chunks, oldest segment first, as stored or without their dead postings, taken from there instead of read
 * back row by row (the same rows written; on the corpus the read was a third of the merge's CPU). The segments' rows
 * go first, then the merged rows, in the order their terms were first written (not sorted as the ranges are: the
 * corpus's postings then take 302 pages instead of 289, the store's file the same size; a sort of the terms on this
 * thread cost ~10 ms on the corpus, and 60-100 ms at the most this holds).
 */
async function mergeRemembered(
  db: Db,
  segmentsJson: string,
  merged: number,
  oldestFirst: readonly number[],
  remembered: readonly SegmentPostings[],
  deleted: ReadonlyMap<number, number>,
  slice: TimeSlice,
): Promise<void> {
  await db.run(`DELETE FROM lexicon_postings WHERE segment IN (SELECT value FROM json_each(?))`, [segmentsJson]);
  const byTerm = new Map<string, Uint8Array[]>();
  for (const [k, segment] of remembered.entries()) {
    const id = oldestFirst[k]!;
    for (const { terms, bytes, places } of segment.written) {
      await slice.yieldIfDue();
      for (let i = 0; i < terms.length; i++) {
        const stored = bytes.subarray(places[2 * i]!, places[2 * i]! + places[2 * i + 1]!);
        const chunk = deleted.size === 0 ? stored : liveChunk(stored, (n) => isDead(deleted, n, id));
        if (chunk.length === 0) continue;
        const held = byTerm.get(terms[i]!);
        if (held) held.push(chunk);
        else byTerm.set(terms[i]!, [chunk]);
      }
    }
  }
  await writePostings(db, merged, byTerm, slice);
}

/**
 * The last term of a merge's next range after `after`: the smallest of the segments' `page`-th terms after it,
 * compared by SQLite (its order of terms is the one the pages are read in); null when every segment has fewer left.
 */
async function rangeEnd(db: Db, segmentsJson: string, after: string, page: number): Promise<string | null> {
  const row = await db.get<{ bound: string | null }>(
    `SELECT min((SELECT term FROM lexicon_postings WHERE segment = s.value AND term > ? ORDER BY term LIMIT 1 OFFSET ?)) AS bound
       FROM json_each(?) s`,
    [after, page - 1, segmentsJson],
  );
  return row?.bound ?? null;
}

/** Deleted row numbers, each with the newest segment its postings can be dead in. */
async function deletions(db: Db): Promise<Map<number, number>> {
  const rows = await db.all<{ n: number; upto: number }>('SELECT n, upto FROM lexicon_deleted');
  return new Map(rows.map((r) => [r.n, r.upto]));
}

/** Whether exchange `n`'s postings in `segment` are dead: it was deleted while that segment (or a newer one) was the newest. */
function isDead(deleted: ReadonlyMap<number, number>, n: number, segment: number): boolean {
  return (deleted.get(n) ?? -1) >= segment;
}

/** Drops the deletions whose row number no segment old enough holds any more. */
async function forgetDeletions(db: Db, deleted: ReadonlyMap<number, number>): Promise<void> {
  if (deleted.size === 0) return;
  const held = new Set<number>();
  for (const s of await db.all<{ id: number; lengths: Uint8Array }>('SELECT id, lengths FROM lexicon_segments')) {
    forEachPair(s.lengths, (n) => {
      if (isDead(deleted, n, s.id)) held.add(n);
    });
  }
  const gone = [...deleted.keys()].filter((n) => !held.has(n));
  if (gone.length > 0) await db.run('DELETE FROM lexicon_deleted WHERE n IN (SELECT value FROM json_each(?))', [JSON.stringify(gone)]);
}

/**
 * Postings bytes written per statement: a statement's blob and JSON are copied by the driver and by SQLite while it
 * runs, so a merge of a large history's segments is written in pieces of this size, not as one copy of it all.
 */
const POSTINGS_PIECE_BYTES = 1024 * 1024;

/**
 * A term's postings as a write gets them: its (row number, count) pairs, flat, or (a merge) its chunks of the merged
 * segments, oldest first, as stored or without their dead postings (liveChunk).
 */
type TermPostings = number[] | Uint8Array[];

/**
 * Writes one segment: `byTerm` holds each term's (row number, count) pairs, flat. `written`: a write pass's memory of
 * its segments' postings (WrittenPostings), for its merges.
 */
async function writeSegment(
  db: Db,
  count: number,
  lengths: Uint8Array,
  byTerm: ReadonlyMap<string, TermPostings>,
  slice: TimeSlice,
  written?: WrittenPostings,
): Promise<void> {
  if (count === 0) return;
  const id = await addSegment(db, count, lengths);
  await writePostings(db, id, byTerm, slice, written?.record(id));
}

/** A new segment's row (its exchanges' lengths); its id. */
async function addSegment(db: Db, count: number, lengths: Uint8Array): Promise<number> {
  const row = await db.get<{ id: number }>('INSERT INTO lexicon_segments(docs, lengths) VALUES (?, ?) RETURNING id', [count, lengths]);
  return row!.id;
}

/**
 * Writes postings of segment `id`. The rows go in a few statements of two parameters each: a JSON array of (term,
 * df, offset, length) and those terms' postings end to end in one blob, which SQLite cuts. Bound as four parameters
 * a row (insertRows), the driver copied each of the tens of thousands of terms and blobs a segment or a merge writes
 * on this thread, one by one: the largest part of this thread's work in a first index (~360 ms of ~930 on the
 * corpus). The postings are encoded straight into the statement's blob, not into a buffer a term then copied into
 * it (with merges joining stored chunks: this thread's writes of the corpus 397 -> 369 ms, test/bench/parseWrites.mjs).
 */
async function writePostings(db: Db, id: number, byTerm: ReadonlyMap<string, TermPostings>, slice: TimeSlice, record?: SegmentPostings): Promise<void> {
  const terms: Array<[string, number, number, number]> = [];
  const postings = new VarintWriter(4096); // grown as needed: a small segment needs a few KB, not a piece
  for (const [term, held] of byTerm) {
    if (slice.due()) await slice.yieldIfDue();
    const offset = postings.size;
    let df = typeof held[0] === 'number' ? 0 : joinChunksInto(postings, held as Uint8Array[]);
    if (df === 0) {
      const flat = typeof held[0] === 'number' ? (held as number[]) : chunksAsPairs(held as Uint8Array[]);
      encodePairsInto(postings, flat);
      df = flat.length / 2;
    }
    terms.push([term, df, offset + 1, postings.size - offset]);
    if (postings.size + 1 > POSTINGS_PIECE_BYTES) await flushPostings(db, id, terms, postings, record);
  }
  if (terms.length > 0) await flushPostings(db, id, terms, postings, record);
}

/**
 * One statement of writePostings: `terms` and their postings written as rows of segment `id` (and recorded), then
 * both emptied for the next. A function of the module, not a closure made per call: V8 had compiled the loop that
 * calls it for one closure and threw that code away at the next segment's.
 */
async function flushPostings(db: Db, id: number, terms: Array<[string, number, number, number]>, postings: VarintWriter, record: SegmentPostings | undefined): Promise<void> {
  // in the order of `byTerm`, as rows: substr of a blob is a blob, by bytes (from 1)
  await db.run(
    `INSERT INTO lexicon_postings(term, segment, df, postings)
       SELECT j.value ->> 0, ?1, j.value ->> 1, substr(?3, j.value ->> 2, j.value ->> 3) FROM json_each(?2) j`,
    [id, JSON.stringify(terms), postings.view()],
  );
  if (record) {
    const places = new Int32Array(2 * terms.length);
    for (const [i, t] of terms.entries()) {
      places[2 * i] = t[2] - 1;
      places[2 * i + 1] = t[3];
    }
    record.add(terms.map((t) => t[0]), places, postings.view());
  }
  terms.length = 0;
  postings.truncate(0);
}

/** What a search needs of every segment: each live exchange's segment and length. */
export interface LexiconDocs {
  /** By row number: the segment the live exchange is in, 0 for none (deleted, or never indexed). */
  readonly segmentOf: Int32Array;
  /** By row number: its length in words. */
  readonly lengthOf: Uint32Array;
  readonly count: number;
  readonly totalLength: number;
  /** The segments read. */
  readonly segments: ReadonlySet<number>;
  /**
   * The segments read that hold a dead document (deleted, or held again by a newer segment): their postings are
   * checked one by one (addLivePostings). Every posting of the others is live.
   */
  readonly partial: ReadonlySet<number>;
}

/**
 * The arrays are as long as the store's last exchange's row number (one look-up), which every live lexicon document
 * lies within: the segments are walked once, not once more to find their largest row number (a fresh process's
 * first search at 250,000 exchanges: ~10 ms of CPU). A live document beyond it (an orphan, which `check` reports)
 * sizes them by that walk instead.
 */
export async function readLexiconDocs(db: Db): Promise<LexiconDocs> {
  const deleted = await deletions(db);
  const segments = await db.all<{ id: number; lengths: Uint8Array }>('SELECT id, lengths FROM lexicon_segments ORDER BY id');
  const last = (await db.get<{ n: number | null }>('SELECT max(n) AS n FROM exchanges'))?.n ?? 0;
  return (
    placeSegments(segments, deleted, last + 1) ??
    placeSegments(segments, deleted, segments.reduce((max, s) => Math.max(max, lastRowNumber(s.lengths)), 0) + 1)!
  );
}

/** Every segment's lengths in arrays of `size` row numbers; undefined when a live one lies beyond them. */
function placeSegments(segments: ReadonlyArray<{ id: number; lengths: Uint8Array }>, deleted: ReadonlyMap<number, number>, size: number): LexiconDocs | undefined {
  const segmentOf = new Int32Array(size);
  const lengthOf = new Uint32Array(size);
  const partial = new Set<number>();
  let count = 0;
  let totalLength = 0;
  for (const s of segments) {
    const placed = placeLengths(s.lengths, s.id, segmentOf, lengthOf, deleted.size > 0 ? (n) => isDead(deleted, n, s.id) : undefined, partial);
    if (!placed) return undefined;
    count += placed.added;
    totalLength += placed.lengthChange;
  }
  return { segmentOf, lengthOf, count, totalLength, segments: new Set(segments.map((s) => s.id)), partial };
}

/** What `check` reports of the lexicon: exchanges it lacks, documents whose exchange is gone. */
export async function lexiconProblems(db: Db): Promise<string[]> {
  const docs = await readLexiconDocs(db);
  const exchanges = await db.all<{ n: number }>('SELECT n FROM exchanges');
  const missing = exchanges.filter((e) => !docs.segmentOf[e.n]).length;
  const orphans = docs.count - (exchanges.length - missing);
  const problems: string[] = [];
  if (missing > 0) problems.push(`${missing} exchanges are not in the lexicon (BM25's index)`);
  if (orphans > 0) problems.push(`${orphans} lexicon documents have no exchange`);
  return problems;
}

/** One term's postings in one segment. */
export interface PostingChunk {
  readonly term: string;
  readonly segment: number;
  /** How many exchanges the chunk holds the term in, dead ones included. */
  readonly df: number;
  readonly postings: Uint8Array;
}

/**
 * The postings of `terms` (exact) and of every term beginning with one of `prefixes`, in one statement. A
 * prefix's range ends before the prefix with its last character's successor: terms sort by code point.
 */
export async function readPostings(db: Db, terms: readonly string[], prefixes: readonly string[] = []): Promise<PostingChunk[]> {
  const parts = ['SELECT term, segment, df, postings FROM lexicon_postings WHERE term IN (SELECT value FROM json_each(?))'];
  const params: string[] = [JSON.stringify(terms)];
  for (const p of prefixes) {
    const last = p.codePointAt(p.length - 1)!;
    const end = p.slice(0, p.length - String.fromCodePoint(last).length) + String.fromCodePoint(last + 1);
    parts.push('SELECT term, segment, df, postings FROM lexicon_postings WHERE term >= ? AND term < ?');
    params.push(p, end);
  }
  return db.all<PostingChunk>(parts.join(' UNION ALL '), params);
}
