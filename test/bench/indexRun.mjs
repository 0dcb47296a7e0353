#!/usr/bin/env node
// One first index of a folder of transcripts through a build's core (its out/, compiled by tsc), as the extension
// runs it (Memory.index: parse, segment, store, token counts, offline distillation, built-in embedding), timed stage
// by stage. Prints one JSON line. Used by indexStages.mjs; runs any build that has the same front door, so a build
// from before issue 41 is timed the same way:
//   node test/bench/indexRun.mjs --build DIR --corpus DIR --db FILE [--threads N] [--append] [--thread-cpu] [--cli]
//     [--holds FILE [--hold-ms 30]]
// With --cli, the process is the command line's `index`: V8's flags as it sets them (src/processFlags.ts; a build
// before that module: its heaps' flag alone, core/heap.ts keepHeapsSmall, as its command line set) and its heap
// collected after the parse stage (IndexOptions.collectAfterParse).
// Stages are the progress phases the run reports (discover, parse, tokens, distill, embed), each with its elapsed
// time and the process's CPU time (all threads). The event loop's longest stall is the longest gap between the
// ticks of a 1 ms timer on the thread that runs the index, while it runs, as test/bench/liveWatch.mjs measures a
// watch's. On a busy machine a gap is also time the thread waited for a core: indexStages.mjs runs an idle ticker
// beside it for comparison. With --append, a Claude Code session of one exchange in a folder of its own is indexed
// with the corpus; then one exchange is appended to it and the same index runs again: how long until the new
// exchange is searchable (the run's parse stage: it is written there) and what that run read. With --thread-cpu
// (Linux), each gap also counts the CPU time this thread itself ran in it (the kernel's figure in /proc, read at
// every tick): the longest of those is what the run's own tasks hold the loop, whatever the machine's load adds.
// With --holds FILE (implies --thread-cpu), this thread is CPU-profiled while the index runs (V8's sampler, every
// 0.5 ms) and each gap in which the thread ran --hold-ms or more is written to FILE with its stage and what the
// profile's samples in that gap were running: the innermost frames of the build's own code, counted (the profiler
// costs the thread a few per cent: take the figures of a run without it).
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    build: { type: 'string' }, corpus: { type: 'string' }, db: { type: 'string' }, threads: { type: 'string' }, append: { type: 'boolean' },
    'thread-cpu': { type: 'boolean' }, apart: { type: 'boolean' }, cli: { type: 'boolean' }, holds: { type: 'string' }, survivors: { type: 'string' }, 'hold-ms': { type: 'string', default: '30' },
  },
});
const build = resolve(values.build);
const require = createRequire(import.meta.url);
const { Memory } = require(join(build, 'out/src/core/memory.js'));
const { openEmbedder } = require(join(build, 'out/src/core/embed/openEmbedder.js'));

// the event loop's stalls while the index runs (not while the process loads its code and the embedding model)
let last = performance.now();
let longestStall = 0;
let stalls = 0;
let watching = false;
// --thread-cpu: this thread's CPU ms so far (schedstat's first field: ns on the CPU), at the last tick
const threadStat = values['thread-cpu'] || values.holds ? `/proc/self/task/${process.pid}/schedstat` : undefined;
const threadMs = () => Number(readFileSync(threadStat, 'utf8').split(' ')[0]) / 1e6;
let lastRan = threadStat ? threadMs() : 0;
let longestRan = 0;
// --holds: the gaps in which this thread ran --hold-ms or more, with their ends on the profiler's clock (µs)
const holds = [];
const holdMs = Number(values['hold-ms']);
let lastUs = Number(process.hrtime.bigint() / 1000n);
// where the stalls and the memory are: each stage's longest stall and stalls over 50 ms, and the process's peak
// resident memory (all threads) with this thread's heap at that moment, sampled every 100 ms
const stallsBy = {};
const memory = { peakRssMb: 0, phase: '', heapMb: 0, externalMb: 0 };
const peakRssBy = {};
let sampled = 0;
const ticker = setInterval(() => {
  const now = performance.now();
  const gap = now - last;
  const ran = threadStat ? threadMs() - lastRan : 0;
  if (threadStat) lastRan += ran;
  if (watching) {
    longestStall = Math.max(longestStall, gap);
    if (gap > 50) stalls++;
    const s = (stallsBy[phase] ??= { longestMs: 0, over50: 0, ...(threadStat ? { longestRanMs: 0 } : {}) });
    s.longestMs = Math.max(s.longestMs, Math.round(gap));
    if (gap > 50) s.over50++;
    if (values.holds) {
      const us = Number(process.hrtime.bigint() / 1000n);
      if (ran >= holdMs) holds.push({ phase, atMs: Math.round(now - started), gapMs: Math.round(gap), ranMs: Math.round(ran), fromUs: lastUs, toUs: us });
      lastUs = us;
    }
    if (threadStat) {
      longestRan = Math.max(longestRan, ran);
      s.longestRanMs = Math.max(s.longestRanMs, Math.round(ran));
    }
    if (now - sampled > 100) {
      sampled = now;
      const m = process.memoryUsage();
      peakRssBy[phase] = Math.max(peakRssBy[phase] ?? 0, Math.round(m.rss / 2 ** 20));
      if (m.rss / 2 ** 20 > memory.peakRssMb) {
        Object.assign(memory, { peakRssMb: Math.round(m.rss / 2 ** 20), phase, heapMb: Math.round(m.heapUsed / 2 ** 20), externalMb: Math.round(m.external / 2 ** 20) });
        // on Linux: how much of it is mapped files (the store read through SQLite's memory map) and how much the heaps'
        const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
        const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
        Object.assign(memory, { anonMb: Math.round(kb('RssAnon') / 1024), fileMb: Math.round(kb('RssFile') / 1024) });
      }
    }
  }
  last = now;
}, 1);

