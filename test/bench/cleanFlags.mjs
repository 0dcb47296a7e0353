#!/usr/bin/env node
// Fills the `clean` flag of distilled exchanges that have none, as distillation would have set it: the version of
// the redaction rules (REDACTION_VERSION) when redacting the exchange's verbatim text changes nothing in it
// (distill/stage.ts). A store distilled before schema v16, or replicated (replicateStore.mjs, growHistory.mjs), has
// no flags, so each search leaving the store (MCP, the language-model tools) redacts every new hit's whole text for
// its snippet (~2 ms of a new MCP call at 250,000 exchanges: docs/search-log.md). Run `tsc -p .` first.
//
//   node test/bench/cleanFlags.mjs --db STORE [--check]
//
// Writes only `distilled.clean`, a page of exchanges per transaction. --check writes nothing: it computes the flag of
// every distilled exchange that has one or none and counts where it differs from the stored one (a flagged text
// found to hold a secret, or an unflagged one found clean).
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { redact, REDACTION_VERSION } = require(resolve(ROOT, 'out/src/core/distill/redact.js'));
const sqlite3 = require('@vscode/sqlite3');

const { values } = parseArgs({ options: { db: { type: 'string' }, check: { type: 'boolean', default: false } } });
if (!values.db) {
  console.error('usage: node test/bench/cleanFlags.mjs --db STORE [--check]');
  process.exit(2);
}
const PAGE = 500;

const db = new sqlite3.Database(resolve(values.db), values.check ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE);
const all = (sql, params = []) => new Promise((res, rej) => db.all(sql, params, (err, rows) => (err ? rej(err) : res(rows))));
const run = (sql, params = []) => new Promise((res, rej) => db.run(sql, params, (err) => (err ? rej(err) : res())));

const columns = await all('PRAGMA table_info(distilled)');
if (!columns.some((c) => c.name === 'clean')) {
  console.error('cleanFlags: this store has no distilled.clean column (schema before v16): open it with this build first.');
  process.exit(1);
}
const started = process.cpuUsage();
const counts = { read: 0, clean: 0, secret: 0, differ: 0 };
for (let after = -1; ; ) {
  const rows = await all(
    `SELECT d.exchange_n AS n, d.clean, e.verbatim FROM distilled d JOIN exchanges e ON e.n = d.exchange_n
     WHERE d.exchange_n > ? ${values.check ? '' : 'AND d.clean IS NULL'} ORDER BY d.exchange_n LIMIT ${PAGE}`,
    [after],
  );
  if (rows.length === 0) break;
  after = rows.at(-1).n;
  const found = rows.map((r) => ({ n: r.n, stored: r.clean, clean: redact(r.verbatim) === r.verbatim ? REDACTION_VERSION : null }));
  counts.read += found.length;
  for (const f of found) {
    if (f.clean) counts.clean++;
    else counts.secret++;
    if (f.stored !== f.clean) counts.differ++;
  }
  if (!values.check) {
    await run('BEGIN IMMEDIATE');
    for (const f of found) if (f.clean) await run('UPDATE distilled SET clean = ? WHERE exchange_n = ? AND clean IS NULL', [f.clean, f.n]);
    await run('COMMIT');
  }
}
const cpu = process.cpuUsage(started);
console.log(
  `cleanFlags${values.check ? ' --check' : ''}: ${counts.read} distilled exchanges ${values.check ? 'checked' : 'without a flag'}, ` +
    `${counts.clean} clean (${REDACTION_VERSION}), ${counts.secret} holding a secret` +
    `${values.check ? `; ${counts.differ} differ from the stored flag` : ''}; CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`,
);
db.close();
