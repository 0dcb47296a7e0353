// Cross-validated choice among search configurations: choose on some folds of the queries, report on the others.
//   node test/bench/foldChoice.mjs [--folds K] [--seed S [--held-out F]] A.json B.json ...    (each `eval --json`
//   output, one mode each; several query files' outputs of the same mode may be joined with a comma: A-dev.json,A-agents.json)
//   [--hide-held-out]
// A query's fold is the first byte of sha1(qid) mod K (as distilledRecall.mjs splits them), so folds do not move
// when queries are added; with --seed S, of sha1(`S:qid`) (--folds then defaults to 3), a split no earlier round
// chose on. For each fold the candidate with the best MRR on the other folds is chosen and scored on the fold it
// never saw; the last row is those held-out scores pooled, beside each candidate's own. --held-out F: fold F was
// looked at by no one; the choice made on the other folds pooled is scored on it alone (the figure to report).
// --hide-held-out (with --held-out F): fold F's queries are left out of every row and count, so the folds chosen on
// can be read while a design is made without seeing the fold that will score it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './lib.mjs';

const { values, positionals } = parseArgs({
  options: { folds: { type: 'string' }, seed: { type: 'string' }, 'held-out': { type: 'string' }, 'hide-held-out': { type: 'boolean' } },
  allowPositionals: true,
});
const K = Number(values.folds ?? (values.seed === undefined ? 2 : 3));
const heldOutFold = values['held-out'] === undefined ? undefined : Number(values['held-out']);
const hide = values['hide-held-out'] === true;
if (positionals.length < 2 || !(K >= 2) || (heldOutFold !== undefined && !(heldOutFold >= 0 && heldOutFold < K)) || (hide && heldOutFold === undefined)) {
  console.error('usage: foldChoice.mjs [--folds K] [--seed S [--held-out F [--hide-held-out]]] A.json[,A2.json] B.json[,B2.json] ...');
  process.exit(2);
}

/** A candidate: its name (the eval's mode and fusion) and each query's rank (undefined: not in the first ten). */
function candidate(files) {
  const ranks = new Map();
  let name = '';
  for (const file of files.split(',')) {
    const run = JSON.parse(readFileSync(file, 'utf8'));
    name = `${run.mode}${run.fusion && (run.mode.includes('+') || run.mode === '3-signal') ? ` ${run.fusion}` : ''}`;
    for (const r of run.ranks) ranks.set(r.id, r.rank);
  }
  return { name, ranks };
}

const candidates = positionals.map(candidate);
// a variant of a query (`d012~idf2`, absentQueries.mjs) is in its query's fold
const foldOf = (qid) => {
  const id = qid.split('~')[0];
  return createHash('sha1').update(values.seed === undefined ? id : `${values.seed}:${id}`).digest()[0] % K;
};
const ids = [...candidates[0].ranks.keys()].filter((id) => !hide || foldOf(id) !== heldOutFold);
const mrr = (c, sub) => sub.reduce((a, id) => a + (c.ranks.get(id) ? 1 / c.ranks.get(id) : 0), 0) / sub.length;
const r5 = (c, sub) => sub.filter((id) => (c.ranks.get(id) ?? 99) <= 5).length / sub.length;
const fmt = (c, sub) => `${mrr(c, sub).toFixed(3)} / ${r5(c, sub).toFixed(3)}`;

const rows = [];
const heldOut = [];
for (let k = 0; k < K; k++) {
  if (hide && k === heldOutFold) continue;
  const test = ids.filter((id) => foldOf(id) === k);
  const train = ids.filter((id) => foldOf(id) !== k);
  const chosen = candidates.reduce((best, c) => (mrr(c, train) > mrr(best, train) ? c : best));
  for (const id of test) heldOut.push({ id, c: chosen });
  rows.push({ fold: k, queries: test.length, 'chosen on the others': chosen.name, ...Object.fromEntries(candidates.map((c) => [c.name, fmt(c, test)])) });
}
const pooledMrr = heldOut.reduce((a, { id, c }) => a + (c.ranks.get(id) ? 1 / c.ranks.get(id) : 0), 0) / heldOut.length;
const pooledR5 = heldOut.filter(({ id, c }) => (c.ranks.get(id) ?? 99) <= 5).length / heldOut.length;
rows.push({ fold: 'all', queries: ids.length, 'chosen on the others': `held out: ${pooledMrr.toFixed(3)} / ${pooledR5.toFixed(3)}`, ...Object.fromEntries(candidates.map((c) => [c.name, fmt(c, ids)])) });
const split = values.seed === undefined ? 'sha1(qid)' : `sha1("${values.seed}:" + qid)`;
console.log(`MRR / R@5 per fold (${K} folds by ${split}); each candidate's own column, and what choosing on the other folds gives`);
console.log(table(Object.keys(rows[0]), rows));
if (heldOutFold !== undefined) {
  const test = ids.filter((id) => foldOf(id) === heldOutFold);
  const train = ids.filter((id) => foldOf(id) !== heldOutFold);
  const chosen = candidates.reduce((best, c) => (mrr(c, train) > mrr(best, train) ? c : best));
  if (hide) console.log(`chosen on folds other than ${heldOutFold} (${train.length} queries): ${chosen.name}, ${fmt(chosen, train)}; fold ${heldOutFold} hidden`);
  else console.log(`chosen on the other folds pooled (${train.length} queries): ${chosen.name}, ${fmt(chosen, train)}; on held-out fold ${heldOutFold} (${test.length} queries): ${fmt(chosen, test)}`);
}
const [base, ...others] = candidates;
for (const c of others) {
  const better = ids.filter((id) => (c.ranks.get(id) ?? 99) < (base.ranks.get(id) ?? 99)).length;
  const worse = ids.filter((id) => (c.ranks.get(id) ?? 99) > (base.ranks.get(id) ?? 99)).length;
  console.log(`${c.name} against ${base.name}: ${better} queries better, ${worse} worse`);
}
