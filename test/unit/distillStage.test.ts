import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { DistillInput } from '../../src/core/distill/distiller';
import { OfflineDistiller } from '../../src/core/distill/offline';
import { REDACTION_VERSION, redact } from '../../src/core/distill/redact';
import { contentHash, distillOfflineBatch, distillPending } from '../../src/core/distill/stage';
import { indexWorkspace, offlineDistiller } from '../../src/core/indexer';
import { CLEAN, HOLDS_SECRET, redactionStamp } from '../../src/core/redactionCheck';
import { countPendingDistillation, MAX_DISTILL_ATTEMPTS } from '../../src/core/store/distilledStore';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';
import { CountingDistiller, fixtureStore, simpleObject } from './distillHelpers';
import { leak } from './secretCorpus';
import { SESSION_SECRETS, secretSession } from './secretSession';

const MINUTE = 60_000;

async function snapshot(store: Store): Promise<string[]> {
  const rows = await store.db.all<{ id: string; core: string; context: string; rooms: string | null }>(
    `SELECT e.id, d.core, d.context, (SELECT group_concat(room_id, ',') FROM (SELECT room_id FROM exchange_rooms WHERE exchange_n = e.n ORDER BY room_id)) AS rooms
     FROM exchanges e JOIN distilled d ON d.exchange_n = e.n ORDER BY e.id`,
  );
  return rows.map((r) => JSON.stringify(r));
}

async function count(store: Store, sql: string): Promise<number> {
  return (await store.db.get<{ c: number }>(sql))?.c ?? 0;
}

test('index runs the offline stage: every exchange distilled, facets in distilled_fts, tokens stored', async () => {
  const store = await fixtureStore();
  try {
    const exchanges = await count(store, 'SELECT count(*) AS c FROM exchanges');
    assert.ok(exchanges > 0);
    assert.equal(await count(store, "SELECT count(*) AS c FROM distilled WHERE distiller = 'offline'"), exchanges);
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distilled_fts'), exchanges);
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distilled WHERE tokens <= 0'), 0);
    assert.equal(await countPendingDistillation(store.db), 0);
    const c = (await store.stats()).compression;
    assert.equal(c.distilled, exchanges);
    assert.ok(c.ratio > 1 && c.meanItemRatio > 1, JSON.stringify(c));
    assert.equal(c.ratio, +(c.verbatimTokens / c.distilledTokens).toFixed(2), 'ratio is corpus totals, sum / sum');
    // a facet is searchable: some file touched by a fixture exchange finds that exchange through distilled_fts
    const f = await store.db.get<{ path: string; n: number }>('SELECT path, exchange_n AS n FROM files_touched ORDER BY path LIMIT 1');
    const word = f!.path.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 2).pop()!;
    const hits = await store.db.all<{ rowid: number }>('SELECT rowid FROM distilled_fts WHERE distilled_fts MATCH ?', [`files:"${word}"`]);
    assert.ok(hits.some((h) => h.rowid === f!.n));
    assert.equal((await store.check()).ok, true);
  } finally {
    await store.close();
  }
});

test('the stage is resumable: in pieces (limit, cancellation) it ends where one run ends', async () => {
  const whole = await fixtureStore();
  const pieces = await fixtureStore(false);
  try {
    const total = await countPendingDistillation(pieces.db);
    const distiller = offlineDistiller(pieces);
    const first = await distillPending(pieces.db, distiller, undefined, undefined, { limit: 2, batchSize: 1 });
    assert.equal(first.distilled, 2);
    assert.equal(await countPendingDistillation(pieces.db), total - 2);
    // cancelled after the first batch: what was written stays, the rest stays pending
    let batches = 0;
    const token = { isCancellationRequested: false };
    const second = await distillPending(pieces.db, distiller, (p) => {
      if (p.done > 0 && ++batches === 1) token.isCancellationRequested = true;
    }, token, { batchSize: 2 });
    assert.equal(second.cancelled, true);
    assert.equal(second.distilled, 2);
    assert.equal(await countPendingDistillation(pieces.db), total - 4);
    const rest = await distillPending(pieces.db, distiller);
    assert.equal(rest.distilled, total - 4);
    assert.deepEqual(await snapshot(pieces), await snapshot(whole));
  } finally {
    await whole.close();
    await pieces.close();
  }
});

