import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexText } from '../../src/core/indexText';
import { Db } from '../../src/core/store/db';
import { migrate } from '../../src/core/store/schema';
import { tempDir } from './helpers';

const PROMPTS = [
  'Why does the coupon total round wrong?',
  "Don't round each line of the coupon total",
  'Fix it in src/cart.ts',
];
const QUERIES = [`prompt : "coupon total"`, 'dont', 'don', 'round*', 'cart'];
const FACET_QUERIES = ['core : coupon', 'files : cart', 'rooms : rounding', 'terms : quokka', 'context : line'];

/** Rowids and BM25 of each query, in the order FTS5 gives them. */
async function answers(db: Db, table: string, queries: readonly string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of queries) out.push(await db.all(`SELECT rowid AS n, bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY rank, rowid`, [q]));
  return out;
}

async function checked(db: Db, table: string): Promise<void> {
  await db.run(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`);
}

/** A store at schema 29, written as that version's writer wrote it: both full-text tables with their own copy of the text. */
async function storeAt29(file: string): Promise<Db> {
  const db = await Db.open(file);
  await db.exec('PRAGMA foreign_keys = ON');
  await migrate(db, 29);
  await db.run(`INSERT INTO sources(id, path, agent) VALUES (1, '/t/s.jsonl', 'claude-code')`);
  await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c1', 1, 'claude-code', 's1', 1)`);
  for (const [i, prompt] of PROMPTS.entries()) {
    const n = i + 1;
    await db.run(
      `INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
       VALUES (?, ?, 'c1', 1, 0, 0, 1, ?, ?, ?, ?, ?)`,
      [n, `ex-${n}`, n, n, n * 100, prompt, `User: ${prompt}\n\nAssistant: done`],
    );
    await db.run('INSERT INTO exchanges_fts(rowid, prompt) VALUES (?, ?)', [n, indexText(prompt, '').prompt]);
    await db.run(
      `INSERT INTO distilled(exchange_n, core, context, distiller, prompt_version, content_hash, tokens, created_at, terms)
       VALUES (?, ?, ?, 'offline', 'v', 'h', 5, 1, ?)`,
      [n, `Coupon answer ${n}`, `line ${n}`, n === 1 ? 'quokka' : ''],
    );
    await db.run('INSERT INTO distilled_fts(rowid, core, context, files, rooms, terms) VALUES (?, ?, ?, ?, ?, ?)', [
      n, `Coupon answer ${n}`, `line ${n}`, n === 3 ? 'src/cart.ts' : '', n < 3 ? 'Rounding rounding' : '', n === 1 ? 'quokka' : '',
    ]);
  }
  return db;
}

test('schema 30: the full-text tables keep no copy of their text, answer as before, and rows still leave them', async () => {
  const db = await storeAt29(path.join(tempDir(), 'v29.sqlite'));
  try {
    // an apostrophe resolved: the second prompt's index text is not the prompt
    assert.notEqual(indexText(PROMPTS[1]!, '').prompt, PROMPTS[1]);
    const before = [await answers(db, 'exchanges_fts', QUERIES), await answers(db, 'distilled_fts', FACET_QUERIES)];
    assert.ok((before[0]![1] as unknown[]).length === 1 && (before[1]![2] as unknown[]).length === 2, JSON.stringify(before));
    await migrate(db);
    const tables = (await db.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE name LIKE '%fts_content'")).map((r) => r.name);
    assert.deepEqual(tables, [], 'no copy of the text');
    assert.deepEqual(await db.all('SELECT n, prompt FROM exchanges_fts_text'), [{ n: 2, prompt: indexText(PROMPTS[1]!, '').prompt }]);
    assert.deepEqual(await db.all('SELECT exchange_n, files, rooms FROM distilled_facets ORDER BY exchange_n'), [
      { exchange_n: 1, files: '', rooms: 'Rounding rounding' },
      { exchange_n: 2, files: '', rooms: 'Rounding rounding' },
      { exchange_n: 3, files: 'src/cart.ts', rooms: '' },
    ]);
    assert.deepEqual([await answers(db, 'exchanges_fts', QUERIES), await answers(db, 'distilled_fts', FACET_QUERIES)], before);
    await checked(db, 'exchanges_fts');
    await checked(db, 'distilled_fts');

    // an exchange deleted takes its rows out with the text they indexed: the index is as if it had never held them
    await db.run('DELETE FROM exchanges WHERE n = 2');
    assert.deepEqual(await db.all('SELECT rowid AS n FROM exchanges_fts ORDER BY rowid'), [{ n: 1 }, { n: 3 }]);
    assert.deepEqual(await db.all('SELECT rowid AS n FROM distilled_fts ORDER BY rowid'), [{ n: 1 }, { n: 3 }]);
    assert.deepEqual(await db.all("SELECT rowid FROM exchanges_fts WHERE exchanges_fts MATCH 'dont'"), []);
    assert.deepEqual(await db.all('SELECT n FROM exchanges_fts_text'), []);
    assert.deepEqual(await db.all('SELECT exchange_n FROM distilled_facets ORDER BY exchange_n'), [{ exchange_n: 1 }, { exchange_n: 3 }]);
    await checked(db, 'exchanges_fts');
    await checked(db, 'distilled_fts');
    // the totals BM25 reads agree with a table that held only what is left
    const fresh = await storeAt29(path.join(tempDir(), 'fresh.sqlite'));
    try {
      await fresh.run('DELETE FROM exchanges WHERE n = 2');
      await migrate(fresh);
      assert.deepEqual([await answers(db, 'exchanges_fts', QUERIES), await answers(db, 'distilled_fts', FACET_QUERIES)], [
        await answers(fresh, 'exchanges_fts', QUERIES), await answers(fresh, 'distilled_fts', FACET_QUERIES),
      ]);
    } finally {
      await fresh.close();
    }

    // a distilled row's text changed in place is indexed anew
    await db.run("UPDATE distilled SET core = 'Voucher answer' WHERE exchange_n = 1");
    assert.deepEqual(await db.all("SELECT rowid FROM distilled_fts WHERE distilled_fts MATCH 'core : voucher'"), [{ rowid: 1 }]);
    assert.deepEqual(await db.all("SELECT rowid FROM distilled_fts WHERE distilled_fts MATCH 'core : coupon'"), [{ rowid: 3 }]);
    await checked(db, 'distilled_fts');
    // a row the index does not hold (a store being repaired) is not counted out of it
    await db.exec("DELETE FROM distilled_facets WHERE exchange_n = 3; INSERT INTO distilled_fts(distilled_fts, rowid, core, context, files, rooms, terms) VALUES ('delete', 3, 'Coupon answer 3', 'line 3', 'src/cart.ts', '', '')");
    await db.run('DELETE FROM distilled WHERE exchange_n = 3');
    await checked(db, 'distilled_fts');
  } finally {
    await db.close();
  }
});
