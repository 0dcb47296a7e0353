// Recognition after one refinement (issue 13): for the dev queries whose target is not in the first 5 hits of
// the default mode, does one refinement a user would make bring it into the first 5?
//   - the agent chip that fits the target (the panel's agent filter);
//   - "not these" on the first page (the first 5 shown are excluded and the query runs again).
// Usage (after `tsc -p .`): node test/bench/refineEval.mjs --db STORE --queries dev-queries.jsonl --corpus-root DIR
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { Memory } = require('../../out/src/core/memory.js');
const { parseEvalQueries, firstCorrectRank } = require('../../out/src/core/eval/metrics.js');

const { values } = parseArgs({ options: { db: { type: 'string' }, queries: { type: 'string' }, 'corpus-root': { type: 'string' } } });
const AGENT_OF_FORMAT = { 'claude-code-jsonl': 'claude-code', 'codex-jsonl': 'codex', 'specstory-md': 'specstory', 'aider-md': 'aider', 'copilot-chat-json': 'copilot', 'gemini-json': 'gemini' };
const raw = readFileSync(values.queries, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const queries = parseEvalQueries(readFileSync(values.queries, 'utf8'), resolve(values['corpus-root']));
const memory = await Memory.open(values.db);
const PAGE = 5;
let top5 = 0;
let byAgent = 0;
let byNotThese = 0;
let either = 0;
for (const [i, q] of queries.entries()) {
  const first = await memory.search({ text: q.query });
  const rank = firstCorrectRank(first.hits, q.targets);
  if (rank !== undefined && rank <= PAGE) {
    top5++;
    continue;
  }
  const agent = AGENT_OF_FORMAT[raw[i].format];
  const a = await memory.search({ text: q.query, filters: { agents: [agent] } });
  const ra = firstCorrectRank(a.hits, q.targets);
  const n = await memory.search({ text: q.query, exclude: first.hits.slice(0, PAGE).map((h) => h.exchangeId) });
  const rn = firstCorrectRank(n.hits, q.targets);
  const okA = ra !== undefined && ra <= PAGE;
  const okN = rn !== undefined && rn <= PAGE;
  if (okA) byAgent++;
  if (okN) byNotThese++;
  if (okA || okN) either++;
  console.log(`${raw[i].qid} (${raw[i].type}) rank ${rank ?? '-'}: agent chip -> ${ra ?? '-'}, not these -> ${rn ?? '-'}`);
}
const n = queries.length;
const pct = (x) => `${x}/${n} (${((100 * x) / n).toFixed(1)} %)`;
console.log(`in the first 5: ${pct(top5)}; after the agent chip: ${pct(top5 + byAgent)}; after "not these": ${pct(top5 + byNotThese)}; after either: ${pct(top5 + either)}`);
await memory.close();
