#!/usr/bin/env node
// How well the distilled object alone still finds its exchange (issue 39 (b)): MRR of `core/bm25` and
// `all-facets/bm25` as a share of `verbatim/bm25`, per fold of the queries and per agent of the target.
// Runs the built CLI's `eval --json` (npm run build first) for each query file and mode, then regroups the ranks.
//   node test/bench/distilledRecall.mjs --db STORE --corpus-root DIR --queries Q1.jsonl[,Q2.jsonl] [--modes M,M] [--embed-model ID]
//     [--folds K --seed S [--held-out F [--hide-held-out]]] [--ranks] [--json]
// Folds: a query's fold is the first byte of sha1(qid) mod 2 (fold 0 is where offline-12's choices were made, fold
// 1 was held out); with --seed S, the first byte of sha1(`S:qid`) mod K (--folds, default 3), a split neither
// earlier round saw; --held-out F names the fold no choice is made on (the others are pooled as "tuned on").
// --hide-held-out leaves the held-out fold's queries out of every figure and of --ranks (every group, "all" and the
// agents too, is then of the folds tuned on), so a round can read its tables while it chooses without seeing them.
// --ranks prints each query's rank per mode (misses first) to read why a target falls behind.
// --embed-model (with `--modes default`) runs the default search (bm25(v)+vec(d), selective) instead.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { mean } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    'corpus-root': { type: 'string' },
    queries: { type: 'string' },
    modes: { type: 'string', default: 'verbatim/bm25,core/bm25,all-facets/bm25' },
    'embed-model': { type: 'string' },
    folds: { type: 'string' },
    seed: { type: 'string' },
    'held-out': { type: 'string' },
    'hide-held-out': { type: 'boolean', default: false },
    ranks: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
if (!values.db || !values['corpus-root'] || !values.queries) {
  console.error('usage: distilledRecall.mjs --db STORE --corpus-root DIR --queries Q1.jsonl[,Q2.jsonl] [--modes M,M] [--embed-model ID] [--json]');
  process.exit(2);
}

const K = Number(values.folds ?? (values.seed === undefined ? 2 : 3));
const heldOut = values['held-out'] === undefined ? undefined : Number(values['held-out']);
const hideHeldOut = values['hide-held-out'];
if (hideHeldOut && heldOut === undefined) {
  console.error('--hide-held-out needs --held-out F');
  process.exit(2);
}

export function foldOf(qid) {
  return createHash('sha1').update(values.seed === undefined ? qid : `${values.seed}:${qid}`).digest()[0] % K;
}

const AGENT_OF_FORMAT = {
  'aider-md': 'aider', 'claude-code-jsonl': 'claude-code', 'codex-jsonl': 'codex', 'copilot-chat-json': 'copilot',
  'gemini-json': 'gemini', 'specstory-md': 'specstory',
};

const files = values.queries.split(',');
const queries = files
  .flatMap((f) => readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => ({ ...JSON.parse(l), file: f.split('/').pop() })))
  .filter((q) => !hideHeldOut || foldOf(q.qid) !== heldOut);
const modes = values.modes.split(',');
/** mode -> qid -> rank (undefined: not in the first 10) */
const ranks = new Map();
for (const mode of modes) {
  const byId = new Map();
  for (const f of files) {
    const args = ['dist/cli.js', 'eval', '--db', values.db, '--queries', f, '--corpus-root', values['corpus-root'], '--json'];
    if (mode !== 'default') args.push('--mode', mode);
    if (values['embed-model']) args.push('--embed-model', values['embed-model']);
    const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
    const row = JSON.parse(out.trim().split('\n').filter((l) => l.startsWith('{')).pop());
    for (const r of row.ranks) byId.set(r.id, r.rank);
  }
  ranks.set(mode, byId);
}

const rr = (rank) => (rank ? 1 / rank : 0);
const groups = [
  ['all', () => true],
  ...(files.length > 1 ? files.map((f) => f.split('/').pop()).map((f) => [f, (q) => q.file === f]) : []),
  ...(values.seed === undefined
    ? [['fold 0 (tuned on)', (q) => foldOf(q.qid) === 0], ['fold 1 (held out)', (q) => foldOf(q.qid) === 1]]
    : [
        ...Array.from({ length: K }, (_, k) => k)
          .filter((k) => !hideHeldOut || k !== heldOut)
          .map((k) => [`fold ${k}${k === heldOut ? ' (held out)' : ''}`, (q) => foldOf(q.qid) === k]),
        ...(heldOut === undefined || hideHeldOut ? [] : [['folds tuned on', (q) => foldOf(q.qid) !== heldOut]]),
      ]),
  ...[...new Set(queries.map((q) => q.format))].sort().map((f) => [`agent ${AGENT_OF_FORMAT[f] ?? f}`, (q) => q.format === f]),
];
const result = groups.map(([name, keep]) => {
  const qs = queries.filter(keep);
  const row = { group: name, queries: qs.length };
  for (const mode of modes) {
    row[mode] = { mrr: mean(qs.map((q) => rr(ranks.get(mode).get(q.qid)))), r5: mean(qs.map((q) => (ranks.get(mode).get(q.qid) ?? 99) <= 5 ? 1 : 0)) };
  }
  return row;
});

if (values.ranks) {
  const order = (q) => -(rr(ranks.get(modes[0]).get(q.qid)) - Math.min(...modes.slice(1).map((m) => rr(ranks.get(m).get(q.qid)))));
  for (const q of [...queries].sort((a, b) => order(a) - order(b))) {
    const cells = modes.map((m) => `${m}=${ranks.get(m).get(q.qid) ?? '-'}`).join(' ');
    console.log(`${q.qid} fold ${foldOf(q.qid)} ${AGENT_OF_FORMAT[q.format] ?? q.format} ${cells} | ${q.query}`);
  }
} else if (values.json) {
  for (const r of result) console.log(JSON.stringify(r));
} else {
  const base = modes[0];
  console.log(`| group | queries | ${modes.map((m) => `${m} MRR (R@5)${m === base ? '' : ` / share of ${base}`}`).join(' | ')} |`);
  console.log(`| --- | --- | ${modes.map(() => '---').join(' | ')} |`);
  for (const r of result) {
    const cells = modes.map((m) => {
      const v = `${r[m].mrr.toFixed(3)} (${r[m].r5.toFixed(2)})`;
      return m === base ? v : `${v} / ${Math.round((100 * r[m].mrr) / Math.max(r[base].mrr, 1e-9))}%`;
    });
    console.log(`| ${r.group} | ${r.queries} | ${cells.join(' | ')} |`);
  }
}
