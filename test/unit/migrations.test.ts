import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { candidatePlaces } from '../../src/core/store/continuations';
import { Db } from '../../src/core/store/db';
import { indexText } from '../../src/core/indexText';
import { indexExchanges } from '../../src/core/store/exchangeFts';
import { indexedPrompt } from '../../src/core/store/contentlessFts';
import { insertThreeColumnRows } from '../../src/core/store/legacyFts';
import { addToLexicon, clearLexicon, forEachPair, readLexiconDocs, readPostings } from '../../src/core/store/lexicon';
import { migrate, type MigrationProgress, SCHEMA_VERSION, SCHEMA_VERSIONS } from '../../src/core/store/schema';
import { tempDir } from './helpers';

/**
 * Every schema version a release has written is opened by this one: the store is written as that version
 * left it (its migrations only, rows in its columns), then opened through the front door, which migrates it
 * forward. Nothing written may be lost, and every read model must work on it.
 */
async function writeStoreAt(version: number, file: string): Promise<void> {
  const db = await Db.open(file);
  try {
    await db.exec('PRAGMA foreign_keys = ON');
    assert.equal(await migrate(db, version), 0);
    assert.equal((await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version, version);
    // version 1: sources, a conversation, two exchanges (one without a date of its own), files, skips, drops
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (1, '/t/s.jsonl', 'claude-code', 900, 5, 900, 9)`);
    await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, project, title, started_at, line)
      VALUES ('c1', 1, 'claude-code', 'sess-1', '/home/dev/shop', 'Checkout', '2026-01-02T03:04:05Z', 1)`);
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start,
        started_at, ended_at, prompt, verbatim, verbatim_tokens)
      VALUES (1, 'ex-one-0001', 'c1', 1, 0, 0, 1, 1, 4, 0, '2026-01-02T03:04:05Z', '2026-01-02T03:05:00Z',
        'Why does the coupon total round wrong?', 'User: Why does the coupon total round wrong?\n\nAssistant: The quokka rounding rule ran per line.', 20),
      (2, 'ex-two-0002', 'c1', 1, 0, 2, 3, 5, 8, 450, NULL, NULL,
        'Fix it in src/cart.ts', 'User: Fix it in src/cart.ts\n\nAssistant: Rounded once at the end of src/cart.ts.', 18)`);
    await db.run(`INSERT INTO files_touched(exchange_n, path, how, lines) VALUES (2, 'src/cart.ts', 'edit', '[{"start":3,"end":7}]')`);
    await db.run(`INSERT INTO skipped_lines(source_id, line, reason) VALUES (1, 9, 'malformed-json')`);
    await db.run(`INSERT INTO dropped_exchanges(source_id, byte_start, line_start, line_end, prompts) VALUES (1, 800, 9, 9, 1)`);
    if (version >= 5) {
      // from version 5 on the writer fills the verbatim full-text index itself (no trigger does)
      await indexAsWrittenAt(db, await db.all<{ n: number; prompt: string; verbatim: string }>('SELECT n, prompt, verbatim FROM exchanges'), version);
    }
    if (version >= 2) {
      await db.run(`INSERT INTO distilled(exchange_n, core, context, distiller, model, prompt_version, content_hash, tokens, created_at)
        VALUES (1, 'Coupon totals rounded per line', 'quokka rounding rule', 'extractive', NULL, 'offline-1', 'h1', 9, 1)`);
      await db.run(`INSERT INTO distilled_fts(rowid, core, context, files, rooms) VALUES (1, 'Coupon totals rounded per line', 'quokka rounding rule', '', 'Rounding rounding')`);
      // from version 30 the distilled full-text table is contentless: its writer keeps the facets it indexed beside it
      if (version >= 30) await db.run(`INSERT INTO distilled_facets(exchange_n, files, rooms) VALUES (1, '', 'Rounding rounding')`);
      await db.run(`INSERT INTO rooms(id, type, key, label, project) VALUES ('r1', 'concept', 'rounding', 'Rounding', '/home/dev/shop')`);
      await db.run(`INSERT INTO exchange_rooms(exchange_n, room_id, relevance) VALUES (1, 'r1', 0.9)`);
      await db.run(`INSERT INTO distill_cache(content_hash, prompt_version, model, result, created_at) VALUES ('h9', 'v1', 'm', '{}', 1)`);
      await db.run(`INSERT INTO distill_failures(exchange_n, distiller, attempts, last_error, next_attempt_at) VALUES (2, 'anthropic', 1, 'rate limited', 0)`);
    }
    if (version >= 3) {
      await db.run(`INSERT INTO embedding_model(id, model_id, dimension, created_at) VALUES (1, 'test-model', 4, 1)`);
    }
  } finally {
    await db.close();
  }
}

/** The verbatim indexes as the writer of versions 5 to 13 filled them: three FTS columns, and the lexicon from v11; from v14, the prompt column alone. */
async function indexAsWrittenAt(db: Db, rows: ReadonlyArray<{ n: number; prompt: string; verbatim: string }>, version: number): Promise<void> {
  if (version >= 14) return indexExchanges(db, rows);
  await insertThreeColumnRows(db, rows);
  if (version >= 11) await addToLexicon(db, rows.map((r) => ({ n: r.n, doc: indexText(r.prompt, r.verbatim).doc })));
}

for (const version of SCHEMA_VERSIONS.filter((v) => v < SCHEMA_VERSION)) {
  test(`a store written at schema version ${version} opens at ${SCHEMA_VERSION} with its data intact`, async () => {
    const file = path.join(tempDir(), `v${version}.sqlite`);
    await writeStoreAt(version, file);
    const memory = await Memory.open(file);
    try {
      const stats = await memory.stats();
      assert.deepEqual(
        [stats.sources, stats.conversations, stats.exchanges, stats.skippedLines, stats.droppedExchanges, stats.verbatimTokens],
        [1, 1, 2, { 'malformed-json': 1 }, 1, 38],
      );
      const one = await memory.exchange('ex-one-0001');
      assert.equal(one?.verbatim, 'User: Why does the coupon total round wrong?\n\nAssistant: The quokka rounding rule ran per line.');
      assert.equal(one?.title, 'Checkout');
      assert.deepEqual((await memory.exchange('ex-two-0002'))?.filesTouched, [{ path: 'src/cart.ts', how: 'edit', lines: [{ start: 3, end: 7 }] }]);
      if (version < 4) {
        // from version 4 on the parser dates such exchanges itself; before, the migration does
        assert.equal((await memory.exchange('ex-two-0002'))?.startedAt, '2026-01-02T03:04:05Z', 'an undated exchange takes its conversation start');
      }
      assert.deepEqual((await memory.fileHistory('src/cart.ts')).map((e) => e.exchangeId), ['ex-two-0002']);
      // the verbatim full-text index came along
      assert.deepEqual((await memory.search({ text: 'quokka', mode: 'verbatim/bm25' })).hits.map((h) => h.exchangeId), ['ex-one-0001']);
      if (version >= 2) {
        const d = await memory.distilled('ex-one-0001');
        assert.equal(d?.exchangeCore, 'Coupon totals rounded per line');
        // a one-exchange room is kept (as a facet of the exchange, below the rooms tree's minimum size)
        assert.deepEqual([...d!.rooms, ...(d!.facets ?? [])].map((r) => r.label), ['Rounding']);
        assert.deepEqual((await memory.roomExchanges('r1')).map((e) => e.exchangeId), ['ex-one-0001']);
        assert.deepEqual((await memory.search({ text: 'quokka', mode: 'core/bm25' })).hits.map((h) => h.exchangeId), ['ex-one-0001']);
        assert.equal((await memory.compression()).failures, 1);
      }
      assert.deepEqual((await memory.check()).problems, []);
    } finally {
      await memory.close();
    }
  });
}

// v14 follows the room families (v13) on main; on the indexing branch it was written as v13 beside them
for (const from of [12, 13]) {
  test(`version 14 keeps the prompt column of the verbatim full-text table alone, its text as it was (from ${from})`, async () => {
    const file = path.join(tempDir(), `v${from}.sqlite`);
    await writeStoreAt(from, file);
    const before = await Db.open(file);
    const prompts = await before.all<{ n: number; prompt: string }>('SELECT rowid AS n, prompt FROM exchanges_fts ORDER BY rowid');
    await before.close();
    await (await Memory.open(file)).close();
    const db = await Db.open(file);
    try {
      assert.deepEqual((await db.all<{ name: string }>("SELECT name FROM pragma_table_info('exchanges_fts')")).map((c) => c.name), ['prompt']);
      // the room families' column (v13) is there whichever version the store came from
      assert.ok((await db.all<{ name: string }>("SELECT name FROM pragma_table_info('rooms')")).some((c) => c.name === 'family'));
      // the text as indexed, kept by the exchanges and exchanges_fts_text since v30 (contentlessFts.ts)
      assert.deepEqual(await db.all(`SELECT e.n, ${indexedPrompt('e')} AS prompt FROM exchanges e WHERE e.n IN (SELECT rowid FROM exchanges_fts) ORDER BY e.n`), prompts);
      assert.deepEqual(await db.all(`SELECT rowid AS n FROM exchanges_fts WHERE exchanges_fts MATCH 'prompt : "coupon total"'`), [{ n: 1 }]);
      // an exchange deleted leaves the table with it
      await db.run('DELETE FROM exchanges WHERE n = 1');
      assert.deepEqual(await db.all('SELECT rowid AS n FROM exchanges_fts'), [{ n: 2 }]);
    } finally {
      await db.close();
    }
  });
}

test('version 15 gives the distilled objects a terms column, searched in all-facets, and refills the distilled full-text index', async () => {
  const file = path.join(tempDir(), 'v14.sqlite');
  await writeStoreAt(14, file);
  const memory = await Memory.open(file);
  try {
    // the object written before keeps its facets (core, context, rooms), with no terms until it is distilled again
    assert.deepEqual((await memory.search({ text: 'quokka', mode: 'all-facets/bm25' })).hits.map((h) => h.exchangeId), ['ex-one-0001']);
    assert.deepEqual((await memory.search({ text: 'rounding', mode: 'core+rooms/bm25' })).hits.map((h) => h.exchangeId), ['ex-one-0001']);
  } finally {
    await memory.close();
  }
  const db = await Db.open(file);
  try {
    assert.deepEqual((await db.all<{ name: string }>("SELECT name FROM pragma_table_info('distilled_fts')")).map((c) => c.name), ['core', 'context', 'files', 'rooms', 'terms']);
    assert.deepEqual(await db.all('SELECT exchange_n AS n, terms FROM distilled'), [{ n: 1, terms: '' }]);
    // a distilled row deleted still takes its full-text row along (the trigger reads the new table)
    await db.run('DELETE FROM distilled WHERE exchange_n = 1');
    assert.deepEqual(await db.all('SELECT rowid FROM distilled_fts'), []);
  } finally {
    await db.close();
  }
});

test('version 17 indexes the distilled objects written before in the core layer\'s own full-text index, kept in step from then on', async () => {
  const file = path.join(tempDir(), 'v15.sqlite');
  await writeStoreAt(15, file);
  await (await Memory.open(file)).close();
  const db = await Db.open(file);
  try {
    const core = (word: string) => db.all('SELECT rowid FROM distilled_core_fts WHERE distilled_core_fts MATCH ?', [`"${word}"`]);
    assert.deepEqual(await core('quokka'), [{ rowid: 1 }], 'the detail of the object written at v15');
    assert.deepEqual(await core('rounding'), [{ rowid: 1 }]);
    await db.run('DELETE FROM distilled WHERE exchange_n = 1');
    assert.deepEqual(await core('quokka'), []);
    assert.deepEqual(await db.all('SELECT id FROM distilled_core_fts_docsize'), []);
  } finally {
    await db.close();
  }
});

test('a store from a newer schema is refused with a message that says what to do', async () => {
  const file = path.join(tempDir(), 'new.sqlite');
  const db = await Db.open(file);
  await db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  await db.close();
  await assert.rejects(Memory.open(file), (err: Error & { code?: string }) => err.code === 'store-too-new' && /Update the extension/.test(err.message));
});

test("schema 9 marks the Claude Code files holding a subagent's cache warm-up to be read again, and only those", async () => {
  const file = path.join(tempDir(), 'v8-warmup.sqlite');
  await writeStoreAt(8, file);
  const db = await Db.open(file);
  try {
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (2, '/t/agent-a3b7.jsonl', 'claude-code', 700, 5, 700, 3)`);
    await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c2', 2, 'claude-code', 'sess-1/agent-a3b7', 1)`);
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (3, 'ex-warm-0003', 'c2', 2, 0, 0, 1, 1, 2, 0, 'Warmup', 'User: Warmup\n\nAssistant: I''m Claude Code, ready to help.')`);
    assert.equal(await migrate(db), 8);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    assert.deepEqual(sizes, [{ path: '/t/s.jsonl', size: 900 }, { path: '/t/agent-a3b7.jsonl', size: -1 }]);
  } finally {
    await db.close();
  }
});

test('schema 11 builds the lexicon from the full-text index, in segments, reporting how far it has come', async () => {
  const file = path.join(tempDir(), 'v10-lexicon.sqlite');
  await writeStoreAt(10, file);
  const db = await Db.open(file);
  try {
    // 4,500 more exchanges: three segments of the build (2,000 each), read 500 at a time, the last page partial
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start,
        started_at, ended_at, prompt, verbatim, verbatim_tokens)
      WITH RECURSIVE k(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM k WHERE i < 4502)
      SELECT i, 'ex-bulk-' || i, 'c1', 1, 0, 2 * i, 2 * i + 1, 10 * i, 10 * i + 9, 1000 * i, NULL, NULL,
        'note ' || i, 'User: note ' || i || char(10) || char(10) || 'Assistant: word' || i, 4 FROM k`);
    await indexAsWrittenAt(db, await db.all<{ n: number; prompt: string; verbatim: string }>('SELECT n, prompt, verbatim FROM exchanges WHERE n > 2'), 10);
  } finally {
    await db.close();
  }
  const reports: MigrationProgress[] = [];
  const memory = await Memory.open(file, { onMigration: (p) => reports.push(p) });
  try {
    const v11 = reports.filter((r) => r.version === 11);
    assert.deepEqual(v11.map((r) => [r.version, r.done, r.total]), [[11, 0, 4502], [11, 2000, 4502], [11, 4000, 4502], [11, 4502, 4502]]);
    assert.ok(v11.every((r) => r.step === 'Building the word index'));
    // schema 19 reads every exchange for Cyrillic text (none here), reporting the same way
    assert.deepEqual(reports.filter((r) => r.version === 19).map((r) => [r.done, r.step]).at(-1), [4502, 'Updating the word index']);
    for (const [word, id] of [['word3', 'ex-bulk-3'], ['word2501', 'ex-bulk-2501'], ['word4502', 'ex-bulk-4502'], ['quokka', 'ex-one-0001']]) {
      assert.deepEqual((await memory.search({ text: word!, mode: 'verbatim/bm25' })).hits.map((h) => h.exchangeId), [id], word);
    }
    assert.deepEqual((await memory.check()).problems, []);
  } finally {
    await memory.close();
  }
});

