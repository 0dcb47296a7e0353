import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { describe, test } from 'node:test';
import { indexTerm, indexTermCounts, MAX_TERM_LENGTH } from '../../src/core/indexTerms';
import { termCounts } from '../../src/core/indexText';
import { LexiconBm25 } from '../../src/core/search/lexiconBm25';
import { queryTerms } from '../../src/core/search/terms';
import { MAYBE_UNSPACED, searchableText, UNSPACED_CHAR } from '../../src/core/words';
import { addToLexicon, FANOUT, lexiconProblems, mergeSegments, readLexiconDocs } from '../../src/core/store/lexicon';
import { HELD_SEGMENTS } from '../../src/core/store/lexiconHold';
import { WrittenPostings } from '../../src/core/store/writtenPostings';
import { addLivePostings, forEachPair, VarintWriter } from '../../src/core/store/postings';
import type { Store } from '../../src/core/store/store';
import { openFixture, writeConversation } from './searchFixture';

/**
 * The lexicon (store/lexicon.ts), BM25's own index: what it indexes, how its segments merge, how deleted
 * exchanges leave it. Ranking against FTS5's bm25() is in search.test.ts.
 */

const exchange = (key: string, said: string) => ({ key, text: `User: ${said}\nAssistant: ok.`, startedAt: '2025-01-01T00:00:00Z' });

async function segments(store: Store): Promise<Array<{ id: number; docs: number }>> {
  return store.db.all<{ id: number; docs: number }>('SELECT id, docs FROM lexicon_segments ORDER BY id');
}

/** (row number, count) pairs as a segment stores them: row number deltas and counts, varints. */
function encode(pairs: ReadonlyArray<readonly [number, number]>): Buffer {
  const writer = new VarintWriter();
  let last = 0;
  for (const [n, count] of pairs) {
    writer.push(n - last).push(count);
    last = n;
  }
  return writer.finish();
}

describe('lexicon postings', () => {

  test('pairs of varints read back as written, one byte to seven, row numbers as running sums', () => {
    const pairs: Array<[number, number]> = [[0, 1], [127, 127], [128, 128], [16_383, 16_384], [2 ** 21, 3], [2 ** 31 + 5, 2 ** 35], [2 ** 48 - 1, 2]];
    const read: Array<[number, number]> = [];
    forEachPair(encode(pairs), (n, count) => read.push([n, count]));
    assert.deepEqual(read, pairs);
  });

  test("a search's gathering adds the live postings only, multi-byte varints included, and lists each row once", () => {
    const segmentOf = new Int32Array(20_000).fill(2);
    segmentOf[300] = 3; // indexed again since: its posting in segment 2 is dead
    const counts = new Float64Array(20_000);
    const holding = new Int32Array(20_000);
    let held = addLivePostings(encode([[5, 1], [300, 9], [16_500, 200]]), 2, segmentOf, counts, holding, 0);
    assert.deepEqual([...holding.subarray(0, held)], [5, 16_500]);
    assert.deepEqual([counts[5], counts[300], counts[16_500]], [1, 0, 200]);
    // a second chunk of the same term adds to the counts and lists only the rows not held yet
    segmentOf[7] = 3;
    held = addLivePostings(encode([[7, 2], [300, 4], [16_500, 1]]), 3, segmentOf, counts, holding, held);
    assert.deepEqual([...holding.subarray(0, held)], [5, 16_500, 7, 300]);
    assert.deepEqual([counts[5], counts[7], counts[300], counts[16_500]], [1, 2, 4, 200]);
  });
});

/**
 * indexTermCounts' document as a map (term -> occurrences) added into `counts`, and its length in words: what these
 * tests compare, for one text or several counted as one.
 */
function countIndexTerms(texts: string | readonly string[], counts: Map<string, number>): number {
  const doc = indexTermCounts(texts);
  const terms = doc.terms === '' ? [] : doc.terms.split(' ');
  for (const [i, term] of terms.entries()) counts.set(term, (counts.get(term) ?? 0) + doc.counts[i]!);
  return doc.words;
}

/** What the index's word scan once did with the pattern itself, a match and a term lookup per occurrence. */
function byPattern(text: string): [number, Array<[string, number]>] {
  const counts = new Map<string, number>();
  let words = 0;
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    if (word.length > MAX_TERM_LENGTH) {
      words++;
      continue;
    }
    const term = indexTerm(word);
    if (term === '') continue;
    words++;
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return [words, [...counts]];
}

