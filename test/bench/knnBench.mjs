#!/usr/bin/env node
// KNN strategy benchmark (issue 5): exact float scan vs a bit-quantised coarse pass plus exact re-scoring,
// on clustered unit vectors (real embeddings cluster; uniform random vectors flatter the coarse pass).
// Usage: node test/bench/knnBench.mjs [--n 50000] [--dims 100,384] [--queries 200]
// Prints median/p95 ms per query and recall@10 of each strategy against the exact top 10.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sqlite3 from '@vscode/sqlite3';
import * as sqliteVec from 'sqlite-vec';

const { values } = parseArgs({ options: { n: { type: 'string' }, dims: { type: 'string' }, queries: { type: 'string' } } });
const N = Number(values.n ?? 50_000);
const DIMS = (values.dims ?? '100,384').split(',').map(Number);
const Q = Number(values.queries ?? 200);
const K = 10;

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
const unit = (v) => {
  let s = 0;
  for (const x of v) s += x * x;
  s = Math.sqrt(s) || 1;
  return v.map((x) => x / s);
};
/** Points around 200 topic centres, as sentence embeddings of one user's conversations would be. */
function clustered(dim, count, centres) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const c = centres[Math.floor(rand() * centres.length)];
    out.push(Float32Array.from(unit(c.map((x) => x + 0.6 * gauss() / Math.sqrt(dim)))));
  }
  return out;
}
const padTo8 = (d) => Math.ceil(d / 8) * 8;
/** Sign bits, padded to a multiple of 8 (vec_quantize_binary needs that). */
function bits(v) {
  const out = new Uint8Array(padTo8(v.length) / 8);
  v.forEach((x, i) => {
    if (x > 0) out[i >> 3] |= 1 << (i & 7);
  });
  return Buffer.from(out);
}
const blob = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

const promisify = (db) => ({
  run: (sql, p = []) => new Promise((res, rej) => db.run(sql, p, (e) => (e ? rej(e) : res()))),
  all: (sql, p = []) => new Promise((res, rej) => db.all(sql, p, (e, r) => (e ? rej(e) : res(r)))),
  exec: (sql) => new Promise((res, rej) => db.exec(sql, (e) => (e ? rej(e) : res()))),
});

const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.ceil((p / 100) * a.length) - 1)];

for (const dim of DIMS) {
  const dir = mkdtempSync(join(tmpdir(), 'knn-bench-'));
  const raw = new sqlite3.Database(join(dir, 'b.sqlite'));
  await new Promise((res, rej) => raw.loadExtension(sqliteVec.getLoadablePath(), (e) => (e ? rej(e) : res())));
  const db = promisify(raw);
  const centres = Array.from({ length: 200 }, () => unit(Array.from({ length: dim }, gauss)));
  const data = clustered(dim, N, centres);
  const queries = clustered(dim, Q, centres);
  await db.exec(
    `CREATE VIRTUAL TABLE f USING vec0(embedding float[${dim}]); CREATE VIRTUAL TABLE b USING vec0(embedding bit[${padTo8(dim)}]);` +
      'CREATE TABLE p(id INTEGER PRIMARY KEY, v BLOB NOT NULL);',
  );
  await db.exec('BEGIN');
  for (let i = 0; i < N; i++) {
    await db.run('INSERT INTO f(rowid, embedding) VALUES (?, ?)', [i + 1, blob(data[i])]);
    await db.run('INSERT INTO b(rowid, embedding) VALUES (?, vec_bit(?))', [i + 1, bits(data[i])]);
    await db.run('INSERT INTO p(id, v) VALUES (?, ?)', [i + 1, blob(data[i])]);
  }
  await db.exec('COMMIT');

  const exact = async (q) => (await db.all('SELECT rowid FROM f WHERE embedding MATCH ? AND k = ? ORDER BY distance', [blob(q), K])).map((r) => r.rowid);
  const coarse = (c) => async (q) => {
    const cand = await db.all('SELECT rowid FROM b WHERE embedding MATCH vec_bit(?) AND k = ? ORDER BY distance', [bits(q), c]);
    const rescored = await db.all(
      `SELECT rowid, vec_distance_l2(embedding, ?) AS d FROM f WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY d LIMIT ?`,
      [blob(q), JSON.stringify(cand.map((r) => r.rowid)), K],
    );
    return rescored.map((r) => r.rowid);
  };
  // re-scoring from a plain rowid table (point lookups), the dot product in JS (unit vectors: dot ranks like L2)
  const coarsePlain = (c) => async (q) => {
    const cand = await db.all('SELECT rowid FROM b WHERE embedding MATCH vec_bit(?) AND k = ? ORDER BY distance', [bits(q), c]);
    const rows = await db.all('SELECT id, v FROM p WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(cand.map((r) => r.rowid))]);
    const scored = rows.map((r) => {
      const v = new Float32Array(r.v.buffer, r.v.byteOffset, r.v.byteLength / 4);
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += v[i] * q[i];
      return { id: r.id, dot };
    });
    return scored.sort((a, b) => b.dot - a.dot).slice(0, K).map((r) => r.id);
  };
  const bitOnly = (c) => async (q) =>
    (await db.all('SELECT rowid FROM b WHERE embedding MATCH vec_bit(?) AND k = ? ORDER BY distance', [bits(q), c])).slice(0, K).map((r) => r.rowid);
  const strategies = [
    ['exact float', exact],
    ['bit k=100 only', bitOnly(100)],
    ['bit k=100 + vec0 re-score', coarse(100)],
    ['bit k=100 + plain re-score', coarsePlain(100)],
    ['bit k=200 + plain re-score', coarsePlain(200)],
  ];
  const truth = [];
  for (const q of queries) truth.push(new Set(await exact(q)));
  for (const [name, fn] of strategies) {
    await fn(queries[0]);
    const times = [];
    let found = 0;
    for (const [i, q] of queries.entries()) {
      const t0 = performance.now();
      const ids = await fn(q);
      times.push(performance.now() - t0);
      found += ids.filter((id) => truth[i].has(id)).length;
    }
    console.log(`${N} x ${dim}-d  ${name.padEnd(27)} p50 ${pct(times, 50).toFixed(2)} ms  p95 ${pct(times, 95).toFixed(2)} ms  recall@10 ${(found / (Q * K)).toFixed(3)}`);
  }
  await new Promise((res) => raw.close(res));
  rmSync(dir, { recursive: true, force: true });
}
