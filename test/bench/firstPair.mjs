#!/usr/bin/env node
// The MCP server's first answer, two or more ways of starting it paired: each run a fresh server (raw JSON-RPC lines over
// stdio: initialize, then one search), the ways alternating (A B, B A, A B, ...) so that the machine's drift falls on
// all alike; at the answer, the server's main-thread CPU and all its threads' (Linux schedstat, to the nanosecond),
// and the wall clock from the spawn. Prints each way's medians and ranges and its paired difference from the first.
//   node test/bench/firstPair.mjs --db STORE --pairs 12 --way "main=/work/main/dist/cli.js" --way "this=dist/cli.js"
//        [--way "snap=--snapshot-blob S dist/cli.js"] [--embed-model built-in|none] [--query WORDS]
// A way is NAME=the node arguments before `mcp` (a bundle, with any flags before it). CPU is what to compare on a
// shared machine: wall clock there is mostly the queue for a core. Servers start in the environment an MCP client
// gives them (the SDK's: HOME, LOGNAME, PATH, SHELL, TERM, USER; as mcpLatency.mjs's do), not this shell's: a shell's
// NODE_EXTRA_CA_CERTS made Node parse ~280 certificates before the server's first line (~40 ms of CPU a start).
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { machineFacts, median } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    pairs: { type: 'string', default: '10' },
    way: { type: 'string', multiple: true, default: [] },
    'embed-model': { type: 'string', default: 'built-in' },
    query: { type: 'string', default: 'why does the build fail after the dependency update' },
  },
});
if (!values.db || values.way.length < 2) {
  console.error('usage: node test/bench/firstPair.mjs --db STORE --pairs N --way NAME=NODE_ARGS --way NAME=NODE_ARGS [...] [--embed-model built-in|none]');
  process.exit(2);
}
const ways = values.way.map((w) => ({ name: w.slice(0, w.indexOf('=')), args: w.slice(w.indexOf('=') + 1).split(/\s+/).filter(Boolean) }));
const model = values['embed-model'] === 'none' ? [] : ['--embed-model', values['embed-model']];

/** A thread's CPU so far, ms, and its time queued for a core (schedstat's first two fields; 0 once it has ended). */
function threadMs(pid, tid, field = 0) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[field]) / 1e6;
  } catch {
    return 0;
  }
}

/** One fresh server to its first search's answer. */
function firstAnswer(way) {
  return new Promise((resolve, reject) => {
    const spawned = performance.now();
    const server = spawn(process.execPath, [...way.args, 'mcp', '--db', values.db, ...model], { stdio: ['pipe', 'pipe', 'pipe'], env: getDefaultEnvironment() });
    const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    let pending = '';
    let stderr = '';
    let result;
    server.stderr.on('data', (d) => (stderr += d));
    server.stdout.on('data', (d) => {
      pending += d;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const message = JSON.parse(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/call', params: { name: 'search', arguments: { query: values.query } } });
        } else if (message.id === 2) {
          const wallMs = performance.now() - spawned;
          const mainMs = threadMs(server.pid, server.pid);
          // what the main thread neither ran nor queued for a core: waiting (for SQLite's pool, a file, the client),
          // which overlapping its work can cut and the load does not make up
          const waitMs = wallMs - mainMs - threadMs(server.pid, server.pid, 1);
          const allMs = readdirSync(`/proc/${server.pid}/task`).reduce((sum, tid) => sum + threadMs(server.pid, tid), 0);
          result = { wallMs, mainMs, waitMs, allMs, error: Boolean(message.error || message.result?.isError) };
          server.stdin.end();
        }
      }
    });
    server.on('error', reject);
    server.on('exit', (code) => (result ? resolve(result) : reject(new Error(`${way.name}: exit ${code} before its answer: ${stderr}`))));
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'first-pair', version: '1' } } });
  });
}

const runs = new Map(ways.map((w) => [w.name, []]));
const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
for (let i = 0; i < Number(values.pairs); i++) {
  for (const way of i % 2 ? [...ways].reverse() : ways) {
    const r = await firstAnswer(way);
    if (r.error) throw new Error(`${way.name}: the search answered an error`);
    runs.get(way.name).push(r);
  }
}
const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const m = machineFacts();
console.log(`MCP first answer, ${values.pairs} pairs, ${m.cores} cores (${m.cpu}), node ${m.node}, ${m.date}; load ${loadBefore} -> ${loadAfter}; store ${values.db}`);
console.log('| way | spawn -> answer ms, median (range) | paired difference | main thread CPU ms | paired difference | main thread waiting ms | paired difference | all threads CPU ms | paired difference |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
const first = runs.get(ways[0].name);
const span = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
for (const way of ways) {
  const rs = runs.get(way.name);
  const paired = (k) => (way === ways[0] ? '' : (median(rs.map((r, i) => r[k] - first[i][k])) > 0 ? '+' : '') + median(rs.map((r, i) => r[k] - first[i][k])).toFixed(0));
  console.log(`| ${way.name} | ${span(rs.map((r) => r.wallMs))} | ${paired('wallMs')} | ${span(rs.map((r) => r.mainMs))} | ${paired('mainMs')} | ${span(rs.map((r) => r.waitMs))} | ${paired('waitMs')} | ${span(rs.map((r) => r.allMs))} | ${paired('allMs')} |`);
}
