import { indexedPrompt } from '../../src/core/store/contentlessFts';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import * as sqlite3 from '@vscode/sqlite3';
import { RecallError } from '../../src/core/errors';
import { conversationKey, segmentConversation } from '../../src/core/segment';
import { Db } from '../../src/core/store/db';
import { MMAP_BYTES, type ParseWrite, Store, type WriteResult } from '../../src/core/store/store';
import { SCHEMA_VERSION } from '../../src/core/store/schema';
import { conversation, msg, resetLines, tempDir } from './helpers';
import { LexiconBm25 } from '../../src/core/search/lexiconBm25';
import { SearchReads } from '../../src/core/store/searchReads';
import { queryTerms } from '../../src/core/search/terms';

const opts = { minChars: 10, maxPlies: 20 };
/** The project folder: src/polyfills.ts exists there, so the reply's mention of it is a file touched (files.ts). */
const project = tempDir('store-project-');
mkdirSync(path.join(project, 'src'));
writeFileSync(path.join(project, 'src/polyfills.ts'), '');

async function seeded(file: string): Promise<Store> {
  resetLines();
  const conv = conversation([
    msg('prompt', 'Why does the checkout page crash on Safari?'),
    msg('reply', 'Because Intl.Segmenter is missing there; I added a polyfill in src/polyfills.ts.'),
    msg('prompt', 'Make the retry backoff exponential'),
    msg('reply', 'Done: retries now wait 2^n * 100 ms, capped at 5 s.'),
  ], project);
  const store = await Store.open(file);
  await store.writeParse(
    wholeParse(conv, { size: 400, parsedOffset: 400, nextLine: 5, resumeOffset: 200, resumeLine: 3 }, 9),
  );
  return store;
}

/** What a whole-file parse of `conv` writes: its segments, the source state and one malformed line. */
function wholeParse(
  conv: ReturnType<typeof conversation>,
  at: Pick<ParseWrite['state'], 'size' | 'parsedOffset' | 'nextLine' | 'resumeOffset' | 'resumeLine'>,
  malformedLine: number,
): ParseWrite {
  const seg = segmentConversation(conv, opts);
  return {
    state: { path: conv.sourceFile, agent: 'claude-code', mtimeMs: 1, headHash: 'h', anchorHash: 'a', resumePly: 0, pendingPartial: false, ...at },
    full: true,
    fromOffset: 0,
    fromLine: 1,
    conversations: [{ key: conversationKey(conv), meta: conv.meta }],
    exchanges: seg.exchanges,
    dropped: seg.dropped,
    skipped: [{ line: malformedLine, reason: 'malformed-json' }],
  };
}