const started = performance.now();
const stages = {};
let phase = 'open';
let at = performance.now();
let cpu = process.cpuUsage();
// --survivors: each stage's sample (the sampler stopped and started again at each stage's end)
const survivorsBy = {};
let sampling = Promise.resolve();
const lap = (next) => {
  if (heapSampler && phase !== 'open') {
    const ended = phase;
    sampling = sampling
      .then(() => heapSampler.post('HeapProfiler.stopSampling'))
      .then(({ profile }) => {
        survivorsBy[ended] = survivorStacks(profile);
        return heapSampler.post('HeapProfiler.startSampling', SAMPLING);
      });
  }
  const used = process.cpuUsage(cpu);
  const s = (stages[phase] ??= { ms: 0, cpuMs: 0 });
  s.ms += performance.now() - at;
  s.cpuMs += (used.user + used.system) / 1000;
  phase = next;
  at = performance.now();
  cpu = process.cpuUsage();
};

if (values.cli) {
  const flags = join(build, 'out/src/processFlags.js');
  if (existsSync(flags)) require(flags).setIndexFlags();
  else require(join(build, 'out/src/core/heap.js')).keepHeapsSmall();
}
const store = await Memory.open(values.db);
const { embedder, notice } = await openEmbedder('built-in');
if (!embedder) throw new Error(`no built-in model: ${notice}`);
// the session an exchange is appended to (--append)
const appendRoot = values.append ? mkdtempSync(join(tmpdir(), 'agent-recall-append-')) : undefined;
const session = appendRoot ? join(appendRoot, 'projects', 'p', '0a0a0a0a-0000-4000-8000-000000000000.jsonl') : undefined;
let ply = 0;
const exchange = (word) => {
  const record = (type, message) => {
    ply++;
    const uuid = `0a0a0a0a-0000-4000-8000-${String(ply).padStart(12, '0')}`;
    const parentUuid = ply > 1 ? `0a0a0a0a-0000-4000-8000-${String(ply - 1).padStart(12, '0')}` : null;
    return JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd: appendRoot, sessionId: '0a0a0a0a-0000-4000-8000-000000000000', version: '2.1.12', type, message, uuid, timestamp: new Date(Date.UTC(2026, 0, 1, 0, ply)).toISOString() });
  };
  return `${record('user', { role: 'user', content: `Why does the ${word} cache lose entries after a restart?` })}\n${record('assistant', {
    model: 'claude', id: `msg_${ply}`, type: 'message', role: 'assistant',
    content: [{ type: 'text', text: `The ${word} cache is kept in memory only; writing it to disk on shutdown and reading it back on start keeps its entries.` }],
  })}\n`;
};
if (session) {
  mkdirSync(join(appendRoot, 'projects', 'p'), { recursive: true });
  writeFileSync(session, exchange('zebrafinch'));
}
const roots = [resolve(values.corpus), ...(appendRoot ? [appendRoot] : [])];
const indexOptions = {
  discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: roots, includeSubagents: true },
  segment: { minChars: 100, maxPlies: 20 },
  embed: { embedder },
  ...(values.threads !== undefined ? { parallel: { threads: Number(values.threads) } } : {}),
  ...(values.cli ? { collectAfterParse: true } : {}),
  // --apart: the first index on a thread of its own, as the extension host's (a build without it runs here), from the
  // bundle the extension starts (dist/runWorker.js), not tsc's modules
  ...(values.apart ? { apart: true, parallel: { ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}), runScript: join(build, 'dist/runWorker.js') } } : {}),
};
// V8's sampling profiler on this thread: its timestamps are the monotonic clock's, as process.hrtime's
let profiler;
if (values.holds) {
  const { Session } = await import('node:inspector/promises');
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 500 });
  await profiler.post('Profiler.start');
}
// --survivors: V8's sampling heap profiler, keeping the samples of objects that lived through a young collection
let heapSampler;
const SAMPLING = { samplingInterval: 64 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false };
if (values.survivors) {
  const { Session } = await import('node:inspector/promises');
  heapSampler = new Session();
  heapSampler.connect();
  await heapSampler.post('HeapProfiler.startSampling', SAMPLING);
}
lap('discover');
watching = true;
lastUs = Number(process.hrtime.bigint() / 1000n);
last = performance.now();
if (threadStat) lastRan = threadMs();
const report = await store.index(indexOptions, (p) => {
  if (p.phase !== phase) lap(p.phase);
});
watching = false;
lap('done');
if (heapSampler) {
  await sampling;
  await heapSampler.post('HeapProfiler.stopSampling');
  heapSampler.disconnect();
  writeFileSync(values.survivors, JSON.stringify(survivorsBy, null, 1));
}
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  writeFileSync(values.holds, JSON.stringify({ holdMs, holds: explainHolds(profile, holds) }, null, 1));
}
let appended;
/** Appends an exchange holding `word` and runs the index again (with `sources`: only those, as live indexing does). */
const appendAndRun = async (word, sources) => {
  appendFileSync(session, exchange(word));
  const t0 = performance.now();
  let searchableMs;
  // runs after the first index (a whole one, a live one with its `sources`) stay on the calling thread, as the extension host's
  const again = await store.index({ ...indexOptions, apart: false, ...(sources ? { sources } : {}) }, (p) => {
    if (p.phase !== 'discover' && p.phase !== 'parse' && searchableMs === undefined) searchableMs = performance.now() - t0;
  });
  const runMs = performance.now() - t0;
  const found = (await store.search({ text: word, mode: 'verbatim/bm25', limit: 3 })).hits.length;
  return { searchableMs: Math.round(searchableMs ?? runMs), runMs: Math.round(runMs), parsed: again.parsed, unchanged: again.unchanged, bytesRead: again.bytesParsed, found };
};
let live;
if (session) {
  appended = await appendAndRun('quokkaberry');
  live = await appendAndRun('marmosetplum', report.discovered.filter((s) => s.path === session));
  rmSync(appendRoot, { recursive: true, force: true });
}
const stats = await store.stats();
await embedder.dispose();
await store.close();
clearInterval(ticker);
const storeBytes = ['', '-wal'].reduce((sum, s) => sum + (existsSync(values.db + s) ? statSync(values.db + s).size : 0), 0);
const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { ms: Math.round(v.ms), cpuMs: Math.round(v.cpuMs) }]));
console.log(
  JSON.stringify({
    wallMs: Math.round(performance.now() - started),
    stages: round(stages),
    exchanges: stats.exchanges,
    distilled: stats.distilled,
    tokensPending: stats.tokensPending,
    bytesParsed: report.bytesParsed,
    failed: report.failed.length,
    storeBytes,
    longestStallMs: Math.round(longestStall),
    stallsOver50Ms: stalls,
    ...(threadStat ? { longestRanMs: Math.round(longestRan) } : {}),
    stallsByStage: stallsBy,
    memory: { ...memory, peakRssMbByStage: peakRssBy },
    ...(appended ? { appended, live } : {}),
  }),
);