test('schema 12 marks the exchanges no human spoke in (an empty or blank prompt), and their requests are found', async () => {
  const file = path.join(tempDir(), 'v11-asked.sqlite');
  await writeStoreAt(11, file);
  const db = await Db.open(file);
  try {
    // after exchange 2 of c1: a continuation (no prompt) and one whose prompt is whitespace alone
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (3, 'ex-cont-0003', 'c1', 1, 0, 4, 5, 9, 10, 600, '', 'Assistant: carried on.'),
             (4, 'ex-blank-0004', 'c1', 1, 0, 6, 7, 11, 12, 700, ' ' || char(10) || char(9), 'Assistant: carried on again.')`);
    assert.equal(await migrate(db), 11);
    assert.deepEqual(await db.all('SELECT n, asked FROM exchanges ORDER BY n'), [
      { n: 1, asked: 1 }, { n: 2, asked: 1 }, { n: 3, asked: 0 }, { n: 4, asked: 0 },
    ]);
    const places = await candidatePlaces(db, [3, 4, 1, 2]);
    assert.deepEqual(places.filter((p) => p.request !== undefined).map((p) => [p.n, p.request]), [[3, 2], [4, 2]], 'each continues exchange 2, the last one asked before it');
    assert.deepEqual((await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'exchanges' AND sql IS NOT NULL ORDER BY name")).map((r) => r.name),
      ['exchanges_order', 'exchanges_place', 'exchanges_source', 'exchanges_time', 'exchanges_uncounted']);
  } finally {
    await db.close();
  }
});

test('schema 18 marks the retries ("@agent Try Again") as continuations of the request before them', async () => {
  const file = path.join(tempDir(), 'v17-retry.sqlite');
  await writeStoreAt(17, file);
  const db = await Db.open(file);
  try {
    // after exchange 2 of c1: a retry (as SpecStory saves the button's prompt, with its line end), and a request that names the button
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (3, 'ex-retry-0003', 'c1', 1, 0, 4, 5, 9, 10, 600, '@agent Try Again' || char(10), 'User: @agent Try Again' || char(10) || 'Assistant: rounded once again.'),
             (4, 'ex-asks-0004', 'c1', 1, 0, 6, 7, 11, 12, 700, 'what does @agent Try Again do?', 'User: what does @agent Try Again do?' || char(10) || 'Assistant: it sends the request again.')`);
    assert.equal(await migrate(db), 17);
    assert.deepEqual(await db.all('SELECT n, asked FROM exchanges ORDER BY n'), [
      { n: 1, asked: 1 }, { n: 2, asked: 1 }, { n: 3, asked: 0 }, { n: 4, asked: 1 },
    ]);
    const places = await candidatePlaces(db, [3, 4, 1, 2]);
    assert.deepEqual(places.filter((p) => p.request !== undefined).map((p) => [p.n, p.request]), [[3, 2]], 'the retry continues exchange 2');
  } finally {
    await db.close();
  }
});

