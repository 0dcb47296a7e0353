// Latency of the MCP tools as an agent sees it: `node dist/cli.js mcp` spawned over stdio by the SDK's client, each
// call timed from request to answer (JSON-RPC, validation, the snapshot read, token budgeting).
//   node esbuild.mjs && node test/bench/mcpLatency.mjs --db STORE.sqlite --queries dev-queries.jsonl
//        [--workspace DIR] [--embed-model built-in|none] [--servers 5] [--calls 40] [--tools] [--json FILE] [--cli DIST/cli.js] [--positions N]
//        [--pause MS] [--idle MS] [--node-flags FLAGS]
// First answer: --servers fresh servers, one after another; for each, the time from spawning it to the answer of its
// first `search` (the process's start, the handshake, opening the store, the search), and that search call alone.
// Warm: on each server, then --calls searches (the queries of the file, in turn) timed one by one. With --tools, a
// last server also answers read_exchange, file_history and recent for each query's best hit, after one untimed round.
// Each server's peak resident memory (VmHWM, Linux) is read before it is closed, and the CPU time it spent (all its
// threads, SQLite's included) over the second half of its warm calls (the first half overlaps the searcher's warm-up),
// per call: steadier than elapsed times on a shared machine; so is its CPU time from the spawn to its first answer; and
// over the first half of its warm calls, per call (the calls a fresh process's code is not yet optimised for; with
// --pause it includes the warm-up the server ran in the pauses); and each call's CPU within it, all threads (ticks) and
// the main thread alone (schedstat, ns: what the call waits for).
// --node-flags "FLAGS" starts the server's Node with FLAGS (e.g. V8's) before the bundle, to measure a flag.
// Prints the medians over the servers and the warm calls' p50 / p95 / max, with the machine noted; --json writes them.
// With --positions N, also each of the first N warm calls' median elapsed and CPU time over the servers, by its
// place after the first answer (the first calls meet the searcher's warm-up, or the code V8 has not compiled yet):
// all threads in ticks, and to the nanosecond the main thread and all threads (V8's compiler threads with it).
// With --pause MS, the client waits MS before each warm call, as an agent reading an answer does (the server's warm-up
// runs in such pauses: scopedMemory.ts); a call's CPU is still read from its request to its answer. With --idle MS, the
// client waits MS after the handshake before its first call, as an agent started with its session does (the server
// warms itself up when idle: server.ts); the first call's own CPU is then reported too.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { machineFacts, median, quantile } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string' },
    workspace: { type: 'string' },
    'embed-model': { type: 'string', default: 'built-in' },
    servers: { type: 'string', default: '5' },
    calls: { type: 'string', default: '40' },
    tools: { type: 'boolean', default: false },
    positions: { type: 'string', default: '0' },
    pause: { type: 'string', default: '0' },
    idle: { type: 'string', default: '0' },
    // V8 / Node flags for the server's process (before the bundle), e.g. "--always-sparkplug": to measure a flag
    'node-flags': { type: 'string', default: '' },
    json: { type: 'string' },
    // another build's bundle, to compare two builds on one store
    cli: { type: 'string', default: fileURLToPath(new URL('../../dist/cli.js', import.meta.url)) },
  },
});
if (!values.db || !values.queries) {
  console.error('usage: node test/bench/mcpLatency.mjs --db STORE.sqlite --queries QUERIES.jsonl [--workspace DIR] [--embed-model built-in|none] [--servers N] [--calls N] [--tools] [--json FILE]');
  process.exit(2);
}
const cli = values.cli;
const queries = readFileSync(values.queries, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query);
const model = values['embed-model'] === 'none' ? [] : ['--embed-model', values['embed-model']];
const nodeFlags = values['node-flags'].split(/\s+/).filter(Boolean);
const args = [...nodeFlags, cli, 'mcp', '--db', values.db, ...(values.workspace ? ['--workspace', values.workspace] : []), ...model];

