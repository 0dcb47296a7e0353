#!/usr/bin/env node
// How often a "confident" first hit is right, on queries its rule was not chosen on. Runs each query through the
// extension's default search (built-in model) and records the first hit's evidence (coverage of the query's telling
// words, margin over the second hit) and whether it is right; then, per fold of the queries, chooses the `high` rule
// (coverage >= C and (margin >= M or coverage >= H), the shape of confidence.ts) on the other folds: the rule giving
// the most `high` first hits right at least --target of the time, and scores it on the fold. Beside it, the shipped
// rule (CONFIDENCE_RULES) on every fold. Then the same for the coverage a first hit needs while a query word is in
// no exchange (`nowhereCoverage`), chosen and scored among such queries only, the other thresholds as shipped:
// absentQueries.mjs writes variants of the queries with such a word, which may be given as one more query file (a
// variant `d012~typo` is in its query's fold). Then the number of telling words a `high` first hit must hold
// (`minHeld`), chosen and scored on all the queries, the other thresholds as shipped: absentQueries.mjs --short writes
// variants of 2-5 words.
//   node test/bench/confidenceFolds.mjs --db STORE --queries A.jsonl[,B.jsonl] --corpus-root DIR [--seed S] [--folds 3]
//                                      [--target 0.9] [--build DIR] [--list]
// --list: every first hit's evidence, right or not, by coverage.
// A query's fold is sha1(`S:qid`)[0] mod K, as foldChoice.mjs and distilledRecall.mjs split them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts, table } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string' },
    'corpus-root': { type: 'string' },
    seed: { type: 'string', default: 'confidence-r1' },
    folds: { type: 'string', default: '3' },
    target: { type: 'string', default: '0.9' },
    build: { type: 'string', default: '.' },
    list: { type: 'boolean', default: false },
  },
});
if (!values.db || !values.queries || !values['corpus-root']) {
  console.error('usage: confidenceFolds.mjs --db STORE --queries A.jsonl[,B.jsonl] --corpus-root DIR [--seed S] [--folds 3] [--target 0.9] [--build DIR]');
  process.exit(2);
}
const K = Number(values.folds);
const target = Number(values.target);
const requireBuild = createRequire(join(resolve(values.build), 'out/src/core/memory.js'));
const confidence = requireBuild('./search/confidence.js');
const { Memory } = requireBuild('./memory.js');
const { openEmbedder } = requireBuild('./embed/openEmbedder.js');
const { parseEvalQueries, firstCorrectRank } = requireBuild('./eval/metrics.js');

// The shaping step labels every list through confidencesByRank: keep the evidence of its first hit.
let firstEvidence;
const label = confidence.confidencesByRank;
confidence.confidencesByRank = (evidence) => {
  firstEvidence ??= evidence[0];
  return label(evidence);
};

const queries = values.queries.split(',').flatMap((file) => parseEvalQueries(readFileSync(file, 'utf8'), values['corpus-root']));
const memory = await Memory.open(resolve(values.db));
const { embedder } = await openEmbedder('built-in', { inThread: true });
const searcher = memory.searcher({ embedder });
const rows = [];
for (const q of queries) {
  firstEvidence = undefined;
  const r = await searcher.search({ text: q.query, limit: 10 });
  if (!firstEvidence || r.hits.length === 0) continue;
  const base = q.id.split('~')[0];
  rows.push({ id: q.id, fold: createHash('sha1').update(`${values.seed}:${base}`).digest()[0] % K, right: firstCorrectRank(r.hits.slice(0, 1), q.targets) === 1, shown: r.confidence, ...firstEvidence });
}
await memory.close();

if (values.list) {
  for (const e of [...rows].sort((a, b) => b.coverage - a.coverage || b.margin - a.margin)) {
    console.log(`${e.id}\tfold ${e.fold}\tcoverage ${e.coverage.toFixed(2)}\tmargin ${e.margin.toFixed(2)}\tnowhere ${e.nowhere}\theld ${e.held}\t${e.shown}\t${e.right ? 'right' : 'wrong'}`);
  }
}
const isHigh = (rule) => (e) =>
  // (a build before nowhereCoverage or minHeld: its evidence has no `nowhere` or `held`)
  (!(e.nowhere > 0) || e.coverage >= (rule.nowhereCoverage ?? 0)) &&
  (e.held === undefined || e.held >= (rule.minHeld ?? 0)) &&
  e.coverage >= rule.minCoverage &&
  (e.margin >= rule.highMargin || e.coverage >= rule.highCoverage);
const shipped = isHigh(confidence.CONFIDENCE_RULES);
const mismatch = rows.filter((e) => (e.shown === 'high') !== shipped(e));
if (mismatch.length) console.log(`note: ${mismatch.length} first hits labelled otherwise than the rule on their evidence (${mismatch.map((e) => e.id).join(', ')})`);