test('schema 19 indexes again the Cyrillic terms of the exchanges with Cyrillic text, and nothing else: their words found by their stem, the lexicon a full rebuild\'s', async () => {
  const file = path.join(tempDir(), 'v18-cyrillic.sqlite');
  await writeStoreAt(18, file);
  const db = await Db.open(file);
  try {
    const verbatim = 'User: сам запроси доступ к файлам\n\nAssistant: Пришлите InputSimulator.cs.';
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (3, 'ex-ru-0003', 'c1', 1, 0, 4, 5, 9, 10, 600, 'сам запроси доступ к файлам', ?)`, [verbatim]);
    // a word of a Cyrillic mark alone (a titlo): a term now, no word at all before
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (4, 'ex-titlo-0004', 'c1', 1, 0, 6, 7, 11, 12, 700, 'titlo', 'User: titlo' || char(10) || 'Assistant: ' || char(1155) || ' mark')`);
    // as version 18 wrote them: each Cyrillic word a term as it stands (the prompt counted in two fields), the mark none
    await addToLexicon(db, [
      { n: 3, doc: { words: 13, terms: 'сам запроси доступ к файлам пришлите inputsimul cs', counts: [2, 2, 2, 2, 2, 1, 1, 1] } },
      { n: 4, doc: { words: 3, terms: 'titlo mark', counts: [2, 1] } },
    ]);
    const written = (): Promise<unknown[]> =>
      db.all("SELECT term, segment, df, hex(postings) AS postings FROM lexicon_postings WHERE term < 'Ѐ' OR term >= '԰' ORDER BY term, segment");
    const segments = (): Promise<unknown[]> => db.all('SELECT id, docs, hex(lengths) AS lengths FROM lexicon_segments ORDER BY id');
    const [latinBefore, segmentsBefore] = [await written(), await segments()];
    assert.equal(await migrate(db), 18);
    // no term but the Cyrillic ones is written again, and no segment added: the Latin-only exchanges are not indexed again
    assert.deepEqual(await written(), latinBefore);
    assert.deepEqual((await segments()).map((r) => (r as { id: number }).id), segmentsBefore.map((r) => (r as { id: number }).id));
    const after = await readLexiconDocs(db);
    const migrated = await livePostings(db);
    assert.deepEqual([...migrated.keys()].filter((t) => /[а-я]/.test(t)), ['доступ', 'запрос', 'к', 'пришл', 'сам', 'файл']);
    assert.deepEqual(migrated.get('файл'), [[3, 2]], 'in the prompt and in what the user said');
    assert.deepEqual(migrated.get('quokka'), [[1, 1]], 'English terms as before');
    assert.deepEqual(migrated.get(String.fromCharCode(1155)), [[4, 1]]);
    assert.equal(after.lengthOf[4], 4, 'the mark is a word now');
    // a full rebuild's lexicon holds the same live postings and lengths
    await clearLexicon(db);
    const all = await db.all<{ n: number; prompt: string; verbatim: string }>('SELECT n, prompt, verbatim FROM exchanges');
    await addToLexicon(db, all.map((r) => ({ n: r.n, doc: indexText(r.prompt, r.verbatim).doc })));
    const rebuilt = await readLexiconDocs(db);
    assert.deepEqual(migrated, await livePostings(db));
    assert.deepEqual([after.count, after.totalLength, [...after.lengthOf]], [rebuilt.count, rebuilt.totalLength, [...rebuilt.lengthOf]]);
  } finally {
    await db.close();
  }
});