/** A fresh server over stdio, and the time its handshake took from the spawn. */
async function spawnServer() {
  const client = new Client({ name: 'mcp-latency', version: '1.0.0' });
  const spawned = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  await client.connect(transport);
  return { client, spawned, connectMs: performance.now() - spawned, pid: transport.pid };
}

/** The server's CPU time so far (user + system, all threads), ms; undefined where /proc is not. */
function cpuMs(pid) {
  const stat = `/proc/${pid}/stat`;
  if (!pid || !existsSync(stat)) return undefined;
  // the fields after the command's name, which is in parentheses and may hold spaces: utime and stime are 14th and 15th
  const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms (USER_HZ)
}

/**
 * The CPU time of the server's main thread so far, ms, to the nanosecond (Linux's schedstat; undefined where there is
 * none): what a call waits for, without the threads that compile or collect beside it; finer than cpuMs's ticks.
 */
function mainCpuMs(pid) {
  const stat = `/proc/${pid}/schedstat`;
  if (!pid || !existsSync(stat)) return undefined;
  return Number(readFileSync(stat, 'utf8').split(' ')[0]) / 1e6;
}

/**
 * The CPU time of all the server's threads so far, ms, to the nanosecond (each thread's schedstat; undefined where there
 * is none): with V8's compiler threads, which cpuMs counts only in 10 ms ticks. A thread ended since is not counted.
 */
