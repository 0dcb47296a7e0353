#!/usr/bin/env node
// Where a first index's memory is, sampled every 100 ms while it runs through a build's core (its out/, compiled by
// tsc), as indexRun.mjs runs it (no embedding unless --embed). Each sample: the process's RSS split into anonymous
// memory and mapped files (/proc/self/status, Linux), the run thread's V8 heap (physical and used), its external
// memory, each index worker's heap (each worker reports its own over a BroadcastChannel: the Worker class is wrapped
// before the build is loaded), and `rest`: anonymous memory that is none of those heaps (SQLite, the threads'
// allocators, each thread's native part). Prints one JSON line: the run's peak sample and each stage's, and per
// stage the median / 90th percentile / maximum of each figure. --trace FILE writes every sample (JSON lines).
// --cli-heaps: the heaps grow as the command line's `index` lets them (core/heap.ts keepHeapsSmall), not as V8 chooses,
// and the run collects its heap after the parse stage as the command line's does (IndexOptions.collectAfterParse).
//   node test/bench/indexMemory.mjs --build DIR --corpus DIR --db FILE [--embed] [--cli-heaps] [--trace FILE]
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import wt from 'node:worker_threads';

const { values } = parseArgs({ options: { build: { type: 'string' }, corpus: { type: 'string' }, db: { type: 'string' }, embed: { type: 'boolean' }, 'cli-heaps': { type: 'boolean' }, trace: { type: 'string' } } });
const build = resolve(values.build);
const require = createRequire(import.meta.url);

// each worker reports its heap every 100 ms; the map holds the last report of each live worker
const workers = new Map();
const Worker = wt.Worker;
let nextId = 0;
wt.Worker = class extends Worker {
  constructor(script, options) {
    const id = nextId++;
    const report = `const { BroadcastChannel } = require('node:worker_threads'); const v8 = require('node:v8');
      const channel = new BroadcastChannel('indexMemory'); channel.unref();
      setInterval(() => { const h = v8.getHeapStatistics(); channel.postMessage({ id: ${id}, heap: h.total_physical_size, used: h.used_heap_size }); }, 100).unref();
      require(${JSON.stringify(String(script))});`;
    super(report, { ...options, eval: true });
    this.once('exit', () => workers.delete(id));
  }
};
const channel = new wt.BroadcastChannel('indexMemory');
channel.onmessage = (e) => workers.set(e.data.id, e.data);
channel.unref();

const { Memory } = require(join(build, 'out/src/core/memory.js'));
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const kb = (status, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
let phase = 'open';
let watching = false;
let t0 = performance.now();
const samples = [];
const sampler = setInterval(() => {
  if (!watching) return;
  const status = readFileSync('/proc/self/status', 'utf8');
  const h = v8.getHeapStatistics();
  const ws = [...workers.values()];
  const s = {
    t: Math.round(performance.now() - t0),
    phase,
    rss: mb(process.memoryUsage.rss()),
    anon: Math.round(kb(status, 'RssAnon') / 1024),
    file: Math.round(kb(status, 'RssFile') / 1024),
    runHeap: mb(h.total_physical_size),
    runUsed: mb(h.used_heap_size),
    external: mb(h.external_memory ?? process.memoryUsage().external),
    workerHeaps: mb(ws.reduce((sum, w) => sum + w.heap, 0)),
    workerUsed: mb(ws.reduce((sum, w) => sum + w.used, 0)),
    workers: ws.map((w) => `${mb(w.heap)}/${mb(w.used)}`).join(' '),
  };
  s.rest = s.anon - s.runHeap - s.workerHeaps - s.external;
  samples.push(s);
}, 100);

if (values['cli-heaps']) require(join(build, 'out/src/core/heap.js')).keepHeapsSmall();
const memory = await Memory.open(values.db);
let embedder;
if (values.embed) {
  const { openEmbedder } = require(join(build, 'out/src/core/embed/openEmbedder.js'));
  embedder = (await openEmbedder('built-in')).embedder;
}
const cpu0 = process.cpuUsage();
t0 = performance.now();
watching = true;
await memory.index(
  {
    discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [resolve(values.corpus)], includeSubagents: true },
    segment: { minChars: 100, maxPlies: 20 },
    ...(values['cli-heaps'] ? { collectAfterParse: true } : {}),
    ...(embedder ? { embed: { embedder } } : {}),
  },
  (p) => {
    phase = p.phase;
  },
);
watching = false;
clearInterval(sampler);
const cpu = process.cpuUsage(cpu0);
const elapsedS = (performance.now() - t0) / 1000;
await embedder?.dispose();
await memory.close();
if (values.trace) writeFileSync(values.trace, samples.map((s) => JSON.stringify(s)).join('\n') + '\n');

const highest = (list) => list.reduce((a, b) => (b.rss > a.rss ? b : a), list[0]);
const spread = (list, field) => {
  const sorted = list.map((s) => s[field]).sort((a, b) => a - b);
  return [0.5, 0.9, 1].map((q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]).join('/');
};
const stages = {};
for (const name of new Set(samples.map((s) => s.phase))) {
  const list = samples.filter((s) => s.phase === name);
  stages[name] = { samples: list.length, peak: highest(list), p50p90max: Object.fromEntries(['rss', 'runHeap', 'runUsed', 'workerHeaps', 'workerUsed', 'rest'].map((f) => [f, spread(list, f)])) };
}
console.log(JSON.stringify({ elapsedS: +elapsedS.toFixed(1), cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(1), peak: highest(samples), stages }));