/** Each term's live (row number, count) pairs, by row number: what BM25 reads of the lexicon, whatever its segments. */
async function livePostings(db: Db): Promise<Map<string, number[][]>> {
  const docs = await readLexiconDocs(db);
  const terms = (await db.all<{ term: string }>('SELECT DISTINCT term FROM lexicon_postings')).map((r) => r.term);
  const live = new Map<string, number[][]>();
  for (const chunk of await readPostings(db, terms)) {
    forEachPair(chunk.postings, (n, count) => {
      if (docs.segmentOf[n] === chunk.segment) live.set(chunk.term, [...(live.get(chunk.term) ?? []), [n, count]]);
    });
  }
  for (const pairs of live.values()) pairs.sort((a, b) => a[0]! - b[0]!);
  return new Map([...live].sort(([a], [b]) => (a < b ? -1 : 1)));
}

test('schema 20 marks the sources with an error output cut short to be read again, and only those', async () => {
  const file = path.join(tempDir(), 'v19-errors.sqlite');
  await writeStoreAt(19, file);
  const db = await Db.open(file);
  try {
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (2, '/t/aider.md', 'aider', 700, 5, 700, 30), (3, '/t/other.md', 'aider', 800, 5, 800, 30)`);
    await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c2', 2, 'aider', 's2', 1), ('c3', 3, 'aider', 's3', 1)`);
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (3, 'ex-err-0003', 'c2', 2, 0, 0, 1, 1, 9, 0, 'hello', 'User: hello' || char(10) || '[error] Retrying in 0.2 seconds…… [900 more chars]'),
             (4, 'ex-res-0004', 'c3', 3, 0, 0, 1, 1, 9, 0, 'hello', 'User: hello' || char(10) || '[error] boom' || char(10) || '[result] a short file')`);
    assert.equal(await migrate(db), 19);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    assert.deepEqual(sizes, [{ path: '/t/s.jsonl', size: 900 }, { path: '/t/aider.md', size: -1 }, { path: '/t/other.md', size: 800 }]);
  } finally {
    await db.close();
  }
});

test('schema 10 marks the SpecStory files to be read again, and only those', async () => {
  const file = path.join(tempDir(), 'v9-specstory.sqlite');
  await writeStoreAt(9, file);
  const db = await Db.open(file);
  try {
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (2, '/w/.specstory/history/a.md', 'specstory', 700, 5, 700, 30)`);
    assert.equal(await migrate(db), 9);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    assert.deepEqual(sizes, [{ path: '/t/s.jsonl', size: 900 }, { path: '/w/.specstory/history/a.md', size: -1 }]);
  } finally {
    await db.close();
  }
});