test('an LLM distiller is never asked twice for the same content: re-indexed exchanges come from the cache', async () => {
  const llm = new CountingDistiller('model-a');
  const store = await fixtureStore(llm);
  try {
    const total = await count(store, 'SELECT count(*) AS c FROM exchanges');
    assert.equal(llm.seen.length, total);
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distill_cache'), total);
    const before = await snapshot(store);
    const rooms = await count(store, 'SELECT count(*) AS c FROM rooms');
    assert.ok(rooms >= 1);
    // forget every source: exchanges and distilled rows go (rooms are left orphaned for now); the cache stays
    await store.db.run('DELETE FROM sources');
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distilled'), 0);
    await store.db.run("INSERT INTO rooms(id, type, key, label) VALUES ('gone', 'concept', 'gone', 'gone')");
    const again = await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      distiller: llm,
    });
    assert.equal(llm.seen.length, total, 'no second call');
    assert.equal(again.distill?.cacheHits, total);
    const stamps = await store.db.all<{ verbatim: string; clean: string | null }>('SELECT e.verbatim, d.clean FROM exchanges e JOIN distilled d ON d.exchange_n = e.n');
    for (const r of stamps) assert.equal(r.clean, redactionStamp(r.verbatim), "a result from the cache has its text's stamp too");
    assert.equal(await count(store, 'SELECT count(*) AS c FROM rooms'), rooms, 'same room ids again; the orphan is gone');
    const after = (await snapshot(store)).map((s) => JSON.parse(s) as { id: string; core: string });
    assert.deepEqual(after.map((r) => [r.id, r.core]), before.map((s) => JSON.parse(s) as { id: string; core: string }).map((r) => [r.id, r.core]));
    // another model is another cache entry
    const other = new CountingDistiller('model-b');
    await store.db.run('DELETE FROM distilled');
    await distillPending(store.db, other);
    assert.equal(other.seen.length, total);
    // the offline distiller has no model: it never writes the cache
    await store.db.run('DELETE FROM distilled');
    await distillPending(store.db, new OfflineDistiller());
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distill_cache'), 2 * total);
  } finally {
    await store.close();
  }
});

test('a damaged cache entry is a miss, not a crash', async () => {
  const llm = new CountingDistiller('model-a');
  const store = await fixtureStore(llm);
  try {
    await store.db.run("UPDATE distill_cache SET result = '{not json'");
    await store.db.run('DELETE FROM distilled');
    const calls = llm.seen.length;
    const r = await distillPending(store.db, llm);
    assert.equal(r.cacheHits, 0);
    assert.equal(llm.seen.length, calls * 2);
  } finally {
    await store.close();
  }
});

test('failures are recorded and retried after backoff; retry-after is honoured; attempts are bounded', async () => {
  const store = await fixtureStore(false);
  try {
    const total = await countPendingDistillation(store.db);
    let failing = true;
    const first = (await store.db.get<{ n: number }>('SELECT min(n) AS n FROM exchanges'))!.n;
    const flaky = new CountingDistiller('m', (e) =>
      failing
        ? { n: e.n, ok: false, error: 'HTTP 529 overloaded', ...(e.n === first ? { retryAfterMs: 30 * MINUTE } : {}) }
        : { n: e.n, ok: true, value: { exchangeCore: 'ok', specificContext: '', rooms: [] } },
    );
    const t0 = 1_700_000_000_000;
    const r1 = await distillPending(store.db, flaky, undefined, undefined, { now: () => t0 });
    assert.equal(r1.failed, total);
    const f = await store.db.get<{ attempts: number; last_error: string; next_attempt_at: number }>(
      'SELECT attempts, last_error, next_attempt_at FROM distill_failures WHERE exchange_n = ?',
      [first],
    );
    assert.deepEqual(f, { attempts: 1, last_error: 'HTTP 529 overloaded', next_attempt_at: t0 + 30 * MINUTE });
    assert.equal((await store.stats()).compression.failures, total);

    const calls = flaky.seen.length;
    await distillPending(store.db, flaky, undefined, undefined, { now: () => t0 + 30_000 });
    assert.equal(flaky.seen.length, calls, 'nothing retried before the backoff');

    failing = false;
    const r3 = await distillPending(store.db, flaky, undefined, undefined, { now: () => t0 + MINUTE + 1 });
    assert.equal(r3.distilled, total - 1, 'all but the one that asked to wait 30 minutes');
    const r4 = await distillPending(store.db, flaky, undefined, undefined, { now: () => t0 + 30 * MINUTE });
    assert.equal(r4.distilled, 1);
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distill_failures'), 0, 'a success clears the failure');
  } finally {
    await store.close();
  }
});

