#!/usr/bin/env node
// How a store an older version wrote is updated when this one opens it (the migrations, e.g. v11's word index built
// for every exchange), as the extension host lives it: how long, and how long the event loop is held at a time
// (a 10 ms timer's lateness: what VS Code and the other extensions wait). The store is copied first; the original
// is not changed.
// Usage (after `tsc -p .`): node test/bench/migrationLag.mjs --from OLD.sqlite [--runs 1]
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { machineFacts, median, quantile, table } from './lib.mjs';

const requireOut = createRequire(import.meta.url);
const { Memory } = requireOut('../../out/src/core/memory.js');

const { values } = parseArgs({ options: { from: { type: 'string' }, runs: { type: 'string' } } });
if (!values.from) throw new Error('usage: --from OLD.sqlite [--runs 1]');
const runs = Number(values.runs ?? 1);

const rows = [];
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'migration-lag-'));
  const file = join(dir, 'store.sqlite');
  copyFileSync(values.from, file);
  const lags = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(now - last - 10);
    last = now;
  }, 10);
  let reports = 0;
  let exchanges = 0;
  const t0 = performance.now();
  const memory = await Memory.open(file, { onMigration: (p) => ((reports += 1), (exchanges = p.total)) });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
  rows.push({
    run,
    exchanges,
    's to open': seconds,
    'progress reports': reports,
    'lag max ms': Math.max(...lags),
    'lag p99 ms': quantile(lags, 0.99),
    'stalls > 100 ms': lags.filter((l) => l > 100).length,
    's held in stalls > 50 ms': lags.filter((l) => l > 50).reduce((a, b) => a + b, 0) / 1000,
  });
}
console.log(JSON.stringify(machineFacts()));
console.log(table(Object.keys(rows[0]), rows));
if (runs > 1) console.log(`median: ${median(rows.map((r) => r['s to open'])).toFixed(1)} s to open, lag max ${median(rows.map((r) => r['lag max ms'])).toFixed(0)} ms`);