test('schema 21 marks the Claude Code transcripts holding a slash command to be read again, and only those', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'v20-commands.sqlite');
  await writeStoreAt(20, file);
  const fixtures = path.resolve(__dirname, '../../../test/fixtures/claude-code');
  const withCommand = path.join(dir, 'with-command.jsonl');
  // The wrapper straddles two 1 MB reads: the search keeps the end of the chunk before.
  const straddling = path.join(dir, 'straddling.jsonl');
  const line = readFileSync(path.join(fixtures, 'slash-commands.jsonl'), 'utf8').split('\n')[5]!;
  const codexWithCommand = path.join(dir, 'rollout.jsonl');
  writeFileSync(withCommand, readFileSync(path.join(fixtures, 'slash-commands.jsonl')));
  writeFileSync(codexWithCommand, readFileSync(path.join(fixtures, 'slash-commands.jsonl')));
  writeFileSync(straddling, `${' '.repeat((1 << 20) - line.indexOf('<command-name>') - 5)}${line}\n`);
  const db = await Db.open(file);
  try {
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES
      (2, ?, 'claude-code', 700, 5, 700, 15), (3, ?, 'claude-code', 700, 5, 700, 9), (4, ?, 'claude-code', 700, 5, 700, 1),
      (5, ?, 'claude-code', 700, 5, 700, 3), (6, ?, 'codex', 700, 5, 700, 15)`,
    [withCommand, path.join(fixtures, 'split-reply.jsonl'), straddling, path.join(dir, 'gone.jsonl'), codexWithCommand]);
    assert.equal(await migrate(db), 20);
    const sizes = await db.all<{ id: number; size: number }>('SELECT id, size FROM sources ORDER BY id');
    // 1: the store's own source, not on disk; 3: no command; 5: gone from disk (kept as stored); 6: not Claude Code
    assert.deepEqual(sizes.map((s) => [s.id, s.size]), [[1, 900], [2, -1], [3, 700], [4, -1], [5, 700], [6, 700]]);
  } finally {
    await db.close();
  }
});

test('schema 22 marks the Claude Code transcripts holding a task report or a plan to be read again, and only those', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'v21-notifications.sqlite');
  await writeStoreAt(21, file);
  const fixtures = path.resolve(__dirname, '../../../test/fixtures/claude-code');
  const withReport = path.join(dir, 'with-report.jsonl');
  writeFileSync(withReport, readFileSync(path.join(fixtures, 'task-notifications.jsonl')));
  const withPlan = path.join(dir, 'with-plan.jsonl');
  writeFileSync(withPlan, `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't2', name: 'ExitPlanMode', input: { plan: '# Plan' } }] } })}\n`);
  const codexWithReport = path.join(dir, 'rollout.jsonl');
  writeFileSync(codexWithReport, readFileSync(withReport));
  const db = await Db.open(file);
  try {
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES
      (2, ?, 'claude-code', 700, 5, 700, 16), (3, ?, 'claude-code', 700, 5, 700, 15), (4, ?, 'claude-code', 700, 5, 700, 2),
      (5, ?, 'claude-code', 700, 5, 700, 3), (6, ?, 'codex', 700, 5, 700, 16)`,
    [withReport, path.join(fixtures, 'slash-commands.jsonl'), withPlan, path.join(dir, 'gone.jsonl'), codexWithReport]);
    assert.equal(await migrate(db), 21);
    const sizes = await db.all<{ id: number; size: number }>('SELECT id, size FROM sources ORDER BY id');
    // 1: the store's own source, not on disk; 3: neither; 5: gone from disk (kept as stored); 6: not Claude Code
    assert.deepEqual(sizes.map((s) => [s.id, s.size]), [[1, 900], [2, -1], [3, 700], [4, -1], [5, 700], [6, 700]]);
  } finally {
    await db.close();
  }
});

