#!/usr/bin/env node
// The language-model tools' calls in the host, without VS Code: a fresh process per run opens the store as the
// workspace's memory does (check aside) and loads the built-in model, both at once, then does what the host does when
// an index run has ended (IndexService.warmSearch: main's `Searcher.warm`, or since issue 42's host warm-up
// `ToolWarmUp.afterRun`), then makes --calls `agent_recall_search` calls (agentAnswers.ts's `searchForAgent`, its
// text included; through `ToolWarmUp.searching` where the build has it, as lmTools.ts calls it), one after another
// or after --idle / with --pause. Builds and runs alternate, so the machine's drift falls on all alike.
//   node test/bench/hostTools.mjs --builds MAIN,. --db MAIN_COPY.sqlite,THIS_COPY.sqlite --queries all81.jsonl
//        [--runs 4] [--calls 40] [--positions 10] [--idle MS] [--pause MS] [--json FILE]
// (each build after `tsc -p .` and `node esbuild.mjs`: the model is dist/models). Prints, per build, medians over the
// runs: the first answer from the process's start (a call made at once), the calls' p50 / p95 (all calls pooled),
// each of the first --positions calls' elapsed and CPU (the process's, all threads: process.cpuUsage, V8's compiler
// threads and SQLite's with it) by its place, the sum over calls 1-10, the later half's CPU a call, and what the
// warm-up cost before the first call (its CPU, and the event loop's longest delay then: what the extension host's
// other extensions would wait for, on a loaded machine the queue for a core as well; and the longest hold in the main
// thread's own CPU, which is not). And what the slowest calls (those at or above the p95) were: their elapsed time, the
// main thread's CPU within them (/proc schedstat: what the call itself ran) and how many met a collection (V8's
// `gc` entries during the call), against the other calls': a slow call with little CPU of its own waited for a core.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineFacts, median, quantile } from './lib.mjs';

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: '.' },
    db: { type: 'string' },
    queries: { type: 'string' },
    runs: { type: 'string', default: '4' },
    calls: { type: 'string', default: '40' },
    positions: { type: 'string', default: '10' },
    idle: { type: 'string', default: '0' },
    pause: { type: 'string', default: '0' },
    offset: { type: 'string', default: '0' },
    json: { type: 'string' },
    child: { type: 'string' },
  },
});
if (!values.db || !values.queries) {
  console.error('usage: hostTools.mjs --builds A,B --db A.sqlite,B.sqlite --queries Q.jsonl [--runs 4] [--calls 40] [--positions 10] [--idle MS] [--pause MS] [--json FILE]');
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

if (values.child) {
  const build = resolve(values.child);
  const requireOut = createRequire(join(build, 'out/src/'));
  const { Memory } = requireOut('./core/memory.js');
  const { openEmbedder } = requireOut('./core/embed/openEmbedder.js');
  let searchForAgent;
  let ToolWarmUp;
  if (existsSync(join(build, 'out/src/host/toolWarmUp.js'))) {
    ({ searchForAgent } = requireOut('./host/agentAnswers.js'));
    ({ ToolWarmUp } = requireOut('./host/toolWarmUp.js'));
  } else {
    // an earlier build: the tools' answer lies in lmTools.ts beside their registration, which needs VS Code's module
    // only to register (never called here)
    const resolveFilename = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      return request === 'vscode' ? 'vscode' : resolveFilename.call(this, request, ...rest);
    };
    require_cache_vscode(Module);
    ({ searchForAgent } = requireOut('./host/lmTools.js'));
  }
  const queries = readFileSync(values.queries, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query);
  const [memory, embedding] = await Promise.all([Memory.open(values.db, { check: 'background' }), openEmbedder('built-in')]);
  const openedMs = performance.now();
  const source = { memory: async () => memory, embedding: async () => embedding };
  // what the host does once an index run has ended (not awaited there)
  const idleLoop = monitorEventLoopDelay({ resolution: 5 });
  idleLoop.enable();
  const held = loopHolds();
  const warmCpuAt = cpuNow();
  let warmUp;
  let warming;
  if (ToolWarmUp) {
    warmUp = new ToolWarmUp(source);
    warming = warmUp.afterRun().then(() => warmUp.start());
  } else {
    warming = memory.searcher(embedding).warm().then(() => undefined);
  }
  let warmedAt;
  let searches;
  void warming.then((n) => {
    warmedAt = performance.now();
    searches = n;
  });
  const idleMs = Number(values.idle);
  if (idleMs > 0) await sleep(idleMs);
  idleLoop.disable();
  const idleHoldMs = held.stop();
  const warmUpCpuMs = cpuNow() - warmCpuAt;
  const callLoop = monitorEventLoopDelay({ resolution: 5 });
  callLoop.enable();
  // the collections during the calls (minor: scavenges; major: mark-compact), elapsed ms each
  const collections = [];
  const gcSeen = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push({ at: e.startTime, ms: e.duration, major: (e.detail?.kind ?? e.kind) !== 1 });
  });
  gcSeen.observe({ entryTypes: ['gc'] });
  // since the host's searches share IndexService.searching, the tools' answer is given the memory and the model
  const ask = (query) => (searchForAgent.length >= 3 ? searchForAgent(memory, embedding, { query }) : searchForAgent(source, { query }));
  const calls = [];
  let firstAnswerMs;
  const offset = Number(values.offset);
  for (let c = 0; c < Number(values.calls); c++) {
    if (c > 0 && Number(values.pause) > 0) await sleep(Number(values.pause));
    const query = queries[(offset + c) % queries.length];
    const [t0, cpu0, main0] = [performance.now(), cpuNow(), mainCpu()];
    const text = await (warmUp ? warmUp.searching(() => ask(query)) : ask(query));
    const [t1, cpu1, main1] = [performance.now(), cpuNow(), mainCpu()];
    if (c === 0) firstAnswerMs = t1;
    if (typeof text !== 'string' || !text) throw new Error(`no answer to ${query}`);
    calls.push({ ms: t1 - t0, cpuMs: cpu1 - cpu0, mainCpuMs: main1 - main0, t0, t1 });
  }
  callLoop.disable();
  // entries arrive after their collection: a turn of the event loop later
  await sleep(0);
  gcSeen.disconnect();
  for (const call of calls) {
    const met = collections.filter((g) => g.at < call.t1 && g.at + g.ms > call.t0);
    call.gcMs = met.reduce((a, g) => a + g.ms, 0);
    call.gcs = met.length;
    call.majorGcs = met.filter((g) => g.major).length;
    delete call.t0;
    delete call.t1;
  }
  await Promise.race([warming, sleep(50)]);
  await warmUp?.stop();
  await memory.close();
  console.log(
    JSON.stringify({
      openedMs,
      firstAnswerMs,
      warmUpCpuMs,
      warmedMs: warmedAt === undefined ? undefined : warmedAt - openedMs,
      warmUpSearches: searches,
      idleLoopMaxMs: idleMs > 0 ? idleLoop.max / 1e6 : undefined,
      idleHoldMs: idleMs > 0 ? idleHoldMs : undefined,
      callLoopMaxMs: callLoop.max / 1e6,
      calls,
    }),
  );
  process.exit(0);
}

