#!/usr/bin/env node
// How a store an older version wrote is updated when this one opens it (the migrations, e.g. v11's word index built
// for every exchange), as the extension host lives it: how long, and how long the event loop is held at a time
// (a 10 ms timer's lateness: what VS Code and the other extensions wait). The store is copied first; the original
// is not changed. The copy goes beside the original (`--work DIR`: there; a 2 GB store and its write-ahead log do not
// fit every tmpfs), and the write-ahead log's largest size is sampled every 100 ms. On Linux the longest this thread
// itself ran between two ticks (/proc schedstat, as indexRun.mjs --thread-cpu) tells the migration's own holds from
// the wait for a core on a busy machine. --build: another checkout's out/ (its migrations); --keep FILE: the
// migrated store is moved there (for storeDump.mjs), not deleted.
// Usage (after `tsc -p .`): node test/bench/migrationLag.mjs --from OLD.sqlite [--runs 1] [--build DIR] [--work DIR]
//   [--keep FILE]
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { machineFacts, median, quantile, table } from './lib.mjs';

const { values } = parseArgs({
  options: { from: { type: 'string' }, runs: { type: 'string' }, build: { type: 'string' }, work: { type: 'string' }, keep: { type: 'string' } },
});
if (!values.from) throw new Error('usage: --from OLD.sqlite [--runs 1] [--build DIR] [--work DIR] [--keep FILE]');
const runs = Number(values.runs ?? 1);
const requireOut = createRequire(import.meta.url);
const { Memory } = requireOut(values.build ? join(resolve(values.build), 'out/src/core/memory.js') : '../../out/src/core/memory.js');
const threadStat = existsSync(`/proc/self/task/${process.pid}/schedstat`) ? `/proc/self/task/${process.pid}/schedstat` : undefined;
const threadMs = () => (threadStat ? Number(readFileSync(threadStat, 'utf8').split(' ')[0]) / 1e6 : 0);
const sizeOf = (file) => (existsSync(file) ? statSync(file).size : 0);

const rows = [];
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(join(values.work ?? dirname(resolve(values.from)), 'migration-lag-'));
  const file = join(dir, 'store.sqlite');
  copyFileSync(values.from, file);
  const t0 = performance.now();
  const lags = [];
  let last = performance.now();
  let lastRan = threadMs();
  let longestRan = 0;
  let walPeak = 0;
  /** Each tick gap in which this thread ran 30 ms or more: [ms ran, ms since the open began, the migration's last progress]. */
  const holds = [];
  let at = 'before any progress';
  let sampled = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(now - last - 10);
    last = now;
    const ran = threadMs() - lastRan;
    lastRan += ran;
    longestRan = Math.max(longestRan, ran);
    if (ran >= 30) holds.push([Math.round(ran), Math.round(now - t0), at]);
    if (now - sampled >= 100) {
      sampled = now;
      walPeak = Math.max(walPeak, sizeOf(`${file}-wal`));
    }
  }, 10);
  let reports = 0;
  let exchanges = 0;
  const memory = await Memory.open(file, { onMigration: (p) => ((reports += 1), (exchanges = p.total), (at = `v${p.version} ${p.done}/${p.total}`)) });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  walPeak = Math.max(walPeak, sizeOf(`${file}-wal`));
  await memory.close();
  if (values.keep) for (const suffix of ['', '-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, values.keep + suffix);
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
    ...(threadStat ? { 'thread ran max ms': Math.round(longestRan) } : {}),
    'WAL peak MB': Math.round(walPeak / 2 ** 20),
    holds,
  });
}
console.log(JSON.stringify(machineFacts()));
for (const r of rows) if (r.holds.length > 0) console.log(`run ${r.run}: holds >= 30 ms (ran, at ms, where):`, JSON.stringify(r.holds));
for (const r of rows) delete r.holds;
console.log(table(Object.keys(rows[0]), rows));
if (runs > 1) console.log(`median: ${median(rows.map((r) => r['s to open'])).toFixed(1)} s to open, lag max ${median(rows.map((r) => r['lag max ms'])).toFixed(0)} ms`);
