// How fast the recall panel answers as the user types: for each query of a JSONL file, every word-boundary
// prefix (what the debounced panel sends) is searched with the panel's request (20 candidates) and shaped
// into candidates, as src/host/recallPanel.ts does. Prints p50 / p95 / max in ms.
//   npx tsc -p . && node test/bench/recallPanel.mjs --db STORE.sqlite --queries dev-queries.jsonl [--limit 100]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { Store } = require('../../out/src/core/store/store.js');
const { createSearcher } = require('../../out/src/core/search/searcher.js');
const { SearchReads } = require('../../out/src/core/store/searchReads.js');
const { toCandidate } = require('../../out/src/host/candidates.js');

const { values } = parseArgs({ options: { db: { type: 'string' }, queries: { type: 'string' }, limit: { type: 'string', default: '100' } } });
if (!values.db || !values.queries) {
  console.error('usage: node test/bench/recallPanel.mjs --db STORE.sqlite --queries QUERIES.jsonl [--limit N]');
  process.exit(2);
}
const queries = readFileSync(values.queries, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query).slice(0, Number(values.limit));
const store = await Store.open(values.db);
const stats = await store.stats();
const searcher = createSearcher(new SearchReads(store));
const times = [];
for (const q of queries) {
  const words = q.split(/\s+/);
  for (let n = 1; n <= words.length; n++) {
    const text = words.slice(0, n).join(' ');
    const t0 = performance.now();
    const r = await searcher.search({ text, limit: 20 });
    r.hits.map((h) => toCandidate(h));
    times.push(performance.now() - t0);
  }
}
await store.close();
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
console.log(`${stats.exchanges} exchanges, ${queries.length} queries, ${times.length} as-you-type requests: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${times[times.length - 1].toFixed(1)} ms`);