function allCpuMs(pid) {
  const tasks = `/proc/${pid}/task`;
  if (!pid || !existsSync(tasks)) return undefined;
  let ns = 0;
  for (const t of readdirSync(tasks)) {
    try {
      ns += Number(readFileSync(`${tasks}/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns / 1e6;
}

/** The server's peak resident memory so far, MB (undefined where /proc is not). */
function peakRssMb(pid) {
  const status = `/proc/${pid}/status`;
  if (!pid || !existsSync(status)) return undefined;
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(status, 'utf8'))?.[1]) / 1024;
}

async function call(client, name, args) {
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0]?.text}`);
  return { r, ms };
}

const servers = [];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pauseMs = Number(values.pause);
const idleMs = Number(values.idle);
const warm = [];
/** By the call's place after the first answer: its elapsed and CPU ms on each server. */
const byPosition = Array.from({ length: Number(values.positions) }, () => ({ ms: [], cpuMs: [], mainMs: [], allMs: [] }));
for (let s = 0; s < Number(values.servers); s++) {
  const { client, spawned, connectMs, pid } = await spawnServer();
  if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
  const [cpuAtCall, mainAtCall] = [cpuMs(pid), mainCpuMs(pid)];
  const first = await call(client, 'search', { query: queries[s % queries.length] });
  const server = {
    connectMs,
    firstCallMs: first.ms,
    firstAnswerMs: performance.now() - spawned,
    firstCpuMs: cpuMs(pid),
    firstCallCpuMs: cpuAtCall === undefined ? undefined : cpuMs(pid) - cpuAtCall,
    firstCallMainCpuMs: mainAtCall === undefined ? undefined : mainCpuMs(pid) - mainAtCall,
  };
  const calls = Number(values.calls);
  const half = Math.floor(calls / 2);
  let cpuAtHalf;
  const cpuAtFirst = server.firstCpuMs;
  /** Each warm call's CPU, from its request to its answer: all threads (ticks), the main thread (ns). */
  const callCpu = [];
  const callMainCpu = [];
  for (let c = 0; c < calls; c++) {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    if (c === half) cpuAtHalf = cpuMs(pid);
    const cpuBefore = cpuMs(pid);
    const mainBefore = mainCpuMs(pid);
    const allBefore = c < byPosition.length ? allCpuMs(pid) : undefined;
    const { ms } = await call(client, 'search', { query: queries[(s + 1 + c) % queries.length] });
    warm.push(ms);
    if (cpuBefore !== undefined) callCpu.push(cpuMs(pid) - cpuBefore);
    if (mainBefore !== undefined) callMainCpu.push(mainCpuMs(pid) - mainBefore);
    if (c < byPosition.length) {
      byPosition[c].ms.push(ms);
      if (cpuBefore !== undefined) byPosition[c].cpuMs.push(cpuMs(pid) - cpuBefore);
      if (mainBefore !== undefined) byPosition[c].mainMs.push(mainCpuMs(pid) - mainBefore);
      if (allBefore !== undefined) byPosition[c].allMs.push(allCpuMs(pid) - allBefore);
    }
  }
  const cpuAtLast = cpuMs(pid);
  servers.push({
    ...server,
    peakRssMb: peakRssMb(pid),
    warmCpuMsPerCall: cpuAtHalf === undefined ? undefined : (cpuAtLast - cpuAtHalf) / (calls - half),
    earlyCpuMsPerCall: cpuAtHalf === undefined || cpuAtFirst === undefined ? undefined : (cpuAtHalf - cpuAtFirst) / half,
    earlyCallCpuMs: callCpu.length === calls ? mean(callCpu.slice(0, half)) : undefined,
    lateCallCpuMs: callCpu.length === calls ? mean(callCpu.slice(half)) : undefined,
    earlyCallMainCpuMs: callMainCpu.length === calls ? mean(callMainCpu.slice(0, half)) : undefined,
    lateCallMainCpuMs: callMainCpu.length === calls ? mean(callMainCpu.slice(half)) : undefined,
    callMainCpu,
  });
  await client.close();
}

const tools = { read_exchange: [], file_history: [], recent: [] };
if (values.tools) {
  const { client } = await spawnServer();
  for (let round = 0; round < 2; round++) {
    for (const query of queries) {
      const best = (await call(client, 'search', { query })).r.structuredContent.items[0];
      const timed = async (name, a) => {
        const { ms } = await call(client, name, a);
        if (round > 0) tools[name].push(ms);
      };
      if (best) {
        await timed('read_exchange', { id: best.id });
        if (best.files[0]) await timed('file_history', { path: best.files[0] });
      }
      await timed('recent', {});
    }
  }
  await client.close();
}

const facts = machineFacts();
const fmt = (x) => x.toFixed(1);
const result = {
  machine: facts,
  db: values.db,
  model: values['embed-model'],
  servers: servers.length,
  firstAnswerMs: median(servers.map((s) => s.firstAnswerMs)),
  firstCallMs: median(servers.map((s) => s.firstCallMs)),
  connectMs: median(servers.map((s) => s.connectMs)),
  firstCpuMs: servers.every((s) => s.firstCpuMs !== undefined) ? median(servers.map((s) => s.firstCpuMs)) : undefined,
  firstCallCpuMs: servers.every((s) => s.firstCallCpuMs !== undefined) ? median(servers.map((s) => s.firstCallCpuMs)) : undefined,
  firstCallMainCpuMs: servers.every((s) => s.firstCallMainCpuMs !== undefined) ? median(servers.map((s) => s.firstCallMainCpuMs)) : undefined,
  peakRssMb: servers.every((s) => s.peakRssMb !== undefined) ? median(servers.map((s) => s.peakRssMb)) : undefined,
  warmCpuMsPerCall: servers.every((s) => s.warmCpuMsPerCall !== undefined) ? median(servers.map((s) => s.warmCpuMsPerCall)) : undefined,
  earlyCpuMsPerCall: servers.every((s) => s.earlyCpuMsPerCall !== undefined) ? median(servers.map((s) => s.earlyCpuMsPerCall)) : undefined,
  earlyCallCpuMs: servers.every((s) => s.earlyCallCpuMs !== undefined) ? median(servers.map((s) => s.earlyCallCpuMs)) : undefined,
  lateCallCpuMs: servers.every((s) => s.lateCallCpuMs !== undefined) ? median(servers.map((s) => s.lateCallCpuMs)) : undefined,
  earlyCallMainCpuMs: servers.every((s) => s.earlyCallMainCpuMs !== undefined) ? median(servers.map((s) => s.earlyCallMainCpuMs)) : undefined,
  lateCallMainCpuMs: servers.every((s) => s.lateCallMainCpuMs !== undefined) ? median(servers.map((s) => s.lateCallMainCpuMs)) : undefined,
  // each server's main-thread CPU per warm call, in order (what --positions summarises)
  callMainCpu: servers.map((s) => s.callMainCpu.map((x) => Math.round(x * 100) / 100)),
  nodeFlags,
  warm: { calls: warm.length, p50: quantile(warm, 0.5), p95: quantile(warm, 0.95), max: Math.max(...warm) },
  byPosition: byPosition.map((p) => ({
    ms: median(p.ms),
    cpuMs: p.cpuMs.length ? median(p.cpuMs) : undefined,
    mainCpuMs: p.mainMs.length ? median(p.mainMs) : undefined,
    allCpuMs: p.allMs.length ? median(p.allMs) : undefined,
  })),
  tools: Object.fromEntries(Object.entries(tools).filter(([, xs]) => xs.length).map(([k, xs]) => [k, { calls: xs.length, p50: quantile(xs, 0.5), p95: quantile(xs, 0.95) }])),
};
console.log(`MCP over stdio (the SDK's client), ${facts.cores} cores (${facts.cpu}), node ${facts.node}, ${facts.date}; store ${values.db}; model ${values['embed-model']}`);
console.log('| servers | spawn -> first search answered ms | first search call ms | handshake ms | server CPU to first answer ms | warm search calls | p50 ms | p95 ms | max ms | server peak RSS MB | server CPU ms per warm call, first half | second half | CPU ms within a warm call, first half | second half | main thread only, first half | second half |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
console.log(`| ${servers.length} | ${fmt(result.firstAnswerMs)} | ${fmt(result.firstCallMs)} | ${fmt(result.connectMs)} | ${result.firstCpuMs === undefined ? '—' : fmt(result.firstCpuMs)} | ${warm.length} | ${fmt(result.warm.p50)} | ${fmt(result.warm.p95)} | ${fmt(result.warm.max)} | ${result.peakRssMb === undefined ? '—' : fmt(result.peakRssMb)} | ${result.earlyCpuMsPerCall === undefined ? '—' : fmt(result.earlyCpuMsPerCall)} | ${result.warmCpuMsPerCall === undefined ? '—' : fmt(result.warmCpuMsPerCall)} | ${result.earlyCallCpuMs === undefined ? '—' : fmt(result.earlyCallCpuMs)} | ${result.lateCallCpuMs === undefined ? '—' : fmt(result.lateCallCpuMs)} | ${result.earlyCallMainCpuMs === undefined ? '—' : fmt(result.earlyCallMainCpuMs)} | ${result.lateCallMainCpuMs === undefined ? '—' : fmt(result.lateCallMainCpuMs)} |`);
if (idleMs > 0) console.log(`first call after ${idleMs} ms idle: ${fmt(result.firstCallMs)} ms, server CPU ${fmt(result.firstCallCpuMs)} ms (main thread ${fmt(result.firstCallMainCpuMs)})`);
if (byPosition.length) {
  const opt = (x) => (x === undefined ? '—' : fmt(x));
  console.log('| warm call | median ms | median server CPU ms (10 ms ticks) | main thread CPU ms | all threads CPU ms |');
  console.log('| --- | --- | --- | --- | --- |');
  result.byPosition.forEach((p, i) => console.log(`| ${i + 1} | ${fmt(p.ms)} | ${opt(p.cpuMs)} | ${opt(p.mainCpuMs)} | ${opt(p.allCpuMs)} |`));
  const sum = (k, from, to) => result.byPosition.slice(from, to).reduce((a, p) => a + (p[k] ?? 0), 0);
  if (byPosition.length >= 10) console.log(`calls 1-10, sum of the medians: main thread ${fmt(sum('mainCpuMs', 0, 10))} ms, all threads ${fmt(sum('allCpuMs', 0, 10))} ms`);
}
for (const [name, t] of Object.entries(result.tools)) console.log(`${name}: ${t.calls} calls, p50 ${fmt(t.p50)} ms, p95 ${fmt(t.p95)} ms`);
if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
