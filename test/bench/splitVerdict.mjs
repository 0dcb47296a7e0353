// A change judged on several splits at once: each split's folds chosen on and its held-out fold, before and after.
//   node test/bench/splitVerdict.mjs --seeds S1,S2,... [--folds K] [--held-out F] [--hide-held-out] BASE.json CAND.json ...
// Each file is an `eval --json` output (several query files' outputs of one run joined with a comma, as in
// foldChoice.mjs). A query's fold in split S is the first byte of sha1(`S:qid`) mod K (K = 3), as foldChoice.mjs
// --seed S splits them. For each candidate against BASE, per split: MRR / R@5 on the folds chosen on (all but F,
// F = 2 by default) and on fold F, and how many queries moved up and down there. One fold of 21-33 queries is a
// noisy judge (random thirds of the same ranks span ~0.13 MRR), so a change is read on every split: the verdict
// line says whether it gains on the held-out fold of most splits and loses on none by more than one query's rank
// change (a loss of at most 1/n of MRR on a fold of n queries: one query from first place to not found, or two
// from first to second); the last row is all the queries. --hide-held-out leaves fold F's column, the row of all
// queries and the verdict out, and names the queries that moved only among those no split holds out: the folds
// chosen on can be read while a change is made.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './lib.mjs';

const { values, positionals } = parseArgs({
  options: { seeds: { type: 'string' }, folds: { type: 'string' }, 'held-out': { type: 'string' }, 'hide-held-out': { type: 'boolean' } },
  allowPositionals: true,
});
const seeds = (values.seeds ?? '').split(',').filter(Boolean);
const K = Number(values.folds ?? 3);
const F = Number(values['held-out'] ?? 2);
const hide = values['hide-held-out'] === true;
if (seeds.length === 0 || positionals.length < 2 || !(K >= 2) || !(F >= 0 && F < K)) {
  console.error('usage: splitVerdict.mjs --seeds S1,S2,... [--folds K] [--held-out F] [--hide-held-out] BASE.json CAND.json ...');
  process.exit(2);
}

/** A run: its name and each query's rank (undefined: not in the first ten). */
function run(files) {
  const ranks = new Map();
  for (const file of files.split(',')) {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    for (const q of r.ranks) ranks.set(q.id, q.rank);
  }
  return { name: files, ranks };
}

const [base, ...cands] = positionals.map(run);
const ids = [...base.ranks.keys()];
// a variant of a query (`d012~idf2`, absentQueries.mjs) is in its query's fold
const foldOf = (seed, id) => createHash('sha1').update(`${seed}:${id.split('~')[0]}`).digest()[0] % K;
const rr = (c, id) => (c.ranks.get(id) ? 1 / c.ranks.get(id) : 0);
const mrr = (c, sub) => sub.reduce((a, id) => a + rr(c, id), 0) / sub.length;
const r5 = (c, sub) => sub.filter((id) => (c.ranks.get(id) ?? 99) <= 5).length / sub.length;
const fmt = (c, sub) => `${mrr(c, sub).toFixed(3)} / ${r5(c, sub).toFixed(3)}`;
const moved = (c, sub) => {
  const up = sub.filter((id) => (c.ranks.get(id) ?? 99) < (base.ranks.get(id) ?? 99)).length;
  const down = sub.filter((id) => (c.ranks.get(id) ?? 99) > (base.ranks.get(id) ?? 99)).length;
  return `${up} up, ${down} down`;
};
// The queries no split holds out: what may be read while a change is made without seeing any held-out fold.
const neverHeld = ids.filter((id) => seeds.every((s) => foldOf(s, id) !== F));

for (const c of cands) {
  console.log(`${c.name} against ${base.name} (${ids.length} queries; ${K} folds by sha1("S:" + qid); fold ${F} held out${hide ? ', hidden' : ''})`);
  const rows = [];
  let gains = 0;
  let worstLoss = 0;
  for (const s of seeds) {
    const tune = ids.filter((id) => foldOf(s, id) !== F);
    const held = ids.filter((id) => foldOf(s, id) === F);
    const row = { split: s, 'chosen on': `${tune.length}: ${fmt(base, tune)} → ${fmt(c, tune)} (${moved(c, tune)})` };
    if (!hide) {
      row['held out'] = `${held.length}: ${fmt(base, held)} → ${fmt(c, held)} (${moved(c, held)})`;
      const delta = mrr(c, held) - mrr(base, held);
      if (delta > 1e-9) gains++;
      // in units of one query's first place on this fold
      worstLoss = Math.max(worstLoss, -delta * held.length);
    }
    rows.push(row);
  }
  if (!hide) rows.push({ split: 'all', 'chosen on': `${ids.length}: ${fmt(base, ids)} → ${fmt(c, ids)} (${moved(c, ids)})`, 'held out': '' });
  console.log(table(Object.keys(rows[0]), rows));
  if (hide) {
    const changed = ids.filter((id) => c.ranks.get(id) !== base.ranks.get(id));
    const readable = changed.filter((id) => neverHeld.includes(id));
    console.log(`moved among the ${neverHeld.length} queries no split holds out: ${readable.map((id) => `${id} ${base.ranks.get(id) ?? '-'} → ${c.ranks.get(id) ?? '-'}`).join(', ') || 'none'}`);
  } else {
    const adopt = gains > seeds.length / 2 && worstLoss <= 1 + 1e-9;
    console.log(`held out: gains on ${gains} of ${seeds.length} splits, worst loss ${worstLoss.toFixed(2)} of one query's first place: ${adopt ? 'adopt' : 'do not adopt'}`);
  }
}
