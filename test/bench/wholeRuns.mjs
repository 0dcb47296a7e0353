#!/usr/bin/env node
// Whole index runs on a store already indexed, in one process as the extension runs them (issue 41): first one with
// nothing changed (the process's first: its discovery reads every head), then one after an exchange is appended to a
// Claude Code session of its own folder, then one more. Prints one JSON line per run: when the new exchange was
// searchable (the first progress past the parse stage), the run's elapsed and CPU time (all threads), its stages,
// the event loop's longest gap and the longest this thread ran in one (Linux: /proc schedstat, as indexRun.mjs
// --thread-cpu), and each gap in which this thread ran 30 ms or more (`holds`: [ms it ran, the gap's wall ms, the
// stage]). The build's out/ reads the word lists and the tokenizer's table from its dist/vendor/ copies, as the
// extension's bundle does (lib.mjs asBundle). Copy the store first: the runs write to it (and a newer build migrates
// it).
//
//   node test/bench/wholeRuns.mjs --build DIR --db STORE --corpus DIR --app DIR [--profile FILE.cpuprofile]
//     [--profile-first FILE.cpuprofile] [--first-only]
//
// --app: the session's folder, indexed with the corpus. The first time it does not exist it is made with one
// exchange, so index the store with it (a run of this script on an empty store does: its first run is the whole
// index); later, put back the session file as it was when the store was made (`cp -p`), so its first run finds
// nothing changed. --profile: a CPU profile of this thread during the second run (one exchange appended).
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { asBundle } from './lib.mjs';

const { values } = parseArgs({
  options: { build: { type: 'string' }, db: { type: 'string' }, corpus: { type: 'string' }, app: { type: 'string' }, profile: { type: 'string' }, 'profile-first': { type: 'string' }, 'first-only': { type: 'boolean' } },
});
const require = createRequire(import.meta.url);
const build = resolve(values.build);
asBundle(build);
const { Memory } = require(join(build, 'out/src/core/memory.js'));
const { openEmbedder } = require(join(build, 'out/src/core/embed/openEmbedder.js'));
const appRoot = resolve(values.app);
const session = join(appRoot, 'projects', 'p', '0a0a0a0a-0000-4000-8000-000000000000.jsonl');
let ply = existsSync(session) ? readFileSync(session, 'utf8').trim().split('\n').length : 0;
/** One exchange of two records, as indexRun.mjs --append writes it. */
const exchange = (word) => {
  const record = (type, message) => {
    ply++;
    const uuid = `0a0a0a0a-0000-4000-8000-${String(ply).padStart(12, '0')}`;
    const parentUuid = ply > 1 ? `0a0a0a0a-0000-4000-8000-${String(ply - 1).padStart(12, '0')}` : null;
    return JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd: appRoot, sessionId: '0a0a0a0a-0000-4000-8000-000000000000', version: '2.1.12', type, message, uuid, timestamp: new Date(Date.UTC(2026, 0, 1, 0, ply)).toISOString() });
  };
  return `${record('user', { role: 'user', content: `Why does the ${word} cache lose entries after a restart?` })}\n${record('assistant', {
    model: 'claude', id: `msg_${ply}`, type: 'message', role: 'assistant',
    content: [{ type: 'text', text: `The ${word} cache is kept in memory only; writing it to disk on shutdown and reading it back on start keeps its entries.` }],
  })}\n`;
};
if (!existsSync(session)) {
  mkdirSync(join(appRoot, 'projects', 'p'), { recursive: true });
  writeFileSync(session, exchange('zebrafinch'));
}
const store = await Memory.open(resolve(values.db));
const { embedder } = await openEmbedder('built-in');
const indexOptions = {
  discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [resolve(values.corpus), appRoot], includeSubagents: true },
  segment: { minChars: 100, maxPlies: 20 },
  embed: { embedder },
};

// the event loop's gaps, and the CPU this thread ran in each (Linux)
const statFile = `/proc/self/task/${process.pid}/schedstat`;
const threadMs = () => (existsSync(statFile) ? Number(readFileSync(statFile, 'utf8').split(' ')[0]) / 1e6 : 0);
let last = performance.now();
let lastRan = threadMs();
let watching = false;
let phase = '';
let gaps = { longestMs: 0, over50: 0, longestRanMs: 0, ranIn: '', holds: [] };
const ticker = setInterval(() => {
  const now = performance.now();
  const t = threadMs();
  if (watching) {
    gaps.longestMs = Math.max(gaps.longestMs, Math.round(now - last));
    if (now - last > 50) gaps.over50++;
    if (t - lastRan > gaps.longestRanMs) gaps = { ...gaps, longestRanMs: Math.round(t - lastRan), ranIn: phase };
    if (t - lastRan >= 30) gaps.holds.push([Math.round(t - lastRan), Math.round(now - last), phase]);
  }
  last = now;
  lastRan = t;
}, 1);

const run = async (label, word, profile) => {
  if (word) appendFileSync(session, exchange(word));
  const prof = profile ? new Session() : undefined;
  if (prof) {
    prof.connect();
    await prof.post('Profiler.enable');
    await prof.post('Profiler.start');
  }
  gaps = { longestMs: 0, over50: 0, longestRanMs: 0, ranIn: '', holds: [] };
  phase = 'discover';
  watching = true;
  last = performance.now();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let searchableMs;
  const r = await store.index(indexOptions, (p) => {
    phase = p.phase;
    if (p.phase !== 'discover' && p.phase !== 'parse' && searchableMs === undefined) searchableMs = performance.now() - t0;
  });
  const runMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  watching = false;
  if (prof) {
    writeFileSync(profile, JSON.stringify((await prof.post('Profiler.stop')).profile));
    prof.disconnect();
  }
  const found = word ? (await store.search({ text: word, mode: 'verbatim/bm25', limit: 3 })).hits.length : undefined;
  const stages = Object.fromEntries(Object.entries(r.stages).map(([k, v]) => [k, [v.ms, v.cpuMs]]));
  console.log(JSON.stringify({
    label, searchableMs: Math.round(searchableMs ?? runMs), runMs: Math.round(runMs), cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    sources: r.sources, parsed: r.parsed, found, stages, gaps,
  }));
};
await run('whole, nothing changed', undefined, values['profile-first']);
if (!values['first-only']) {
  await run('whole, one appended', 'quokkaberry', values.profile);
  await run('whole, one more appended', 'marmosetplum');
}
clearInterval(ticker);
await embedder.dispose();
await store.close();
