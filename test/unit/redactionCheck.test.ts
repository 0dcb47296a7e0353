import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace, type IndexProgress } from '../../src/core/indexer';
import { checkRedaction, CLEAN, HOLDS_SECRET, redactionStamp } from '../../src/core/redactionCheck';
import { RecentTexts } from '../../src/core/search/recentTexts';
import { exchangeTexts } from '../../src/core/store/hitRows';
import { setRedactionStamps, uncheckedTexts } from '../../src/core/store/redactionStamps';
import { Store } from '../../src/core/store/store';
import type { ParallelOptions } from '../../src/core/workers/runWorkers';
import { FIXTURES, tempDir } from './helpers';
import { embeddings, leak, SECRET_FORMATS } from './secretCorpus';
import { SESSION_SECRETS, secretSession } from './secretSession';

/**
 * The index run's redaction stage (redactionCheck.ts): a distilled exchange whose stamp is not current (none: a
 * store distilled before schema v16, or a bench copy; an older rules version) is checked once and stamped, CLEAN or
 * HOLDS_SECRET; only CLEAN texts are ever shown unredacted.
 */

interface Stamped {
  readonly n: number;
  readonly verbatim: string;
  readonly clean: string | null;
}

/** A store of the fixtures and a session whose exchanges hold secrets, distilled offline; its path. */
async function secretStore(): Promise<{ file: string; dir: string }> {
  const dir = tempDir('recall-stamps-');
  writeFileSync(path.join(dir, 'session.jsonl'), secretSession('/home/dev/shop'));
  const file = path.join(tempDir('recall-stamps-db-'), 's.sqlite');
  const store = await Store.open(file);
  try {
    await index(store, dir);
  } finally {
    await store.close();
  }
  return { file, dir };
}

async function index(store: Store, dir: string, parallel: ParallelOptions = { threads: 0 }, onProgress?: (p: IndexProgress) => void) {
  return indexWorkspace(
    store,
    {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES, dir], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      parallel,
    },
    onProgress,
  );
}

async function stamped(store: Store): Promise<Stamped[]> {
  return store.db.all<Stamped>('SELECT e.n, e.verbatim, d.clean FROM exchanges e JOIN distilled d ON d.exchange_n = e.n ORDER BY e.n');
}

/** Sets every stamp with `sql`, then opens the store afresh (as an upgraded release does) and runs the index again. */
async function restampedAfter(sql: string, file: string, dir: string, parallel?: ParallelOptions) {
  const before = await Store.open(file);
  try {
    await before.db.run(sql);
  } finally {
    await before.close();
  }
  const store = await Store.open(file);
  const phases: IndexProgress[] = [];
  try {
    const report = await index(store, dir, parallel, (p) => p.phase === 'redaction' && phases.push(p));
    return { report, phases, rows: await stamped(store), again: (await index(store, dir, parallel)).redactionChecked };
  } finally {
    await store.close();
  }
}

test('a store whose texts have no stamp is stamped by the next index run, then not checked again', async () => {
  const { file, dir } = await secretStore();
  const { report, phases, rows, again } = await restampedAfter('UPDATE distilled SET clean = NULL', file, dir);
  assert.equal(report.redactionChecked, rows.length);
  assert.deepEqual(phases.at(-1), { phase: 'redaction', done: rows.length, total: rows.length });
  for (const r of rows) assert.equal(r.clean, redactionStamp(r.verbatim), `exchange ${r.n}`);
  assert.ok(rows.filter((r) => r.clean === HOLDS_SECRET).length >= 5);
  assert.equal(again, 0, 'a secret-holding text is not checked on every run');
});

test('the worker threads stamp what the run thread stamps', async () => {
  const { file, dir } = await secretStore();
  const here = await restampedAfter('UPDATE distilled SET clean = NULL', file, dir);
  const threads = await restampedAfter('UPDATE distilled SET clean = NULL', file, dir, { threads: 2, minBytes: 0, minExchanges: 0 });
  assert.equal(threads.report.redactionChecked, here.rows.length);
  assert.deepEqual(threads.rows, here.rows);
});

