// Latency of the MCP tools as an agent sees it: `node dist/cli.js mcp` spawned over stdio by the SDK's
// client, each call timed from request to answer (JSON-RPC, validation, the snapshot read, token budgeting).
// For each query of a JSONL file: search; read_exchange of its best hit; file_history of that hit's first
// file; recent. Prints p50 / p95 / max per tool, after `--warmup` untimed rounds.
//   node esbuild.mjs && node test/bench/mcpLatency.mjs --db STORE.sqlite --queries dev-queries.jsonl [--workspace DIR] [--runs 3]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { quantile } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string' },
    workspace: { type: 'string' },
    runs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
  },
});
if (!values.db || !values.queries) {
  console.error('usage: node test/bench/mcpLatency.mjs --db STORE.sqlite --queries QUERIES.jsonl [--workspace DIR] [--runs N] [--warmup N]');
  process.exit(2);
}
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const queries = readFileSync(values.queries, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query);
const args = [cli, 'mcp', '--db', values.db, ...(values.workspace ? ['--workspace', values.workspace] : [])];
const client = new Client({ name: 'mcp-latency', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));

const times = { search: [], read_exchange: [], file_history: [], recent: [] };
async function timed(name, args, keep) {
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0]?.text}`);
  if (keep) times[name].push(ms);
  return r;
}

const rounds = Number(values.warmup) + Number(values.runs);
for (let round = 0; round < rounds; round++) {
  const keep = round >= Number(values.warmup);
  for (const query of queries) {
    const found = await timed('search', { query }, keep);
    const best = found.structuredContent.items[0];
    if (best) {
      await timed('read_exchange', { id: best.id }, keep);
      if (best.files[0]) await timed('file_history', { path: best.files[0] }, keep);
    }
    await timed('recent', {}, keep);
  }
}
await client.close();

const fmt = (x) => x.toFixed(1);
console.log(`MCP tool latency over stdio, ${queries.length} queries x ${values.runs} runs (${values.warmup} warm-up), store ${values.db}${values.workspace ? `, workspace ${values.workspace}` : ''}`);
console.log('| tool | calls | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- | --- |');
for (const [name, xs] of Object.entries(times)) {
  if (xs.length === 0) continue;
  console.log(`| ${name} | ${xs.length} | ${fmt(quantile(xs, 0.5))} | ${fmt(quantile(xs, 0.95))} | ${fmt(Math.max(...xs))} |`);
}