describe('lexicon terms', () => {
  test('one function for text and query: stems, folded accents, apostrophes; overlong words counted, not indexed', () => {
    const counts = new Map<string, number>();
    const long = 'x'.repeat(MAX_TERM_LENGTH + 1);
    const words = countIndexTerms(searchableText(`Testing the tests: Código ${long} user's café`), counts);
    assert.equal(words, 7, 'every word counts for the length, the overlong one too');
    assert.deepEqual(Object.fromEntries(counts), { test: 2, the: 1, codigo: 1, user: 1, cafe: 1 });
    assert.deepEqual(queryTerms('tested códigos CAFÉ').map(indexTerm), ['test', 'codigo', 'cafe']);
    assert.equal(countIndexTerms('\u0301\u0302 ok', new Map()), 1, 'marks alone are no word');
  });

  test("an exchange's counts cross to the writing thread as one typed array, and arrive as they left", () => {
    const doc = indexTermCounts(['Testing the tests', 'café CAFÉ 数据库 x '.repeat(3)]);
    assert.ok(doc.counts instanceof Int32Array, 'one copy of its bytes, not a clone number by number');
    assert.deepEqual(Array.from(doc.counts), [2, 1, 6, 3, 3]);
    const crossed = structuredClone(doc);
    assert.deepEqual(crossed, doc);
    assert.deepEqual(Array.from(crossed.counts), Array.from(doc.counts));
  });

  test('the words are the runs of letters, digits and marks a Unicode pattern finds, in every script and plane', () => {
    const scanned = (text: string): [number, Array<[string, number]>] => {
      const counts = new Map<string, number>();
      return [countIndexTerms(text, counts), [...counts]];
    };
    // ASCII, accents precomposed and combining, Greek, Cyrillic, Arabic digits, Han and Devanagari, letters and
    // digits past the first plane (surrogate pairs), an emoji, a lone surrogate of each kind, punctuation
    const pieces = ['a', 'Z', '7', '_', ' ', '-', "'", 'é', 'e\u0301', '\u0301', '\u094d', 'Ω', 'ж', '٣', '数', 'क्ष', '\u{1d465}', '\u{20000}', '\u{1d7d9}', '😀', '\ud800', '\udc00', '…', '\n', 'Test', 'ING'];
    const fixed = ['', 'plain words, plain words.', 'Ünïcödé e\u0301clair \u{1d465}\u{1d466} 😀x x😀 \ud800a b\udc00', 'x'.repeat(MAX_TERM_LENGTH + 3) + 'é tail'];
    let seed = 41;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % pieces.length;
    const random = Array.from({ length: 400 }, () => Array.from({ length: 1 + (next() * 7) % 60 }, () => pieces[next()]!).join(''));
    for (const text of [...fixed, ...random]) assert.deepEqual(scanned(text), byPattern(text), JSON.stringify(text));
  });

  test('every character of the scripts written without spaces begins with a code unit the quick test looks for', () => {
    const missed: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (UNSPACED_CHAR.test(ch) && !MAYBE_UNSPACED.test(ch[0]!)) missed.push(cp.toString(16));
    }
    assert.deepEqual(missed, []);
    assert.match(searchableText('Redis缓存 and ไทย'), /^Redis 缓.* and  ไทย $/u, 'the runs still cut into words');
  });

  test("the thread's table of words counts the same past its bound, over many texts, as the pattern", () => {
    // 120,000 distinct words (the table starts over at 50,000), each text repeating some, some words long or not ASCII
    let seed = 3;
    const next = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const word = (k: number): string => {
      let w = '';
      for (let x = k; ; x = Math.floor(x / 26) - 1) {
        w += String.fromCharCode(97 + (x % 26));
        if (x < 26) break;
      }
      return k % 97 === 0 ? `${w}é${w}` : k % 89 === 0 ? `${w}${'z'.repeat(MAX_TERM_LENGTH)}` : k % 7 === 0 ? `${w}ing` : w;
    };
    for (let start = 0; start < 120_000; start += 1_000) {
      const text = Array.from({ length: 1_500 }, (_, i) => word(i < 1_000 ? start + i : start + next(1_000))).join(next(2) ? ' ' : '. ');
      const counts = new Map<string, number>();
      const got: [number, Array<[string, number]>] = [countIndexTerms(text, counts), [...counts]];
      if (start % 10_000 === 0 || !isDeepStrictEqual(got, byPattern(text))) assert.deepEqual(got, byPattern(text), `words from ${start}`);
    }
  });

  test("an exchange's fields counted together give what counting them one after another gives, terms in the same order", () => {
    let seed = 7;
    const next = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    // words shared between fields, words that stem alike (tests, testing), accents, an overlong word, marks alone
    const vocabulary = ['tests', 'testing', 'test', 'Código', 'codigo', 'café', 'cafe', 'x'.repeat(MAX_TERM_LENGTH + 1), '\u0301', '数据库', 'run', 'RUN', 'a1'];
    const field = (): string => Array.from({ length: next(30) }, () => vocabulary[next(vocabulary.length)]!).join(next(2) ? ' ' : ', ');
    for (let i = 0; i < 200; i++) {
      const fields = [field(), field(), field()];
      const alone = new Map<string, number>();
      const aloneWords = fields.reduce((sum, text) => sum + countIndexTerms(text, alone), 0);
      const together = new Map<string, number>();
      assert.deepEqual([countIndexTerms(fields, together), [...together]], [aloneWords, [...alone]], JSON.stringify(fields));
    }
  });
});