const grid = [];
for (const minCoverage of [0.4, 0.5, 0.6, 0.7]) {
  for (const highMargin of [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]) {
    for (const highCoverage of [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.01]) grid.push({ ...confidence.CONFIDENCE_RULES, minCoverage, highMargin, highCoverage });
  }
}
const score = (rule, sub) => {
  const high = sub.filter(isHigh(rule));
  return { high: high.length, right: high.filter((e) => e.right).length };
};
/** The rule with the most `high` first hits right >= target on `sub` (ties: the first of the grid, the loosest; the figures in search.md were chosen so). */
const choose = (sub, rules = grid) => {
  let best;
  for (const rule of rules) {
    const s = score(rule, sub);
    if (s.high === 0 || s.right / s.high < target) continue;
    if (!best || s.high > best.s.high || (s.high === best.s.high && s.right > best.s.right)) best = { rule, s };
  }
  return best?.rule;
};
const named = (rule) => `${rule.minCoverage} / ${rule.highMargin} / ${rule.highCoverage}`;
const pct = ({ high, right }) => `${right} of ${high}${high ? ` (${Math.round((100 * right) / high)} %)` : ''}`;
/**
 * One threshold of `rules` (rules[0] the rule without it) chosen on the other folds of `pool` and scored on each fold,
 * then pooled, beside the shipped rule and the rule without it; `chosenOf` names a chosen rule's threshold.
 */
const heldOutRows = (pool, rules, chosenOf) => {
  const out = [];
  let pooled = { high: 0, right: 0 };
  for (let f = 0; f < K; f++) {
    const fold = pool.filter((e) => e.fold === f);
    const rule = choose(pool.filter((e) => e.fold !== f), rules);
    const held = rule ? score(rule, fold) : { high: 0, right: 0 };
    pooled = { high: pooled.high + held.high, right: pooled.right + held.right };
    out.push({ fold: String(f), queries: fold.length, chosen: rule ? chosenOf(rule) : 'none', held: pct(held), shipped: pct(score(confidence.CONFIDENCE_RULES, fold)), before: pct(score(rules[0], fold)) });
  }
  out.push({ fold: 'pooled', queries: pool.length, chosen: '', held: pct(pooled), shipped: pct(score(confidence.CONFIDENCE_RULES, pool)), before: pct(score(rules[0], pool)) });
  return out;
};
const out = [];
let pooled = { high: 0, right: 0 };
for (let f = 0; f < K; f++) {
  const fold = rows.filter((e) => e.fold === f);
  const rule = choose(rows.filter((e) => e.fold !== f));
  const held = rule ? score(rule, fold) : { high: 0, right: 0 };
  pooled = { high: pooled.high + held.high, right: pooled.right + held.right };
  out.push({ fold: String(f), queries: fold.length, chosen: rule ? named(rule) : 'none', held: pct(held), shipped: pct(score(confidence.CONFIDENCE_RULES, fold)) });
}
out.push({ fold: 'pooled', queries: rows.length, chosen: '', held: pct(pooled), shipped: pct(score(confidence.CONFIDENCE_RULES, rows)) });
const all = choose(rows);
const facts = machineFacts();
console.log(`confidence folds: seed ${values.seed}, ${K} folds, target ${target}; ${rows.length} queries; ${facts.cores} cores, node ${facts.node}, ${facts.date}`);
console.log('chosen: the rule chosen on the other folds (min coverage / margin / coverage); held: its `high` first hits right on the fold; shipped: CONFIDENCE_RULES on the fold');
console.log(table(['fold', 'queries', 'chosen', 'held', 'shipped'], out));
console.log(`chosen on all ${rows.length} queries: ${all ? `${named(all)}, ${pct(score(all, rows))}` : 'none'}`);

// The coverage a first hit needs while a query word is in no exchange: 0 (none more), up to 1.01 (never `high`).
const nowhere = rows.filter((e) => e.nowhere > 0);
if (nowhere.length > 0) {
  const rules = [0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01].map((nowhereCoverage) => ({ ...confidence.CONFIDENCE_RULES, nowhereCoverage }));
  const rows2 = heldOutRows(nowhere, rules, (rule) => String(rule.nowhereCoverage));
  console.log(`\nqueries with a word in no exchange: nowhereCoverage chosen on the other folds (the others as shipped); before: none (0)`);
  console.log(table(['fold', 'queries', 'chosen', 'held', 'shipped', 'before'], rows2));
}

// The telling words a `high` first hit must hold: 0 (none more) to 6, chosen and scored on all the queries (each
// fold chosen on the others), the other thresholds as shipped; by the variant's kind (absentQueries.mjs).
{
  const rules = [0, 2, 3, 4, 5, 6].map((minHeld) => ({ ...confidence.CONFIDENCE_RULES, minHeld }));
  const kindOf = (e) => e.id.split('~')[1]?.replace(/\d+$/, (n) => ` ${n}`) ?? 'query';
  const rows3 = heldOutRows(rows, rules, (rule) => String(rule.minHeld));
  console.log(`\ntelling words a \`high\` first hit holds at least (minHeld) chosen on the other folds (the others as shipped); before: none (0)`);
  console.log(table(['fold', 'queries', 'chosen', 'held', 'shipped', 'before'], rows3));
  const kinds = [...new Set(rows.map(kindOf))];
  console.log(table(['kind', 'queries', 'shipped', 'before'], kinds.map((k) => {
    const sub = rows.filter((e) => kindOf(e) === k);
    return { kind: k, queries: sub.length, shipped: pct(score(confidence.CONFIDENCE_RULES, sub)), before: pct(score(rules[0], sub)) };
  })));
}
