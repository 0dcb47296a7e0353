// Cross-validated choice among search configurations: choose on some folds of the queries, report on the others.
//   node test/bench/foldChoice.mjs [--folds K] A.json B.json ...    (each `eval --json` output, one mode each;
//   several query files' outputs of the same mode may be joined with a comma: A-dev.json,A-agents.json)
// A query's fold is the first byte of sha1(qid) mod K (as distilledRecall.mjs splits them), so folds do not move
// when queries are added. For each fold the candidate with the best MRR on the other folds is chosen and scored
// on the fold it never saw; the last row is those held-out scores pooled, beside each candidate's own.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './lib.mjs';

const { values, positionals } = parseArgs({ options: { folds: { type: 'string', default: '2' } }, allowPositionals: true });
const K = Number(values.folds);
if (positionals.length < 2 || !(K >= 2)) {
  console.error('usage: foldChoice.mjs [--folds K] A.json[,A2.json] B.json[,B2.json] ...');
  process.exit(2);
}

/** A candidate: its name (the eval's mode and fusion) and each query's rank (undefined: not in the first ten). */
function candidate(files) {
  const ranks = new Map();
  let name = '';
  for (const file of files.split(',')) {
    const run = JSON.parse(readFileSync(file, 'utf8'));
    name = `${run.mode}${run.fusion && run.mode.includes('+') ? ` ${run.fusion}` : ''}`;
    for (const r of run.ranks) ranks.set(r.id, r.rank);
  }
  return { name, ranks };
}

const candidates = positionals.map(candidate);
const ids = [...candidates[0].ranks.keys()];
const foldOf = (id) => createHash('sha1').update(id).digest()[0] % K;
const mrr = (c, sub) => sub.reduce((a, id) => a + (c.ranks.get(id) ? 1 / c.ranks.get(id) : 0), 0) / sub.length;
const r5 = (c, sub) => sub.filter((id) => (c.ranks.get(id) ?? 99) <= 5).length / sub.length;
const fmt = (c, sub) => `${mrr(c, sub).toFixed(3)} / ${r5(c, sub).toFixed(3)}`;

const rows = [];
const heldOut = [];
for (let k = 0; k < K; k++) {
  const test = ids.filter((id) => foldOf(id) === k);
  const train = ids.filter((id) => foldOf(id) !== k);
  const chosen = candidates.reduce((best, c) => (mrr(c, train) > mrr(best, train) ? c : best));
  for (const id of test) heldOut.push({ id, c: chosen });
  rows.push({ fold: k, queries: test.length, 'chosen on the others': chosen.name, ...Object.fromEntries(candidates.map((c) => [c.name, fmt(c, test)])) });
}
const pooledMrr = heldOut.reduce((a, { id, c }) => a + (c.ranks.get(id) ? 1 / c.ranks.get(id) : 0), 0) / heldOut.length;
const pooledR5 = heldOut.filter(({ id, c }) => (c.ranks.get(id) ?? 99) <= 5).length / heldOut.length;
rows.push({ fold: 'all', queries: ids.length, 'chosen on the others': `held out: ${pooledMrr.toFixed(3)} / ${pooledR5.toFixed(3)}`, ...Object.fromEntries(candidates.map((c) => [c.name, fmt(c, ids)])) });
console.log(`MRR / R@5 per fold (${K} folds by sha1(qid)); each candidate's own column, and what choosing on the other folds gives`);
console.log(table(Object.keys(rows[0]), rows));
const [base, ...others] = candidates;
for (const c of others) {
  const better = ids.filter((id) => (c.ranks.get(id) ?? 99) < (base.ranks.get(id) ?? 99)).length;
  const worse = ids.filter((id) => (c.ranks.get(id) ?? 99) > (base.ranks.get(id) ?? 99)).length;
  console.log(`${c.name} against ${base.name}: ${better} queries better, ${worse} worse`);
}