test("after a rules version change, the older stamps are not trusted: a text an older rule passed is shown redacted, then checked again", async () => {
  const { file, dir } = await secretStore();
  const older = await Store.open(file);
  try {
    await older.db.run("UPDATE distilled SET clean = 'r0'");
    const texts = await exchangeTexts(older.db, (await stamped(older)).map((r) => r.n));
    const shown = [...texts].map(([n, text]) => new RecentTexts().redacted(n, text)).join('\n');
    assert.deepEqual(SESSION_SECRETS.filter((s) => leak(shown, s.secret) !== undefined).map((s) => s.what), []);
  } finally {
    await older.close();
  }
  const { rows } = await restampedAfter(`UPDATE distilled SET clean = CASE WHEN clean = '${CLEAN}' THEN 'r0' ELSE '!r0' END`, file, dir);
  for (const r of rows) assert.equal(r.clean, redactionStamp(r.verbatim), `exchange ${r.n}`);
});

test('a text with a secret is never stamped CLEAN, and is shown redacted once stamped', async () => {
  for (const f of SECRET_FORMATS) {
    for (const e of embeddings(f)) assert.equal(redactionStamp(e.text), HOLDS_SECRET, `${f.format} in ${e.context}`);
  }
  const { file, dir } = await secretStore();
  const { rows } = await restampedAfter('UPDATE distilled SET clean = NULL', file, dir);
  const store = await Store.open(file);
  try {
    const texts = await exchangeTexts(store.db, rows.map((r) => r.n));
    const recent = new RecentTexts();
    const shown = rows.map((r) => recent.redacted(r.n, texts.get(r.n)!));
    assert.deepEqual(SESSION_SECRETS.filter((s) => leak(shown.join('\n'), s.secret) !== undefined).map((s) => s.what), []);
    rows.forEach((r, i) => assert.equal(shown[i] === r.verbatim, r.clean === CLEAN, `exchange ${r.n}`));
  } finally {
    await store.close();
  }
});

test('a cancelled stage stamps nothing more and is not taken as done: the next run stamps the rest', async () => {
  const { file } = await secretStore();
  const store = await Store.open(file);
  try {
    await store.db.run('UPDATE distilled SET clean = NULL');
    assert.equal(await checkRedaction(store.db, undefined, { isCancellationRequested: true }), 0);
    assert.ok((await stamped(store)).every((r) => r.clean === null));
    const total = (await stamped(store)).length;
    assert.equal(await checkRedaction(store.db), total);
    for (const r of await stamped(store)) assert.equal(r.clean, redactionStamp(r.verbatim), `exchange ${r.n}`);
  } finally {
    await store.close();
  }
});

test('a stamp lands only on the text it was found for: a row re-written meanwhile (same exchange, another text) keeps its own', async () => {
  const { file } = await secretStore();
  const store = await Store.open(file);
  try {
    await store.db.run('UPDATE distilled SET clean = NULL');
    const read = await uncheckedTexts(store.db, [CLEAN, HOLDS_SECRET], 0, 1000);
    const withSecret = read.find((t) => redactionStamp(t.verbatim) === HOLDS_SECRET)!;
    // another process re-parses and re-distills that exchange while this one checks the text it read (as a clean one)
    await store.db.run("UPDATE distilled SET content_hash = 'rewritten', clean = ? WHERE exchange_n = ?", [HOLDS_SECRET, withSecret.n]);
    await setRedactionStamps(store.db, read.map((t) => ({ n: t.n, hash: t.hash, stamp: CLEAN })));
    const after = await stamped(store);
    assert.equal(after.find((r) => r.n === withSecret.n)!.clean, HOLDS_SECRET);
    assert.ok(after.filter((r) => r.n !== withSecret.n).every((r) => r.clean === CLEAN));
  } finally {
    await store.close();
  }
});