test('an exchange that keeps failing is left alone after MAX_DISTILL_ATTEMPTS; an unanswered one counts as failed', async () => {
  const store = await fixtureStore(false);
  try {
    const silent = new CountingDistiller('m', () => undefined);
    let now = 1_700_000_000_000;
    for (let i = 0; i < MAX_DISTILL_ATTEMPTS + 2; i++) {
      await distillPending(store.db, silent, undefined, undefined, { now: () => now });
      now += 2 * 24 * 3600_000;
    }
    const rows = await store.db.all<{ attempts: number; last_error: string }>('SELECT attempts, last_error FROM distill_failures');
    assert.ok(rows.length > 0);
    for (const r of rows) {
      assert.equal(r.attempts, MAX_DISTILL_ATTEMPTS);
      assert.equal(r.last_error, 'counting returned no result');
    }
    assert.equal(await countPendingDistillation(store.db, now), 0);
  } finally {
    await store.close();
  }
});

test('check finds a distilled_fts out of step and repair rebuilds it', async () => {
  const store = await fixtureStore();
  try {
    const n = (await store.db.get<{ n: number }>('SELECT min(exchange_n) AS n FROM distilled'))!.n;
    const facets = 'SELECT files, rooms FROM distilled_facets WHERE exchange_n = ?';
    const before = await store.db.get<{ files: string; rooms: string }>(facets, [n]);
    const word = (await store.db.get<{ core: string }>('SELECT core FROM distilled WHERE exchange_n = ?', [n]))!.core.split(/\W+/).find((w) => w.length > 3)!;
    const found = `SELECT rowid FROM distilled_fts WHERE distilled_fts MATCH 'core : "${word}"' AND rowid = ${n}`;
    assert.equal((await store.db.all(found)).length, 1);
    // the table keeps no text (schema v30): a row is taken out with the text it indexed, and its facets with it
    await store.db.run(
      `INSERT INTO distilled_fts(distilled_fts, rowid, core, context, files, rooms, terms)
       SELECT 'delete', d.exchange_n, d.core, d.context, x.files, x.rooms, d.terms FROM distilled d JOIN distilled_facets x ON x.exchange_n = d.exchange_n
       WHERE d.exchange_n = ?`,
      [n],
    );
    await store.db.run('DELETE FROM distilled_facets WHERE exchange_n = ?', [n]);
    await store.db.run("INSERT INTO distilled_fts(rowid, core, context, files, rooms) VALUES (999999, 'ghost', '', '', '')");
    assert.equal((await store.db.all(found)).length, 0);
    const report = await store.check();
    assert.equal(report.ok, false);
    assert.ok(report.problems.some((p) => /no distilled full-text row/.test(p)), report.problems.join('\n'));
    assert.ok(report.problems.some((p) => /have no distilled exchange/.test(p)), report.problems.join('\n'));
    await store.repair();
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
    assert.deepEqual(await store.db.get(facets, [n]), before);
    assert.equal((await store.db.all(found)).length, 1);
  } finally {
    await store.close();
  }
});

test('the content hash covers what a distiller is shown', () => {
  const base = { project: '/p', plyStart: 0, plyEnd: 3, verbatim: 'User: hi' };
  assert.equal(contentHash(base), contentHash({ ...base }));
  assert.notEqual(contentHash(base), contentHash({ ...base, verbatim: 'User: hi!' }));
  assert.notEqual(contentHash(base), contentHash({ ...base, plyEnd: 4 }));
  assert.notEqual(contentHash(base), contentHash({ ...base, project: '/q' }));
});

test('a distiller that throws fails its batch (recorded, retried later) instead of the run', async () => {
  const store = await fixtureStore(false);
  try {
    const total = await countPendingDistillation(store.db);
    const broken = new CountingDistiller('m', () => {
      throw new Error('socket hang up');
    });
    const report = await distillPending(store.db, broken, undefined, undefined, { batchSize: 2 });
    assert.equal(report.failed, total);
    const errors = await store.db.all<{ last_error: string }>('SELECT DISTINCT last_error FROM distill_failures');
    assert.deepEqual(errors, [{ last_error: 'counting failed: socket hang up' }]);
  } finally {
    await store.close();
  }
});