/** The main thread's CPU time so far, ms, to the nanosecond (Linux's schedstat). */
function mainCpu() {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/**
 * The longest the event loop was held between two turns of a 5 ms timer, in the main thread's own CPU (Linux's
 * schedstat, ns; a bound on the longest task, since several may run between two turns): unlike the timer's lateness,
 * not the time spent waiting for a core on a loaded machine. `stop` returns it, ms.
 */
function loopHolds() {
  let last = mainCpu();
  let max = 0;
  const timer = setInterval(() => {
    const now = mainCpu();
    max = Math.max(max, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, mainCpu() - last);
    },
  };
}

/** VS Code's module for an earlier build's lmTools.js: its top level reads nothing of it. */
function require_cache_vscode(M) {
  const m = new M('vscode');
  m.filename = 'vscode';
  m.loaded = true;
  m.exports = {};
  M._cache.vscode = m;
}

const builds = values.builds.split(',').map((b) => resolve(b));
const dbs = values.db.split(',');
if (dbs.length !== builds.length) throw new Error('one store per build (each build its own copy)');
const runs = Number(values.runs);
const positions = Number(values.positions);
const byBuild = builds.map(() => []);
for (let r = 0; r < runs; r++) {
  const order = builds.map((_, i) => i);
  if (r % 2) order.reverse();
  for (const i of order) {
    const args = [fileURLToPath(import.meta.url), '--child', builds[i], '--db', dbs[i], '--queries', values.queries, '--calls', values.calls, '--idle', values.idle, '--pause', values.pause, '--offset', String(r * 7)];
    const p = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(p.stderr);
    const run = { ...JSON.parse(p.stdout.trim().split('\n').pop()), peakRssMb: Number(p.stderr.trim().split('\n').pop()) / 1024 };
    byBuild[i].push(run);
    const ten = run.calls.slice(0, 10).reduce((a, c) => a + c.cpuMs, 0);
    console.error(`[run ${r + 1}/${runs}] ${builds[i]}: first answer ${run.firstAnswerMs.toFixed(0)} ms, calls 1-10 CPU ${ten.toFixed(0)} ms, warm-up CPU ${run.warmUpCpuMs.toFixed(0)} ms`);
  }
}

const facts = machineFacts();
const fmt = (x) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));
const summary = builds.map((build, i) => {
  const rs = byBuild[i];
  const all = rs.flatMap((r) => r.calls.map((c) => c.ms));
  const half = Math.floor(Number(values.calls) / 2);
  return {
    build,
    db: dbs[i],
    runs: rs.length,
    firstAnswerMs: median(rs.map((r) => r.firstAnswerMs)),
    p50: quantile(all, 0.5),
    p95: quantile(all, 0.95),
    calls1to10CpuMs: rs.map((r) => r.calls.slice(0, 10).reduce((a, c) => a + c.cpuMs, 0)),
    laterCpuMsPerCall: median(rs.map((r) => r.calls.slice(half).reduce((a, c) => a + c.cpuMs, 0) / (r.calls.length - half))),
    warmUpCpuMs: rs.map((r) => r.warmUpCpuMs),
    warmUpSearches: rs[0]?.warmUpSearches,
    idleLoopMaxMs: rs.map((r) => r.idleLoopMaxMs),
    idleHoldMs: rs.map((r) => r.idleHoldMs),
    callLoopMaxMs: rs.map((r) => r.callLoopMaxMs),
    peakRssMb: median(rs.map((r) => r.peakRssMb)),
    slowest: slowestCalls(rs.flatMap((r) => r.calls)),
    byPosition: Array.from({ length: positions }, (_, c) => ({ ms: median(rs.map((r) => r.calls[c].ms)), cpuMs: median(rs.map((r) => r.calls[c].cpuMs)), mainCpuMs: median(rs.map((r) => r.calls[c].mainCpuMs)) })),
    runsDetail: rs,
  };
});
console.log(`The language-model tools' calls, in process, ${facts.cores} cores (${facts.cpu}), node ${facts.node}, ${facts.date}, load ${facts.load ?? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${runs} runs a build, ${values.calls} calls each, idle ${values.idle} ms, pause ${values.pause} ms`);
console.log('| build | first answer ms | p50 ms | p95 ms | calls 1-10 CPU ms (each run) | later half CPU ms a call | warm-up CPU before the first call ms | loop delay max, idle ; calls ms | longest hold of the loop before the first call, main thread CPU ms | peak RSS MB |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const s of summary) {
  console.log(
    `| ${s.build} | ${fmt(s.firstAnswerMs)} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${s.calls1to10CpuMs.map((x) => x.toFixed(0)).join(' / ')} | ${fmt(s.laterCpuMsPerCall)} | ${s.warmUpCpuMs.map((x) => x.toFixed(0)).join(' / ')} | ${s.idleLoopMaxMs.map((x) => (x === undefined ? '—' : x.toFixed(0))).join(' / ')} ; ${s.callLoopMaxMs.map((x) => x.toFixed(0)).join(' / ')} | ${s.idleHoldMs.map((x) => (x === undefined ? '—' : x.toFixed(1))).join(' / ')} | ${fmt(s.peakRssMb)} |`,
  );
}
console.log('| build | calls at or above the p95 | their ms (median) | their main thread CPU ms (median) | of them, met a collection | the other calls: ms, main thread CPU ms (medians), met a collection |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const s of summary) {
  const { slow, rest } = s.slowest;
  console.log(`| ${s.build} | ${slow.n} | ${fmt(slow.ms)} | ${fmt(slow.mainCpuMs)} | ${slow.gcs} (major ${slow.majorGcs}) | ${fmt(rest.ms)}, ${fmt(rest.mainCpuMs)}, ${rest.gcs} of ${rest.n} |`);
}
if (positions > 0) {
  console.log(`| call | ${summary.map((s) => `${s.build} ms | CPU ms | main thread CPU ms`).join(' | ')} |`);
  console.log(`| --- | ${summary.map(() => '--- | --- | ---').join(' | ')} |`);
  for (let c = 0; c < positions; c++) console.log(`| ${c + 1} | ${summary.map((s) => `${fmt(s.byPosition[c].ms)} | ${fmt(s.byPosition[c].cpuMs)} | ${fmt(s.byPosition[c].mainCpuMs)}`).join(' | ')} |`);
  const sum = (s, k) => fmt(s.byPosition.slice(0, 10).reduce((a, p) => a + p[k], 0));
  console.log(`| 1-10, sum of the medians | ${summary.map((s) => `${sum(s, 'ms')} | ${sum(s, 'cpuMs')} | ${sum(s, 'mainCpuMs')}`).join(' | ')} |`);
}
/** The calls at or above the p95 of elapsed time against the others: medians of elapsed and main-thread CPU, how many met a collection. */
function slowestCalls(calls) {
  const line = quantile(calls.map((c) => c.ms), 0.95);
  const of = (cs) => ({
    n: cs.length,
    ms: median(cs.map((c) => c.ms)),
    mainCpuMs: median(cs.map((c) => c.mainCpuMs)),
    gcs: cs.filter((c) => c.gcs > 0).length,
    majorGcs: cs.filter((c) => c.majorGcs > 0).length,
  });
  return { slow: of(calls.filter((c) => c.ms >= line)), rest: of(calls.filter((c) => c.ms < line)) };
}

if (values.json) writeFileSync(values.json, JSON.stringify({ machine: facts, summary }, null, 2));