/**
 * Each hold with the profile's samples inside it: per sample, the innermost frames of the build's own code (up to
 * four, innermost first, with the frame under them when that is the engine's or a package's), counted; the most
 * frequent first. A sample in no code of the build (the collector, the driver's C++) says so by its leaf.
 */
function explainHolds(profile, found) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (f) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/out\//, '').replace(/^.*node_modules\//, '')}:${f.lineNumber + 1}`;
  const own = (f) => f.url.includes(`${build}/out/`);
  const times = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));
  return found.map((h) => {
    const stacks = new Map();
    let samples = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      if (times[i] < h.fromUs || times[i] > h.toUs) continue;
      samples++;
      const leaf = nodes.get(profile.samples[i]).callFrame;
      const frames = [];
      for (let id = profile.samples[i]; id !== undefined && frames.length < 4; id = parent.get(id)) {
        const f = nodes.get(id).callFrame;
        if (own(f)) frames.push(name(f));
      }
      const key = `${own(leaf) ? '' : `[${name(leaf)}] `}${frames.join(' < ') || '(no frame of the build)'}`;
      stacks.set(key, (stacks.get(key) ?? 0) + 1);
    }
    const top = [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([stack, n]) => ({ n, stack }));
    const { fromUs, toUs, ...rest } = h;
    return { ...rest, samples, top };
  });
}

/** The sampled survivors' bytes by the innermost four frames of their allocation, largest first. */
function survivorStacks(profile) {
  const by = new Map();
  const walk = (node, stack) => {
    const f = node.callFrame;
    const here = [`${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/out\//, '').replace(/^.*node_modules\//, '')}:${f.lineNumber + 1}`, ...stack].slice(0, 5);
    if (node.selfSize > 0) by.set(here.join(' < '), (by.get(here.join(' < ')) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c, here);
  };
  walk(profile.head, []);
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([stack, bytes]) => ({ mb: Math.round(bytes / 2 ** 20), stack }));
}