test('writes exchanges with FTS rows, files, skips; reads them back by id and prefix', async () => {
  const store = await seeded(path.join(tempDir(), 's.sqlite'));
  try {
    const stats = await store.stats();
    assert.equal(stats.exchanges, 2);
    assert.equal(stats.conversations, 1);
    assert.deepEqual(stats.exchangesByAgent, { 'claude-code': 2 });
    assert.deepEqual(stats.skippedLines, { 'malformed-json': 1 });
    const [first] = await store.listExchanges();
    const shown = await store.getExchange(first!.exchangeId.slice(0, 8));
    assert.equal(shown?.exchangeId, first!.exchangeId);
    assert.match(shown!.verbatim, /Intl\.Segmenter/);
    assert.deepEqual(shown!.filesTouched, [{ path: 'src/polyfills.ts', how: 'mention' }]);
    const hits = await new LexiconBm25(new SearchReads(store)).search(queryTerms('segmenter'), 10);
    assert.equal(hits.length, 1, 'BM25 on verbatim (the lexicon) finds the verbatim term');
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});

test('a resumed write replaces only what starts at or after the resume point', async () => {
  const store = await seeded(path.join(tempDir(), 's.sqlite'));
  try {
    const before = await store.listExchanges();
    resetLines();
    const conv = conversation([
      msg('prompt', 'Why does the checkout page crash on Safari?'),
      msg('reply', 'Because Intl.Segmenter is missing there; I added a polyfill in src/polyfills.ts.'),
      msg('prompt', 'Make the retry backoff exponential'),
      msg('reply', 'Done: retries now wait 2^n * 100 ms, capped at 5 s, and jitter is added.'),
    ], project);
    const seg = segmentConversation({ ...conv, messages: conv.messages.slice(2) }, opts);
    await store.writeParse({
      state: {
        path: conv.sourceFile, agent: 'claude-code', size: 500, mtimeMs: 2, headHash: 'h', anchorHash: 'b',
        parsedOffset: 500, nextLine: 5, resumeOffset: 200, resumeLine: 3, resumePly: 0, pendingPartial: false,
      },
      full: false,
      fromOffset: 200,
      fromLine: 3,
      conversations: [{ key: conversationKey(conv), meta: conv.meta }],
      exchanges: seg.exchanges,
      dropped: [],
      skipped: [],
    });
    const after = await store.listExchanges();
    assert.equal(after.length, 2);
    assert.equal(after[0]!.exchangeId, before[0]!.exchangeId);
    assert.match((await store.getExchange(after[1]!.exchangeId))!.verbatim, /jitter/);
    // the skip at line 9 lies after the resume line and was not reported again by the new parse
    assert.deepEqual((await store.stats()).skippedLines, {});
  } finally {
    await store.close();
  }
});

test('check finds a missing full-text row and repair rebuilds it', async () => {
  const store = await seeded(path.join(tempDir(), 's.sqlite'));
  try {
    await store.db.run(
      `INSERT INTO exchanges_fts(exchanges_fts, rowid, prompt) SELECT 'delete', e.n, ${indexedPrompt('e')} FROM exchanges e WHERE e.n = (SELECT min(n) FROM exchanges)`,
    );
    const bad = await store.check();
    assert.equal(bad.ok, false);
    assert.ok(bad.problems.some((p) => /no full-text row/.test(p)), bad.problems.join('; '));
    await store.repair();
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});

test('a damaged store file raises store-corrupt; rebuild moves it aside and starts fresh', async () => {
  const file = path.join(tempDir(), 's.sqlite');
  const store = await seeded(file);
  await store.close();
  // Overwrite the page after the header with garbage: the file still looks like SQLite but is damaged.
  const handle = await open(file, 'r+');
  await handle.write(Buffer.alloc(8192, 0xab), 0, 8192, 100);
  await handle.close();
  await assert.rejects(Store.open(file), (err: unknown) => err instanceof RecallError && err.code === 'store-corrupt');
  const { store: fresh, movedTo } = await Store.rebuild(file);
  try {
    assert.ok(movedTo && movedTo.startsWith(file + '.corrupt-'));
    assert.equal((await fresh.stats()).exchanges, 0);
  } finally {
    await fresh.close();
  }
});

test('a file that is not a database at all is reported as damaged, not thrown raw', async () => {
  const file = path.join(tempDir(), 'junk.sqlite');
  await writeFile(file, 'this is not a database '.repeat(100));
  await assert.rejects(Store.open(file), (err: unknown) => err instanceof RecallError && err.code === 'store-corrupt' && /damaged/.test(err.message));
});

test('a store written by a newer version is refused with a clear message', async () => {
  const file = path.join(tempDir(), 'new.sqlite');
  (await Store.open(file)).close();
  const db = await Db.open(file);
  await db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  await db.close();
  await assert.rejects(Store.open(file), (err: unknown) => err instanceof RecallError && err.code === 'store-too-new' && /newer Agent Recall/.test(err.message));
});

/** One source's whole parse: `turns` prompt/reply pairs in `file`; `uuids` give ids shared across files (a replay). */
function parseOf(file: string, turns: number, uuids: string[] = []): ParseWrite {
  resetLines();
  const messages = Array.from({ length: turns }, (_, i) => [
    msg('prompt', `Question ${i} about the harbour tide tables, asked in ${file}?`, uuids[i] ? { uuid: uuids[i]! } : {}),
    msg('reply', `Answer ${i}: I changed src/tide${i}.ts and src/common.ts to read the new gauge format.`),
  ]).flat();
  const conv = { ...conversation(messages), sourceFile: file };
  return wholeParse(conv, { size: 1, parsedOffset: 1, nextLine: 1, resumeOffset: 0, resumeLine: 1 }, 1000 + turns);
}

/** Everything a parse writes, by source path (ids of rows differ between stores). */
async function contents(store: Store): Promise<unknown[]> {
  return [
    await store.db.all(`SELECT e.id, s.path, e.conversation_id, e.line_start, e.verbatim,
      (SELECT group_concat(f.path || ':' || f.how, ' ') FROM files_touched f WHERE f.exchange_n = e.n) AS files
      FROM exchanges e JOIN sources s ON s.id = e.source_id ORDER BY e.id`),
    await store.db.all('SELECT c.id, s.path FROM conversations c JOIN sources s ON s.id = c.source_id ORDER BY c.id'),
    await store.db.all('SELECT s.path, k.line, k.reason FROM skipped_lines k JOIN sources s ON s.id = k.source_id ORDER BY 1, 2'),
    await store.db.all('SELECT s.path, d.byte_start FROM dropped_exchanges d JOIN sources s ON s.id = d.source_id ORDER BY 1, 2'),
  ];
}

/** Writes `before` source by source, then `group` once as a group and once source by source; both must agree. */
async function groupAgainstOneByOne(before: ParseWrite[], group: ParseWrite[]): Promise<{ results: WriteResult[]; store: Store }> {
  const dir = tempDir();
  const together = await Store.open(path.join(dir, 'together.sqlite'));
  const alone = await Store.open(path.join(dir, 'alone.sqlite'));
  try {
    for (const w of before) {
      await together.writeParse(w);
      await alone.writeParse(w);
    }
    const results = await together.writeParses(group);
    const one: WriteResult[] = [];
    for (const w of group) one.push(await alone.writeParse(w));
    assert.deepEqual(results, one);
    assert.deepEqual(await contents(together), await contents(alone));
    assert.deepEqual(await together.check(), { ok: true, problems: [] });
    return { results, store: together };
  } finally {
    await alone.close();
  }
}

test('a group written together stores exactly what its sources written one by one store', async () => {
  // 70 exchanges take several multi-row statements; the third file replays two of the second's messages
  const { results, store } = await groupAgainstOneByOne(
    [],
    [parseOf('/w/a.jsonl', 70), parseOf('/w/b.jsonl', 3, ['u0', 'u1', 'u2']), parseOf('/w/replay.jsonl', 2, ['u1', 'u2'])],
  );
  try {
    assert.deepEqual(results, [{ inserted: 70, kept: 0, duplicates: 0 }, { inserted: 3, kept: 0, duplicates: 0 }, { inserted: 0, kept: 0, duplicates: 2 }]);
    assert.equal((await store.stats()).exchanges, 73);
  } finally {
    await store.close();
  }
});

test('an exchange a later source of the group replaces keeps the owner it has when written source by source', async () => {
  // The replay comes first in the group and brings u0 while b still holds it: a duplicate, then b re-parsed whole
  // keeps u0 (and u1) as they were. Written table by table, b's old rows would go first and the replay would take u0.
  const { results, store } = await groupAgainstOneByOne(
    [parseOf('/w/b.jsonl', 2, ['u0', 'u1'])],
    [parseOf('/w/replay.jsonl', 1, ['u0']), parseOf('/w/b.jsonl', 2, ['u0', 'u1'])],
  );
  try {
    assert.deepEqual(results, [{ inserted: 0, kept: 0, duplicates: 1 }, { inserted: 0, kept: 2, duplicates: 0 }]);
    const owners = await store.db.all<{ path: string }>('SELECT DISTINCT s.path FROM exchanges e JOIN sources s ON s.id = e.source_id');
    assert.deepEqual(owners, [{ path: '/w/b.jsonl' }]);
  } finally {
    await store.close();
  }
});

test('insertRows writes many rows in order in a few statements and returns what they return', async () => {
  const db = await Db.open(path.join(tempDir(), 'rows.sqlite'));
  try {
    await db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, a TEXT, b INTEGER)');
    const rows = Array.from({ length: 100 }, (_, i) => [1000 - i, `a${i}`, i]);
    const back = await db.insertRows<{ k: number }>('INSERT INTO t(k, a, b)', rows, 'RETURNING k');
    assert.deepEqual(back.map((r) => r.k), rows.map((r) => r[0]));
    assert.deepEqual(await db.all('SELECT count(*) AS c, sum(b) AS s FROM t'), [{ c: 100, s: 4950 }]);
    assert.deepEqual(await db.insertRows('INSERT INTO t(k, a, b)', []), []);
  } finally {
    await db.close();
  }
});

test('every connection a store opens reads through a memory map (the writer, its search reader, a read-only store)', async () => {
  const file = path.join(tempDir('store-mmap-'), 'recall.sqlite');
  const store = await Store.open(file);
  const readOnly = await Store.openReadOnly(file);
  try {
    const mapped = async (db: Db | undefined) => (await db?.get<{ mmap_size: number }>('PRAGMA mmap_size'))?.mmap_size;
    assert.equal(await mapped(store.db), MMAP_BYTES);
    assert.equal(await mapped(await store.reader()), MMAP_BYTES);
    assert.equal(await mapped(readOnly.db), MMAP_BYTES);
  } finally {
    await readOnly.close();
    await store.close();
  }
});

test('inside a snapshot the second connection is neither used nor waited for: reader() answers at once and opens none (the MCP server searches in snapshots)', async () => {
  const file = path.join(tempDir('store-reader-'), 'recall.sqlite');
  await (await Store.open(file)).close();
  const store = await Store.openReadOnly(file);
  const opening = (): unknown => (store as unknown as { readerOpening?: unknown }).readerOpening;
  try {
    assert.equal(await store.db.snapshot(() => store.reader()), undefined);
    assert.equal(opening(), undefined, 'no second connection opened for a read that could not use it');
    const reader = await store.reader();
    assert.ok(reader && reader !== store.db, 'outside a snapshot: the second connection');
    assert.equal(await store.openSecond(), reader);
  } finally {
    await store.close();
  }
});

test("opening checks every page through the memory map and then drops it: the process does not keep the whole store mapped", { skip: process.platform !== 'linux' && 'reads /proc/self/smaps' }, async () => {
  const file = path.join(tempDir('store-mapped-'), 's.sqlite');
  (await Store.open(file)).close();
  const db = await Db.open(file);
  await db.exec('CREATE TABLE filler (x BLOB)');
  for (let i = 0; i < 8; i++) await db.run('INSERT INTO filler SELECT randomblob(8192) FROM json_each(?)', [JSON.stringify(Array.from({ length: 256 }, (_, j) => j))]);
  await db.close();
  const size = statSync(file).size;
  assert.ok(size > 16 << 20, `a store of ${size} bytes`);
  const store = await Store.open(file);
  try {
    // the resident kilobytes of every mapping of the store file in this process
    const real = realpathSync(file);
    let kb = 0;
    let inStore = false;
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inStore = line.endsWith(` ${real}`);
      else if (inStore && line.startsWith('Rss:')) kb += Number(/(\d+)/.exec(line)![1]);
    }
    assert.ok(kb * 1024 < size / 4, `${kb} KB of a ${size}-byte store mapped after opening`);
  } finally {
    await store.close();
  }
});

