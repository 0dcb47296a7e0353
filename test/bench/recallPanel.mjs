// How fast the recall panel answers as the user types: for each query of a JSONL file, every word-boundary
// prefix (what the debounced panel sends) is asked as the panel asks it (Memory.recall: the search, 20 candidates,
// shaped for display), with the built-in model as the panel's embedder (`--words`: none, words only). Prints p50 /
// p95 / max of each request's process CPU (every thread) and of its wall time, in ms.
//   npx tsc -p . && node test/bench/recallPanel.mjs --db STORE.sqlite --queries dev-queries.jsonl [--limit 100]
//     [--build DIR] [--words]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { db: { type: 'string' }, queries: { type: 'string' }, limit: { type: 'string', default: '100' }, build: { type: 'string' }, words: { type: 'boolean', default: false } },
});
if (!values.db || !values.queries) {
  console.error('usage: node test/bench/recallPanel.mjs --db STORE.sqlite --queries QUERIES.jsonl [--limit N] [--build DIR] [--words]');
  process.exit(2);
}
const build = resolve(values.build ?? join(import.meta.dirname, '../..'));
const requireBuild = createRequire(join(build, 'out/src/core/memory.js'));
const { Memory } = requireBuild('./memory.js');
const { openEmbedder } = requireBuild('./embed/openEmbedder.js');

const queries = readFileSync(values.queries, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query).slice(0, Number(values.limit));
const embedding = values.words ? {} : await openEmbedder('built-in', { inThread: true });
const memory = await Memory.open(values.db);
const { exchanges } = await memory.stats();
const cpu = [];
const wall = [];
for (const q of queries) {
  const words = q.split(/\s+/);
  for (let n = 1; n <= words.length; n++) {
    const text = words.slice(0, n).join(' ');
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await memory.recall({ text }, embedding);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
}
await memory.close();
const figures = (xs) => {
  xs.sort((a, b) => a - b);
  const at = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${xs[xs.length - 1].toFixed(1)} ms`;
};
console.log(`${exchanges} exchanges, ${queries.length} queries, ${cpu.length} as-you-type requests (${values.words ? 'words only' : 'built-in model'}): CPU ${figures(cpu)}; wall ${figures(wall)}`);
