// Paired comparison of two `eval --json` runs over the same queries: is B better than A, per query type?
//   node test/bench/compareEval.mjs --queries dev-queries.jsonl A.jsonl B.jsonl [--mode M]
// For each query type (and all): MRR, P@1, R@5 of both runs and the mean difference of reciprocal rank B - A
// with a paired percentile-bootstrap 95% interval (test/bench/lib.mjs). A change is worth keeping when the
// interval of its ΔMRR lies above 0; "=" marks queries whose rank did not move.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { bootstrapMeanCI, mean, table } from './lib.mjs';

const { values, positionals } = parseArgs({ options: { queries: { type: 'string' }, mode: { type: 'string' } }, allowPositionals: true });
if (!values.queries || positionals.length !== 2) {
  console.error('usage: compareEval.mjs --queries Q.jsonl A.jsonl B.jsonl [--mode M]');
  process.exit(2);
}
const typeOf = new Map(
  readFileSync(values.queries, 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
    const q = JSON.parse(l);
    return [q.qid ?? q.id, q.type ?? 'all'];
  }),
);

function ranksOf(file) {
  const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const row = values.mode ? rows.find((r) => r.mode === values.mode) : rows[0];
  if (!row) throw new Error(`${file}: no row${values.mode ? ` for mode ${values.mode}` : ''}`);
  return new Map(row.ranks.map((r) => [r.id, r.rank]));
}

const a = ranksOf(positionals[0]);
const b = ranksOf(positionals[1]);
const rr = (rank) => (rank ? 1 / rank : 0);
const groups = ['all', ...new Set(typeOf.values())];
const rows = groups.map((g) => {
  const ids = [...a.keys()].filter((id) => g === 'all' || typeOf.get(id) === g);
  const diffs = ids.map((id) => rr(b.get(id)) - rr(a.get(id)));
  const [lo, hi] = bootstrapMeanCI(diffs);
  const at = (m, k) => mean(ids.map((id) => (m.get(id) !== undefined && m.get(id) <= k ? 1 : 0)));
  return {
    type: g,
    n: ids.length,
    'MRR A': mean(ids.map((id) => rr(a.get(id)))),
    'MRR B': mean(ids.map((id) => rr(b.get(id)))),
    'P@1 A': at(a, 1),
    'P@1 B': at(b, 1),
    'R@5 A': at(a, 5),
    'R@5 B': at(b, 5),
    ΔMRR: mean(diffs),
    'CI 95%': `[${lo.toFixed(3)}, ${hi.toFixed(3)}]`,
    'better/worse': `${diffs.filter((d) => d > 0).length}/${diffs.filter((d) => d < 0).length}`,
  };
});
console.log(table(Object.keys(rows[0]), rows));
const moved = [...a.keys()].filter((id) => a.get(id) !== b.get(id)).map((id) => `${id} ${a.get(id) ?? '-'}→${b.get(id) ?? '-'}`);
console.log(`\nmoved: ${moved.join(', ') || 'none'}`);