test('schema 23 marks the Codex rollouts whose outputs hold the exec header to be read again, and only those', async () => {
  const file = path.join(tempDir(), 'v22-shell-reports.sqlite');
  await writeStoreAt(22, file);
  const db = await Db.open(file);
  try {
    const sources: Array<[string, string, string]> = [
      ['/t/rollout-new.jsonl', 'codex', '[result] Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok'],
      ['/t/rollout-legacy.jsonl', 'codex', '[result] ok'],
      ['/t/claude.jsonl', 'claude-code', '[result] Wall time: 2 seconds\n[result] Command: ls'],
      ['/t/session-a.json', 'gemini', '[tool] run_shell_command ls\n\n[result] Command: ls\nWall time: 1 seconds'],
    ];
    await insertSourcesWithExchange(db, sources);
    assert.equal(await migrate(db), 22);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    // the legacy rollout has no header; the Claude Code transcript and the Gemini session are no Codex rollouts
    assert.deepEqual(sizes.map((s) => [s.path, s.size]), [
      ['/t/s.jsonl', 900],
      ['/t/rollout-new.jsonl', -1],
      ['/t/rollout-legacy.jsonl', 700],
      ['/t/claude.jsonl', 700],
      ['/t/session-a.json', 700],
    ]);
  } finally {
    await db.close();
  }
});

