// Paired latency of two builds: `eval`'s one pass in a fresh process, alternating the builds on one store, so the
// VM's drift (tens of percent within minutes on these machines) falls on both sides alike.
//   node test/bench/pairLatency.mjs --before DIR --after DIR --db STORE [--pairs 8] [--mode M]
//                                   [--queries Q.jsonl] [--corpus-root DIR] [--embed-model built-in]
// DIR is a built checkout (its dist/cli.js: `npm run build`). Prints each pair's p50 / p95, the medians, the median
// of the paired p50 differences and how many pairs `after` won, with an exact two-sided sign test. It also checks
// that both builds give the same MRR (a latency comparison of different answers says little).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineFacts, median, nodeJson, table } from './lib.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: ROOT },
    db: { type: 'string' },
    pairs: { type: 'string', default: '8' },
    mode: { type: 'string' },
    queries: { type: 'string', default: resolve(ROOT, '../shared/eval/dev-queries.jsonl') },
    'corpus-root': { type: 'string', default: resolve(ROOT, '../shared/corpus') },
    'embed-model': { type: 'string', default: 'built-in' },
  },
});
if (!values.before || !values.db) {
  console.error('usage: pairLatency.mjs --before DIR [--after DIR] --db STORE [--pairs 8] [--mode M] [--queries Q] [--corpus-root DIR]');
  process.exit(2);
}
const builds = { before: values.before, after: values.after };
for (const [side, dir] of Object.entries(builds)) {
  if (!existsSync(join(dir, 'dist/cli.js'))) {
    console.error(`pairLatency: no ${join(dir, 'dist/cli.js')} (${side}): run \`npm run build\` there`);
    process.exit(2);
  }
}

/** One fresh `eval` pass of `dir`'s build. */
function evalPass(dir) {
  const args = [join(dir, 'dist/cli.js'), 'eval', '--db', values.db, '--queries', values.queries, '--corpus-root', values['corpus-root'], '--embed-model', values['embed-model'], '--json'];
  if (values.mode) args.push('--mode', values.mode);
  const r = nodeJson(args, { cwd: dir });
  return { p50: r.p50Ms, p95: r.p95Ms, mrr: r.metrics.mrr };
}

/** Exact two-sided sign test: the chance of a split at least this uneven among `n` pairs if neither side were faster. */
function signTestP(wins, n) {
  const k = Math.min(wins, n - wins);
  let tail = 0;
  for (let i = 0, c = 1; i <= k; i++, c = (c * (n - i + 1)) / i) tail += c;
  return Math.min(1, (2 * tail) / 2 ** n);
}

const pairs = Math.max(1, Number(values.pairs));
const facts = machineFacts();
console.log(`${facts.cores} cores (${facts.cpu}), node ${facts.node}, ${facts.date}; store ${values.db}; ${values.mode ?? 'default mode'}`);
const rows = [];
for (let i = 0; i < pairs; i++) {
  // the order alternates too: a build that always ran second would always meet a warmer (or a busier) machine
  const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  const got = {};
  for (const side of order) got[side] = evalPass(builds[side]);
  if (got.before.mrr !== got.after.mrr) console.log(`  pair ${i + 1}: the builds answer differently (MRR ${got.before.mrr} vs ${got.after.mrr})`);
  rows.push({ pair: i + 1, first: order[0], 'before p50': got.before.p50, 'before p95': got.before.p95, 'after p50': got.after.p50, 'after p95': got.after.p95, 'Δ p50': got.after.p50 - got.before.p50 });
  console.error(`[pair ${i + 1}/${pairs}] before ${got.before.p50.toFixed(2)} after ${got.after.p50.toFixed(2)}`);
}
console.log(table(Object.keys(rows[0]), rows));
const deltas = rows.map((r) => r['Δ p50']);
const wins = deltas.filter((d) => d < 0).length;
const ties = deltas.filter((d) => d === 0).length;
console.log(
  `\np50 median: before ${median(rows.map((r) => r['before p50'])).toFixed(2)}, after ${median(rows.map((r) => r['after p50'])).toFixed(2)} ms; ` +
    `paired Δ p50 median ${median(deltas).toFixed(2)} ms; after faster in ${wins} of ${pairs - ties} pairs (sign test, two-sided p = ${signTestP(wins, pairs - ties).toFixed(3)})`,
);
console.log(`p95 median: before ${median(rows.map((r) => r['before p95'])).toFixed(2)}, after ${median(rows.map((r) => r['after p95'])).toFixed(2)} ms`);