test('every distiller is given the exchanges with their secrets redacted, so no object can keep one (issue 44)', async () => {
  const dir = tempDir('distill-secrets-');
  writeFileSync(path.join(dir, 'session.jsonl'), secretSession('/home/dev/shop'));
  const seen: DistillInput[] = [];
  const recorder = new CountingDistiller('model-a', (e) => {
    seen.push(e);
    return { n: e.n, ok: true, value: simpleObject(e) };
  });
  const store = await Store.open(path.join(dir, 'd.sqlite'));
  try {
    await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [dir], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      distiller: recorder,
    });
    assert.equal(seen.length, 5);
    const given = seen.map((e) => `${e.prompt}\n${e.verbatim}`).join('\n');
    assert.deepEqual(SESSION_SECRETS.filter((s) => leak(given, s.secret) !== undefined).map((s) => s.what), []);
    assert.match(given, /\[REDACTED:private-key\]/);
  } finally {
    await store.close();
  }
});

test('a distilled exchange says whether its verbatim text holds a secret, with the rules that checked it', async () => {
  const dir = tempDir('recall-clean-');
  writeFileSync(path.join(dir, 'session.jsonl'), secretSession('/home/dev/shop'));
  // the fixtures' exchanges, then the session's (each holding secrets)
  const store = await fixtureStore();
  try {
    await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [dir], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      distiller: offlineDistiller(),
    });
    const rows = await store.db.all<{ verbatim: string; clean: string | null }>('SELECT e.verbatim, d.clean FROM exchanges e JOIN distilled d ON d.exchange_n = e.n');
    assert.ok(rows.filter((r) => r.clean === HOLDS_SECRET).length >= 5 && rows.some((r) => r.clean === CLEAN), 'texts with and without a secret');
    for (const r of rows) assert.equal(r.clean, redact(r.verbatim) === r.verbatim ? REDACTION_VERSION : HOLDS_SECRET);
  } finally {
    await store.close();
  }
});

test('a batch whose exchange another run replaced while it was distilled is not written to that row', async () => {
  const store = await fixtureStore(false);
  try {
    const total = await countPendingDistillation(store.db);
    let gone: { n: number; id: string } | undefined;
    // the batch is distilled elsewhere; meanwhile another process re-indexes its first exchange's source: the row
    // goes (its number may be given again, here to another exchange's copy)
    const report = await distillPending(store.db, new OfflineDistiller(), undefined, undefined, {
      batchSize: 4,
      offload: () => ({
        depth: 2,
        run: async (batch) => {
          if (!gone) {
            gone = { n: batch[0]!.n, id: batch[0]!.exchangeId };
            await store.db.run('DELETE FROM exchanges WHERE n = ?', [gone.n]);
          }
          return distillOfflineBatch(batch);
        },
      }),
    });
    assert.ok(gone);
    assert.equal(report.distilled, total - 1, 'every other exchange is distilled');
    assert.equal(await count(store, `SELECT count(*) AS c FROM distilled WHERE exchange_n = ${gone.n}`), 0);
    assert.equal(await count(store, 'SELECT count(*) AS c FROM distilled WHERE exchange_n NOT IN (SELECT n FROM exchanges)'), 0);
    assert.equal((await store.check()).ok, true);
  } finally {
    await store.close();
  }
});

test('the threads a distillation offloads to are let go once its last batch is written, before the rooms are counted', async () => {
  const store = await fixtureStore(false);
  try {
    const total = await countPendingDistillation(store.db);
    const seen: number[] = [];
    const report = await distillPending(store.db, new OfflineDistiller(), undefined, undefined, {
      batchSize: 4,
      offload: () => ({
        depth: 2,
        run: (batch) => distillOfflineBatch(batch),
        done: async () => {
          seen.push(await count(store, 'SELECT count(*) AS c FROM distilled'));
        },
      }),
    });
    assert.equal(report.distilled, total);
    assert.deepEqual(seen, [total], 'once, with every batch written');
  } finally {
    await store.close();
  }
});

test("where the batches go is decided from the stage's own count of its backlog, counted once", async () => {
  const store = await fixtureStore(false);
  try {
    const total = await countPendingDistillation(store.db);
    const backlogs: number[] = [];
    let offloaded = 0;
    const report = await distillPending(store.db, new OfflineDistiller(), undefined, undefined, {
      batchSize: 4,
      offload: (backlog) => {
        backlogs.push(backlog);
        return { depth: 2, run: (batch) => ((offloaded += batch.length), distillOfflineBatch(batch)) };
      },
    });
    assert.deepEqual(backlogs, [total], 'asked once, with the backlog');
    assert.equal(offloaded, total, 'every batch went where it said');
    assert.equal(report.distilled, total);
  } finally {
    await store.close();
  }
});