test('schema 24 marks the sources whose exchanges hold an agent\'s plan call to be read again, of every agent, and only those', async () => {
  const file = path.join(tempDir(), 'v23-plans.sqlite');
  await writeStoreAt(23, file);
  const db = await Db.open(file);
  try {
    const sources: Array<[string, string, string]> = [
      ['/t/claude.jsonl', 'claude-code', '[tool] TodoWrite {"todos":[{"content":"Run the linter","status":"pending","activeForm":"Running"}]}'],
      ['/t/rollout.jsonl', 'codex', '[tool] update_plan {"plan":[{"status":"completed","step":"Inspect"}]}\n\n[result] Plan updated'],
      ['/t/session-a.json', 'gemini', '[tool] write_todos {"todos":[{"description":"List files","status":"in_progress"}]}'],
      ['/t/export.json', 'copilot', '[tool] manage_todo_list {"operation":"write","todoList":[]}'],
      ['/t/other.jsonl', 'claude-code', 'Assistant: I used TodoWrite to track it.\n[tool] Bash echo update_plan'],
    ];
    await insertSourcesWithExchange(db, sources);
    assert.equal(await migrate(db), 23);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    // a tool named in what was said, or in another tool's input, is no plan call
    assert.deepEqual(sizes.map((s) => [s.path, s.size]), [
      ['/t/s.jsonl', 900],
      ['/t/claude.jsonl', -1],
      ['/t/rollout.jsonl', -1],
      ['/t/session-a.json', -1],
      ['/t/export.json', -1],
      ['/t/other.jsonl', 700],
    ]);
  } finally {
    await db.close();
  }
});

test('schema 25 marks the Gemini CLI sessions and Copilot Chat requests whose reading changed to be read again, and only those', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'v23-prompts.sqlite');
  await writeStoreAt(23, file);
  const write = (name: string, text: string): string => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const user = (content: unknown, extra = {}): string => JSON.stringify({ id: 'u1', type: 'user', content, ...extra });
  const sources: Array<[string, string]> = [
    [write('session-typed.jsonl', `${user([{ text: 'x\n--- Content from referenced files ---' }], { displayContent: [{ text: 'x' }] })}\n`), 'gemini'],
    [write('session-context.jsonl', `${user('<session_context>\nThis is the Gemini CLI.\n</session_context>')}\n`), 'gemini'],
    [write('session-read.json', JSON.stringify({ messages: [{ toolCalls: [{ result: [{ functionResponse: { response: { output: '\nIMPORTANT: The file content has been truncated.\n' } } }] }] }] })), 'gemini'],
    [write('session-plain.json', JSON.stringify({ messages: [JSON.parse(user('why is the tide chart wrong?'))] }, null, 2)), 'gemini'],
    [write('qwen-session.json', `${user('System: Please continue.')}\n`), 'qwen-code'],
    [write('chat-attached.json', JSON.stringify({ requests: [{ variableData: { variables: [{ kind: 'file', value: {} }] } }] }, null, 2)), 'copilot'],
    [write('chat-log.jsonl', `${JSON.stringify({ kind: 0, v: { requests: [{ variableData: { variables: [{ kind: 'implicit' }] } }] } })}\n`), 'copilot'],
    [write('chat-none.json', JSON.stringify({ requests: [{ variableData: { variables: [{ kind: 'promptFile' }] } }] })), 'copilot'],
    // a Claude Code transcript quoting a Gemini session is not read again
    [write('claude.jsonl', `${user('<session_context>')}\n`), 'claude-code'],
    [path.join(dir, 'gone.json'), 'gemini'],
  ];
  const db = await Db.open(file);
  try {
    for (const [i, [p, agent]] of sources.entries()) {
      await db.run('INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (?, ?, ?, 700, 5, 700, 30)', [i + 2, p, agent]);
    }
    assert.equal(await migrate(db), 23);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    assert.deepEqual(sizes.map((s) => [path.basename(s.path), s.size]), [
      ['s.jsonl', 900],
      ['session-typed.jsonl', -1],
      ['session-context.jsonl', -1],
      ['session-read.json', -1],
      ['session-plain.json', 700],
      ['qwen-session.json', -1],
      ['chat-attached.json', -1],
      ['chat-log.jsonl', -1],
      ['chat-none.json', 700],
      ['claude.jsonl', 700],
      ['gone.json', 700],
    ]);
  } finally {
    await db.close();
  }
});

test('schema 26 keeps the ids read before the resume point, and marks the Claude Code and Qwen transcripts that repeat an id, and the Claude Code ones with a queued message taken, to be read again', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'v23-seen-ids.sqlite');
  await writeStoreAt(23, file);
  const fixtures = path.resolve(__dirname, '../../../test/fixtures/claude-code');
  const replayed = path.join(fixtures, 'replay-after-turn.jsonl');
  const qwenReplayed = path.join(dir, 'chat.jsonl');
  const qwenRecord = { type: 'user', uuid: 'q1', sessionId: 'q', message: { role: 'user', parts: [{ text: 'Rename the harbour field.' }] } };
  writeFileSync(qwenReplayed, `${JSON.stringify(qwenRecord)}\n${JSON.stringify({ ...qwenRecord, parentUuid: 'q1', uuid: 'q2' })}\n${JSON.stringify(qwenRecord)}\n`);
  const codexReplayed = path.join(dir, 'rollout.jsonl');
  writeFileSync(codexReplayed, readFileSync(replayed));
  const db = await Db.open(file);
  try {
    const sources: Array<[string, string]> = [
      [replayed, 'claude-code'],
      [path.join(fixtures, 'slash-commands.jsonl'), 'claude-code'],
      [qwenReplayed, 'qwen-code'],
      [codexReplayed, 'codex'],
      [path.join(dir, 'gone.jsonl'), 'claude-code'],
      [path.join(fixtures, 'typed-while-working.jsonl'), 'claude-code'],
    ];
    for (const [i, [p, agent]] of sources.entries()) {
      await db.run('INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (?, ?, ?, 700, 5, 700, 9)', [i + 2, p, agent]);
    }
    assert.equal(await migrate(db), 23);
    const rows = await db.all<{ id: number; size: number; seen_ids: string | null }>('SELECT id, size, seen_ids FROM sources ORDER BY id');
    // 1: the store's own source, not on disk; 3: repeats no uuid (its parentUuids name earlier records) and takes no
    // queued message; 5: not a reader that skips repeated ids; 6: gone from disk (kept as stored); 7: a queued message taken
    assert.deepEqual(rows.map((r) => [r.id, r.size]), [[1, 900], [2, -1], [3, 700], [4, -1], [5, 700], [6, 700], [7, -1]]);
    assert.ok(rows.every((r) => r.seen_ids === null));
  } finally {
    await db.close();
  }
});

