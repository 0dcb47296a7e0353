#!/usr/bin/env node
// How search does on variants of the eval queries (absentQueries.mjs: `d012~idf2`, `d012~first3`, ...), by kind of
// variant: MRR, R@5, and the first hit's label: how many first hits are `high` and how many of those are right.
//   node test/bench/variantScores.mjs [--seed S --folds 3] A.json[,A2.json] B.json ...
// Each file is an `eval --json` output (several query files' outputs of one run joined with a comma). A variant's
// kind is its id's part after `~` (the eval queries themselves: `query`). With --seed, each kind is also shown per
// fold, a query's fold being sha1(`S:qid`)[0] mod K of its query's id (the part before `~`), as foldChoice.mjs,
// splitVerdict.mjs and confidenceFolds.mjs split them: a variant is in its query's fold.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './lib.mjs';

const { values, positionals } = parseArgs({ options: { seed: { type: 'string' }, folds: { type: 'string', default: '3' } }, allowPositionals: true });
if (positionals.length < 1) {
  console.error('usage: variantScores.mjs [--seed S --folds 3] A.json[,A2.json] B.json ...');
  process.exit(2);
}
const K = Number(values.folds);
const foldOf = (id) => createHash('sha1').update(`${values.seed}:${id.split('~')[0]}`).digest()[0] % K;
const kindOf = (id) => id.split('~')[1] ?? 'query';

function run(files) {
  const ranks = [];
  let name = '';
  for (const file of files.split(',')) {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    name = `${r.mode}${r.mode.includes('+') || r.mode === '3-signal' ? ` ${r.fusion}` : ''}`;
    ranks.push(...r.ranks);
  }
  return { name, ranks, file: files.split(',')[0].replace(/^.*\//, '') };
}

/** MRR / R@5 and `high` first hits right of all `high` ones, over `ranks`. */
function scores(ranks) {
  const n = ranks.length;
  const mrr = ranks.reduce((a, r) => a + (r.rank ? 1 / r.rank : 0), 0) / n;
  const r5 = ranks.filter((r) => r.rank && r.rank <= 5).length / n;
  const high = ranks.filter((r) => r.confidence === 'high');
  const right = high.filter((r) => r.rank === 1).length;
  return `${mrr.toFixed(3)} / ${r5.toFixed(3)}; high ${right} of ${high.length}`;
}

const runs = positionals.map(run);
// two runs of one mode (two builds, a change and its baseline) are told apart by their files
const twice = new Set(runs.filter((r, i) => runs.findIndex((o) => o.name === r.name) !== i).map((r) => r.name));
for (const r of runs) if (twice.has(r.name)) r.name = `${r.name} (${r.file})`;
const kinds = [...new Set(runs[0].ranks.map((r) => kindOf(r.id)))];
const rows = [];
for (const kind of [...kinds, 'all']) {
  const groups = [['', () => true]];
  if (values.seed !== undefined) for (let f = 0; f < K; f++) groups.push([` fold ${f}`, (r) => foldOf(r.id) === f]);
  for (const [label, inGroup] of groups) {
    const row = { kind: `${kind}${label}` };
    for (const { name, ranks } of runs) {
      const sub = ranks.filter((r) => (kind === 'all' || kindOf(r.id) === kind) && inGroup(r));
      row.queries = sub.length;
      row[name] = scores(sub);
    }
    rows.push(row);
  }
}
console.log(`MRR / R@5; high: first hits labelled \`high\` that are right, of all \`high\` first hits${values.seed !== undefined ? `; folds by sha1("${values.seed}:" + query id)` : ''}`);
console.log(table(['kind', 'queries', ...runs.map((r) => r.name)], rows));