test('get answers after one round trip through the driver; the statement\'s reset runs behind it, before a COMMIT and before its next use, even one already waiting', async () => {
  const db = await Db.open(path.join(tempDir('db-get-'), 'x.sqlite'));
  const events: string[] = [];
  const proto = sqlite3.Statement.prototype;
  const reset = proto.reset;
  proto.reset = function (this: sqlite3.Statement, callback?: (err: null) => void) {
    return reset.call(this, (err: null) => (events.push('reset'), callback?.(err)));
  };
  try {
    await db.exec('CREATE TABLE t (v INTEGER)');
    await db.run('INSERT INTO t VALUES (1), (2), (3)');
    const first = 'SELECT v FROM t ORDER BY v';
    assert.equal((await db.get<{ v: number }>(first))?.v, 1);
    events.push('answered');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events, ['answered', 'reset'], 'the answer comes before the reset\'s round trip');
    const rows = await Promise.all([1, 2, 3].map(() => db.get<{ v: number }>(first)));
    assert.deepEqual(rows.map((r) => r?.v), [1, 1, 1], 'the same statement three times at once: each from the start');
    await db.transaction(async () => {
      assert.equal((await db.get<{ v: number }>(first))?.v, 1);
      await db.run('INSERT INTO t VALUES (4)');
    }); // COMMIT right after a get: its reset is done first ("SQL statements in progress" otherwise)
    assert.equal((await db.get<{ c: number }>('SELECT count(*) AS c FROM t'))?.c, 4);
  } finally {
    proto.reset = reset;
    await db.close();
  }
});