/** One source each (ids from 2, read to byte 700) with one conversation and one exchange whose verbatim follows a prompt. */
async function insertSourcesWithExchange(db: Db, sources: ReadonlyArray<readonly [path: string, agent: string, verbatim: string]>): Promise<void> {
  for (const [i, [p, agent, verbatim]] of sources.entries()) {
    const id = i + 2;
    await db.run('INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (?, ?, ?, 700, 5, 700, 30)', [id, p, agent]);
    await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c${id}', ${id}, '${agent}', 's${id}', 1)`);
    await db.run(`INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES (?, ?, ?, ?, 0, 0, 1, 1, 9, 0, 'hello', ?)`, [id + 10, `ex-${id}`, `c${id}`, id, `User: hello\n${verbatim}`]);
  }
}

test("schema 27 marks the sources holding a read's limit or line range, and the Gemini CLI sessions with a masked output, a subagent's chat or a whole message list written again, to be read again, and only those", async () => {
  const dir = tempDir();
  const file = path.join(dir, 'v26-read-lines.sqlite');
  await writeStoreAt(26, file);
  const write = (name: string, text: string): string => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const fixtures = path.resolve(__dirname, '../../../test/fixtures');
  const read = (input: unknown): string => JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Read', input }] } });
  const sources: Array<[string, string]> = [
    [write('claude-limit.jsonl', `${read({ file_path: '/a.ts', limit: 40 })}\n`), 'claude-code'],
    [write('claude-whole.jsonl', `${read({ file_path: '/a.ts' })}\n`), 'claude-code'],
    [write('gemini-lines.json', JSON.stringify({ messages: [{ toolCalls: [{ name: 'read_file', args: { file_path: 'a.ts', start_line: 3, end_line: 9 } }] }] }, null, 2)), 'gemini'],
    // Copilot CLI's arguments: a JSON string
    [write('events.jsonl', `${JSON.stringify({ type: 'tool.execution_start', data: { arguments: JSON.stringify({ path: '/a.ts', limit: 5 }) } })}\n`), 'copilot-cli'],
    [path.join(fixtures, 'gemini', 'tidepool', 'chats', 'session-2026-03-02T10-00-7a1b2c3d.json'), 'gemini'],
    [write('session-sub.json', JSON.stringify({ sessionId: 'p', kind: 'subagent', messages: [] }, null, 2)), 'gemini'],
    [write('session-main.json', JSON.stringify({ sessionId: 'p', kind: 'main', messages: [] }, null, 2)), 'gemini'],
    [write('session-listed.jsonl', `${JSON.stringify({ sessionId: 'p' })}\n${JSON.stringify({ $set: { messages: [] } })}\n`), 'gemini'],
    [write('session-title.jsonl', `${JSON.stringify({ sessionId: 'p' })}\n${JSON.stringify({ $set: { summary: 'tides' } })}\n`), 'gemini'],
    // the Gemini CLI's words in another agent's transcript do not make it read again
    [write('rollout.jsonl', `${JSON.stringify({ type: 'message', text: '<tool_output_masked> "kind": "subagent"' })}\n`), 'codex'],
    [path.join(dir, 'gone.jsonl'), 'claude-code'],
  ];
  const db = await Db.open(file);
  try {
    for (const [i, [p, agent]] of sources.entries()) {
      await db.run('INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (?, ?, ?, 700, 5, 700, 30)', [i + 2, p, agent]);
    }
    assert.equal(await migrate(db), 26);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    assert.deepEqual(sizes.map((s) => [path.basename(s.path), s.size]), [
      ['s.jsonl', 900],
      ['claude-limit.jsonl', -1],
      ['claude-whole.jsonl', 700],
      ['gemini-lines.json', -1],
      ['events.jsonl', -1],
      ['session-2026-03-02T10-00-7a1b2c3d.json', -1],
      ['session-sub.json', -1],
      ['session-main.json', 700],
      ['session-listed.jsonl', -1],
      ['session-title.jsonl', 700],
      ['rollout.jsonl', 700],
      ['gone.jsonl', 700],
    ]);
  } finally {
    await db.close();
  }
});