describe('lexicon segments', () => {
  test('each write is a segment; FANOUT of about one size merge into one', async () => {
    const fx = await openFixture([{ file: 's0.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('s0', 'alpha beta')] }]);
    try {
      const write = (i: number) => writeConversation(fx.store, fx.dir, { file: `s${i}.jsonl`, agent: 'codex', project: '/p', exchanges: [exchange(`s${i}`, `alpha gamma ${i}`)] }, fx.ids, fx.keys);
      for (let i = 1; i < FANOUT - 1; i++) await write(i);
      assert.deepEqual((await segments(fx.store)).map((s) => s.docs), Array(FANOUT - 1).fill(1), 'one segment per write');
      await write(FANOUT - 1);
      assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [FANOUT], `${FANOUT} one-exchange segments merged into one`);
      const rows = await fx.store.db.all<{ n: number; id: string }>('SELECT n, id FROM exchanges');
      const keyOf = new Map(rows.map((r) => [r.n, fx.keys.get(r.id)]));
      const hits = await new LexiconBm25(fx.reads).search(['alpha', 'gamma'], 10);
      assert.equal(hits.length, FANOUT, 'every exchange is still found');
      assert.equal(keyOf.get(hits.at(-1)!.n), 's0', 'the one without "gamma" last');
      assert.equal((await readLexiconDocs(fx.store.db)).count, FANOUT);
    } finally {
      await fx.store.close();
    }
  });

  test("a write pass holds the merges: a segment a write, the pass's merged into one at its end, then FANOUT of a size", async () => {
    const fx = await openFixture([{ file: 's0.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('s0', 'alpha beta')] }]);
    try {
      const write = (i: number) => writeConversation(fx.store, fx.dir, { file: `s${i}.jsonl`, agent: 'codex', project: '/p', exchanges: [exchange(`s${i}`, `alpha gamma ${i}`)] }, fx.ids, fx.keys);
      await fx.store.lexiconMergesHeld(async () => {
        for (let i = 1; i <= FANOUT + 1; i++) await write(i);
        assert.deepEqual((await segments(fx.store)).map((s) => s.docs), Array(FANOUT + 2).fill(1), 'nothing merged while the pass runs');
        const hits = await new LexiconBm25(fx.reads).search(['alpha'], 10);
        assert.equal(hits.length, FANOUT + 2, 'every exchange found while the pass runs');
      });
      assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [1, FANOUT + 1], "the pass's segments in one, the segment before it kept");
      const rows = await fx.store.db.all<{ n: number; id: string }>('SELECT n, id FROM exchanges');
      const keyOf = new Map(rows.map((r) => [r.n, fx.keys.get(r.id)]));
      const hits = await new LexiconBm25(fx.reads).search(['alpha', 'gamma'], 10);
      assert.equal(hits.length, FANOUT + 2, 'every exchange is still found');
      assert.equal(keyOf.get(hits.at(-1)!.n), 's0', 'the one without "gamma" last');
      // a pass of one write merges as a write alone does: FANOUT of a size
      for (let i = FANOUT + 2; i < 2 * FANOUT; i++) await write(i);
      await fx.store.lexiconMergesHeld(() => write(2 * FANOUT));
      assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [FANOUT + 1, FANOUT], 'the ones of one exchange merged');
      assert.deepEqual(await fx.store.check(), { ok: true, problems: [] });
    } finally {
      await fx.store.close();
    }
  });

  test("a write pass's merge takes the postings it wrote from memory, not the store, and writes the rows a merge reading them writes", async () => {
    // the same pass twice: remembering its segments' postings, and with nothing remembered (the store read back)
    const pass = async (remember: boolean): Promise<{ rows: unknown[]; readBack: number; segments: number[] }> => {
      const fx = await openFixture([]);
      const cap = WrittenPostings.MAX_TERMS;
      if (!remember) (WrittenPostings as unknown as { MAX_TERMS: number }).MAX_TERMS = 0;
      let readBack = 0;
      const all = fx.store.db.all.bind(fx.store.db);
      fx.store.db.all = ((sql: string, params?: Parameters<typeof all>[1]) => {
        if (sql.startsWith('SELECT term, postings FROM lexicon_postings')) readBack++;
        return all(sql, params);
      }) as typeof all;
      try {
        const write = (i: number, said: string) =>
          writeConversation(fx.store, fx.dir, { file: `s${i}.jsonl`, agent: 'codex', project: '/p', exchanges: [exchange(`s${i}`, said), exchange(`t${i}`, `${said} again`)] }, fx.ids, fx.keys);
        await fx.store.lexiconMergesHeld(async () => {
          for (let i = 0; i < 6; i++) await write(i, `alpha beta${i % 3} ${'gamma '.repeat(i + 1)}código ${i}`);
          // a file rewritten: its old exchanges' postings in an older segment are dead
          await write(2, 'alpha rewritten delta');
          for (let i = 6; i < 9; i++) await write(i, `alpha ${i} 数据库 beta${i % 2}`);
        });
        const rows = await fx.store.db.all('SELECT term, segment, df, hex(postings) AS p FROM lexicon_postings ORDER BY term, segment');
        return { rows, readBack, segments: (await segments(fx.store)).map((s) => s.docs) };
      } finally {
        (WrittenPostings as unknown as { MAX_TERMS: number }).MAX_TERMS = cap;
        await fx.store.close();
      }
    };
    const remembered = await pass(true);
    const read = await pass(false);
    assert.deepEqual(remembered.segments, [18], 'one segment of every live exchange');
    assert.equal(remembered.readBack, 0, 'no postings read back');
    assert.ok(read.readBack > 0, 'the other pass read them back');
    assert.deepEqual(remembered.rows, read.rows);
  });

  test('a pass remembers the segments of committed writes only, and nothing once it holds too many postings', () => {
    const bytes = Uint8Array.of(5, 1, 2, 3);
    const places = Int32Array.of(0, 2, 2, 2);
    const written = new WrittenPostings();
    written.record(1)!.add(['a', 'b'], places, bytes);
    written.committed();
    written.record(2)!.add(['c', 'd'], places, bytes);
    written.rolledBack(); // a rolled back segment's id is given again: what it wrote must not be taken for the next one's
    assert.equal(written.all([1, 2]), undefined);
    const [one] = written.all([1])!;
    assert.deepEqual(one!.written.map((p) => [p.terms, [...p.bytes]]), [[['a', 'b'], [5, 1, 2, 3]]]);
    written.forget([1]);
    assert.equal(written.all([1]), undefined, 'merged: forgotten');
    written.record(3)!.add(Array.from({ length: WrittenPostings.MAX_TERMS + 1 }, (_, i) => `t${i}`), new Int32Array(2 * (WrittenPostings.MAX_TERMS + 1)), bytes);
    written.committed();
    assert.equal(written.all([3]), undefined, 'too many to hold');
    assert.equal(written.record(4), undefined, 'nothing more remembered in this pass');
  });

  test(`a write pass's segments merge into one whenever ${HELD_SEGMENTS} are there, before its end`, async () => {
    const fx = await openFixture([]);
    try {
      const write = (i: number) => writeConversation(fx.store, fx.dir, { file: `s${i}.jsonl`, agent: 'codex', project: '/p', exchanges: [exchange(`s${i}`, `alpha ${i}`)] }, fx.ids, fx.keys);
      await fx.store.lexiconMergesHeld(async () => {
        for (let i = 0; i < HELD_SEGMENTS; i++) await write(i);
        assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [HELD_SEGMENTS]);
        for (let i = HELD_SEGMENTS; i < HELD_SEGMENTS + 2; i++) await write(i);
        assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [HELD_SEGMENTS, 1, 1], 'the merged one is not merged again with each new one');
      });
      assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [HELD_SEGMENTS, 2]);
      assert.equal((await new LexiconBm25(fx.reads).search(['alpha'], 100)).length, HELD_SEGMENTS + 2);
    } finally {
      await fx.store.close();
    }
  });

  test("a segment's terms and postings read back as written: text terms (digits, accents, Chinese), blobs of varints", async () => {
    const fx = await openFixture([]);
    try {
      // one segment of three documents; row numbers and counts past one byte, terms JSON could turn into numbers
      const docs = [
        { n: 5, doc: { words: 4, terms: '007 2024 codigo', counts: [1, 2, 1] } },
        { n: 300, doc: { words: 3, terms: '数据库 2024', counts: [2, 1] } },
        { n: 70_000, doc: { words: 200, terms: '007 codigo', counts: [199, 1] } },
      ];
      await addToLexicon(fx.store.db, docs);
      const rows = await fx.store.db.all<{ term: string; df: number; postings: Uint8Array; t: string; p: string }>(
        'SELECT term, df, postings, typeof(term) AS t, typeof(postings) AS p FROM lexicon_postings ORDER BY term',
      );
      const read = rows.map((r) => {
        const pairs: Array<[number, number]> = [];
        forEachPair(r.postings, (n, count) => pairs.push([n, count]));
        return [r.term, r.df, r.t, r.p, pairs];
      });
      assert.deepEqual(read, [
        ['007', 2, 'text', 'blob', [[5, 1], [70_000, 199]]],
        ['2024', 2, 'text', 'blob', [[5, 2], [300, 1]]],
        ['codigo', 2, 'text', 'blob', [[5, 1], [70_000, 1]]],
        ['数据库', 1, 'text', 'blob', [[300, 2]]],
      ]);
      const lengths = await readLexiconDocs(fx.store.db);
      assert.deepEqual([lengths.count, lengths.lengthOf[300], lengths.lengthOf[70_000]], [3, 3, 200]);
    } finally {
      await fx.store.close();
    }
  });

  test('a segment of more postings than one statement writes (1 MB) is written whole, in pieces', async () => {
    const fx = await openFixture([]);
    try {
      // 300,000 terms of one document at a row number of three varint bytes: ~1.2 MB of postings
      const terms = Array.from({ length: 300_000 }, (_, i) => `t${i.toString(36)}`);
      await addToLexicon(fx.store.db, [{ n: 70_000, doc: { words: terms.length, terms: terms.join(' '), counts: terms.map((_, i) => 1 + (i % 200)) } }]);
      const stored = await fx.store.db.get<{ rows: number; bytes: number }>('SELECT count(*) AS rows, sum(length(postings)) AS bytes FROM lexicon_postings');
      assert.equal(stored!.rows, terms.length);
      assert.ok(stored!.bytes > 1024 * 1024, `${stored!.bytes} bytes of postings: more than one piece`);
      for (const i of [0, 1, 149_999, 262_143, 262_144, 299_999]) {
        const r = await fx.store.db.get<{ df: number; postings: Uint8Array }>('SELECT df, postings FROM lexicon_postings WHERE term = ?', [terms[i]!]);
        const pairs: Array<[number, number]> = [];
        forEachPair(r!.postings, (n, count) => pairs.push([n, count]));
        assert.deepEqual([r!.df, pairs], [1, [[70_000, 1 + (i % 200)]]], terms[i]);
      }
    } finally {
      await fx.store.close();
    }
  });

  test('a deleted exchange is dead in its segment, and its row number given again lives in a newer one', async () => {
    const fx = await openFixture([
      { file: 'keep.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('k', 'harbour crane')] },
      { file: 'redo.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('old', 'zeppelin hangar')] },
    ]);
    try {
      const lexicon = new LexiconBm25(fx.reads);
      assert.equal((await lexicon.search(['zeppelin'], 10)).length, 1);
      const rowOf = async (key: string) => (await fx.store.db.get<{ n: number }>('SELECT n FROM exchanges WHERE id = ?', [[...fx.keys].find(([, k]) => k === key)![0]]))!.n;
      const oldRow = await rowOf('old');
      // rewritten: the old row is deleted; SQLite gives its row number (the largest) to the new exchange
      await writeConversation(fx.store, fx.dir, { file: 'redo.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('new', 'airship dock')] }, fx.ids, fx.keys);
      assert.equal(await rowOf('new'), oldRow, 'the row number is given again');
      // no storeChanged(): the new text's postings are in a segment the lengths read before do not know
      assert.deepEqual((await lexicon.search(['airship'], 10)).map((h) => h.n), [oldRow], 'the new text is found');
      assert.deepEqual(await lexicon.search(['zeppelin'], 10), [], 'the old text is not');
      assert.equal((await readLexiconDocs(fx.store.db)).count, 2);
      assert.deepEqual(await lexiconProblems(fx.store.db), []);
      // merges leave the dead posting out and forget the deletion
      const deleted = async () => (await fx.store.db.get<{ c: number }>('SELECT count(*) AS c FROM lexicon_deleted'))!.c;
      assert.equal(await deleted(), 1);
      for (let i = 0; i < 2 * FANOUT; i++) {
        await writeConversation(fx.store, fx.dir, { file: `m${i}.jsonl`, agent: 'codex', project: '/p', exchanges: [exchange(`m${i}`, `filler ${i}`)] }, fx.ids, fx.keys);
      }
      assert.equal(await deleted(), 0, 'no segment holds the deleted row any more');
      const zeppelin = await fx.store.db.get<{ c: number }>("SELECT count(*) AS c FROM lexicon_postings WHERE term = 'zeppelin'");
      assert.equal(zeppelin!.c, 0, 'its postings are gone');
      lexicon.storeChanged(await fx.reads.changeStamp());
      assert.deepEqual((await lexicon.search(['airship'], 10)).map((h) => h.n), [oldRow]);
    } finally {
      await fx.store.close();
    }
  });

  test("segments holding a dead document are named, and only theirs: a search checks their postings one by one", async () => {
    const fx = await openFixture([
      { file: 'keep.jsonl', agent: 'codex', project: '/p', exchanges: ['harbour crane zeppelin', 'tide', 'gull', 'quay'].map((said, i) => exchange(`k${i}`, said)) },
      { file: 'redo.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('old', 'zeppelin hangar')] },
    ]);
    try {
      const before = await readLexiconDocs(fx.store.db);
      assert.deepEqual([...before.partial], [], 'nothing dead yet');
      const lexicon = new LexiconBm25(fx.reads);
      const scores = async () => (await lexicon.search(['zeppelin', 'crane'], 10)).map((h) => h.score);
      const [keep, old] = await scores();
      await writeConversation(fx.store, fx.dir, { file: 'redo.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('new', 'airship dock')] }, fx.ids, fx.keys);
      const after = await readLexiconDocs(fx.store.db);
      const oldRow = (await fx.store.db.get<{ n: number }>('SELECT n FROM exchanges WHERE id = ?', [[...fx.keys].find(([, k]) => k === 'new')![0]]))!.n;
      assert.equal(after.segments.size, before.segments.size + 1);
      assert.deepEqual([...after.partial], [before.segmentOf[oldRow]], "the deleted exchange's segment, not the others");
      lexicon.storeChanged(await fx.reads.changeStamp());
      // the dead posting of "zeppelin" is not counted: one exchange of five holds it now, not two
      const [only, ...rest] = await scores();
      assert.deepEqual(rest, []);
      assert.ok(old! < keep!);
      assert.ok(only! > keep!, 'its IDF rose as its document frequency fell');
    } finally {
      await fx.store.close();
    }
  });

  test('check reports exchanges the lexicon lacks, and repair builds it again', async () => {
    const fx = await openFixture([{ file: 'a.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('a', 'alpha'), exchange('b', 'beta')] }]);
    try {
      await fx.store.db.run('DELETE FROM lexicon_segments');
      assert.deepEqual(await lexiconProblems(fx.store.db), ['2 exchanges are not in the lexicon (BM25\'s index)']);
      await addToLexicon(fx.store.db, [{ n: 999, doc: termCounts({ prompt: 'ghost', said: 'ghost', tools: '' }) }]);
      // beyond the store's last exchange (row 2): the lengths' arrays are sized by a walk of the segments, the orphan read
      const docs = await readLexiconDocs(fx.store.db);
      assert.deepEqual([docs.count, docs.segmentOf.length, docs.segmentOf[999]! > 0], [1, 1000, true]);
      assert.ok((await lexiconProblems(fx.store.db)).includes('1 lexicon documents have no exchange'));
      const report = await fx.store.check();
      assert.ok(report.problems.some((p) => /not in the lexicon/.test(p)));
      await fx.store.repair();
      assert.deepEqual(await lexiconProblems(fx.store.db), []);
      assert.equal((await new LexiconBm25(fx.reads).search(['beta'], 10)).length, 1);
    } finally {
      await fx.store.close();
    }
  });
});

describe('lexicon queries', () => {
  test('a Korean word without its particle matches as a prefix; Chinese words as the index cut them', async () => {
    const fx = await openFixture([
      {
        file: 'k.jsonl',
        agent: 'codex',
        project: '/p',
        exchanges: [exchange('k1', '데이터베이스를 백업했다'), exchange('k2', '데이터베이스에서 읽었다'), exchange('z1', '我们修复了数据库连接池的问题')],
      },
    ]);
    try {
      const lexicon = new LexiconBm25(fx.reads);
      const rows = await fx.store.db.all<{ n: number; id: string }>('SELECT n, id FROM exchanges');
      const keyOf = new Map(rows.map((r) => [r.n, fx.keys.get(r.id)]));
      const found = async (text: string) => new Set((await lexicon.search(queryTerms(text), 10)).map((h) => keyOf.get(h.n)));
      assert.deepEqual(await found('데이터베이스가'), new Set(['k1', 'k2']));
      assert.deepEqual(await found('数据库连接'), new Set(['z1']));
    } finally {
      await fx.store.close();
    }
  });
});

describe('lexicon merges', () => {
  test('a merge goes a range of terms at a time and writes what one pass over all the terms would', async () => {
    const fx = await openFixture([{ file: 'a.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('a', 'alpha')] }]);
    try {
      const db = fx.store.db;
      await db.run('DELETE FROM lexicon_postings');
      await db.run('DELETE FROM lexicon_segments');
      // terms of every script, so SQLite's order of terms (bytes) and JavaScript's (UTF-16 units) differ: '\uE000' < '😀' in UTF-8 only
      const vocabulary = [...'abcdefghijklmnopqrst'].map((c) => `${c}term`).concat(['é', '\uE000', '😀x', 'ﬀ', 'Ω']);
      const doc = (n: number) => {
        const terms = vocabulary.filter((_, i) => (n + i) % 3 !== 0);
        return { n, doc: { words: terms.length + n, terms: terms.join(' '), counts: terms.map((_, i) => 1 + ((n * i) % 5)) } };
      };
      // three segments of three sizes (three levels: none merges on its own), then one row of the middle one deleted
      const sizes = [1, FANOUT, FANOUT * FANOUT];
      let n = 100;
      const docs: Array<ReturnType<typeof doc>> = [];
      for (const size of sizes) {
        const segment = Array.from({ length: size }, () => doc(n++));
        docs.push(...segment);
        await addToLexicon(db, segment);
      }
      const ids = (await segments(fx.store)).map((s) => s.id);
      assert.equal(ids.length, 3);
      const dead = docs[1]!.n;
      await db.run('INSERT INTO lexicon_deleted(n, upto) VALUES (?, ?)', [dead, ids[1]!]);

      const written: number[] = [];
      const oldRowsBeside: string[] = [];
      const run = db.run.bind(db);
      // each postings statement binds its rows' terms as a JSON array (writePostings)
      db.run = (async (sql: string, params?: readonly unknown[]) => {
        if (sql.includes('INSERT INTO lexicon_postings')) {
          const terms = JSON.parse(params![1] as string) as Array<[string]>;
          written.push(terms.length);
          const old = await db.all<{ term: string }>(
            'SELECT term FROM lexicon_postings WHERE segment IN (SELECT value FROM json_each(?)) AND term IN (SELECT value ->> 0 FROM json_each(?))',
            [JSON.stringify(ids), params![1] as string],
          );
          oldRowsBeside.push(...old.map((r) => r.term));
        }
        return run(sql, params as never);
      }) as typeof db.run;
      await mergeSegments(db, ids, undefined, 2);

      assert.deepEqual((await segments(fx.store)).map((s) => s.docs), [docs.length - 1], 'one segment, without the deleted row');
      assert.ok(written.length > 3 && written.every((rows) => rows <= 3 * 2), `written in ranges of at most a page per segment: ${written.join(', ')}`);
      // a range's old rows are gone before its merged rows are written into their pages: beside them, then deleted,
      // they left the table's pages a third full
      assert.deepEqual(oldRowsBeside, [], 'no merged term written beside its old rows');
      const expected = new Map<string, Array<[number, number]>>();
      for (const d of docs) {
        if (d.n === dead) continue;
        d.doc.terms.split(' ').forEach((t, i) => expected.set(t, [...(expected.get(t) ?? []), [d.n, d.doc.counts[i]!]]));
      }
      const stored = new Map<string, Array<[number, number]>>();
      for (const r of await db.all<{ term: string; df: number; postings: Uint8Array }>('SELECT term, df, postings FROM lexicon_postings')) {
        assert.ok(!stored.has(r.term), `${r.term} in one row`);
        const pairs: Array<[number, number]> = [];
        forEachPair(r.postings, (row, count) => pairs.push([row, count]));
        assert.equal(r.df, pairs.length);
        stored.set(r.term, pairs);
      }
      assert.deepEqual(stored, expected);
    } finally {
      await fx.store.close();
    }
  });

  test("a merge with nothing deleted writes each term's postings byte for byte as its pairs encoded again, in row order", async () => {
    const fx = await openFixture([{ file: 'a.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('a', 'alpha')] }]);
    try {
      const db = fx.store.db;
      await db.run('DELETE FROM lexicon_postings');
      await db.run('DELETE FROM lexicon_segments');
      // `after` and `both` are in segments whose row numbers follow one another (their stored chunks are joined);
      // `back` also in a segment of earlier row numbers than the one before it (its pairs are sorted again)
      const doc = (n: number, terms: string) => ({ n, doc: { words: 9, terms, counts: terms.split(' ').map((_, i) => 1 + ((n + i) % 300)) } });
      await addToLexicon(db, [doc(3, 'after both'), doc(200, 'both')]);
      await addToLexicon(db, [doc(300, 'after back'), doc(70_000, 'both back')]);
      await addToLexicon(db, [doc(250, 'back'), doc(80_000, 'after both')]);
      const ids = (await segments(fx.store)).map((s) => s.id);
      const expected = new Map<string, Array<[number, number]>>();
      for (const r of await db.all<{ term: string; postings: Uint8Array }>('SELECT term, postings FROM lexicon_postings')) {
        const pairs = expected.get(r.term) ?? [];
        forEachPair(r.postings, (n, count) => pairs.push([n, count]));
        expected.set(r.term, pairs);
      }
      await mergeSegments(db, ids);
      const stored = await db.all<{ term: string; df: number; postings: Uint8Array }>('SELECT term, df, postings FROM lexicon_postings ORDER BY term');
      assert.deepEqual(
        stored.map((r) => [r.term, r.df, Buffer.from(r.postings).toString('hex')]),
        [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([term, pairs]) => [term, pairs.length, encode([...pairs].sort((a, b) => a[0] - b[0])).toString('hex')]),
      );
    } finally {
      await fx.store.close();
    }
  });

  test('a merge of segments whose exchanges are all deleted leaves no segment and no posting of them', async () => {
    const fx = await openFixture([{ file: 'a.jsonl', agent: 'codex', project: '/p', exchanges: [exchange('a', 'alpha')] }]);
    try {
      const db = fx.store.db;
      await db.run('DELETE FROM lexicon_postings');
      await db.run('DELETE FROM lexicon_segments');
      const doc = (n: number) => ({ n, doc: { words: 2, terms: `alpha w${n}`, counts: [1, 1] } });
      await addToLexicon(db, [doc(500), doc(501)]);
      await addToLexicon(db, [doc(502)]);
      const ids = (await segments(fx.store)).map((s) => s.id);
      assert.equal(ids.length, 2);
      for (const [n, upto] of [[500, ids[0]!], [501, ids[0]!], [502, ids[1]!]]) await db.run('INSERT INTO lexicon_deleted(n, upto) VALUES (?, ?)', [n, upto]);
      await mergeSegments(db, ids);
      assert.deepEqual(await segments(fx.store), []);
      assert.equal((await db.get<{ c: number }>('SELECT count(*) AS c FROM lexicon_postings'))!.c, 0);
      assert.equal((await db.get<{ c: number }>('SELECT count(*) AS c FROM lexicon_deleted'))!.c, 0, 'the deletions are forgotten with them');
    } finally {
      await fx.store.close();
    }
  });
});
