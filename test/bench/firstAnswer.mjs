#!/usr/bin/env node
// The language-model tools' first answer in the host, without VS Code: what `agent_recall_search` waits for in a
// fresh extension host (lmTools.ts: the workspace's memory opened as WorkspaceMemory opens it, the built-in model
// loaded as EmbedderService loads it, both at once, then the search and the listings it shows), each run a fresh
// process, timed from the process's start. Runs alternate the two ways of opening, so the machine's drift falls
// on both alike; prints the medians (elapsed and CPU of the whole process, peak RSS) of each.
//   node test/bench/firstAnswer.mjs --db STORE.sqlite [--runs 5] [--query WORDS] [--checks full,background] [--json FILE]
// (after `tsc -p .` and `node esbuild.mjs`, whose dist/models holds the built-in model). `full`: every page checked
// before the store is used (Store.open before issue 42's background check, and still the command line's);
// `background`: the check aside (store/pageCheck.ts), as the host opens now.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineFacts, median } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    runs: { type: 'string', default: '5' },
    query: { type: 'string', default: 'why does the build fail after the dependency update' },
    checks: { type: 'string', default: 'full,background' },
    json: { type: 'string' },
    child: { type: 'string' },
  },
});
if (!values.db) throw new Error('usage: node test/bench/firstAnswer.mjs --db STORE.sqlite [--runs 5] [--checks full,background] [--json FILE]');

if (values.child) {
  const started = performance.now();
  const requireOut = createRequire(new URL('../../out/src/', import.meta.url));
  const { Memory } = requireOut('./core/memory.js');
  const { openEmbedder } = requireOut('./core/embed/openEmbedder.js');
  // the host has its bundle loaded when a tool is first called: what follows is what it waits for
  const loaded = performance.now() - started;
  const [memory, embedding] = await Promise.all([Memory.open(values.db, { check: values.child }), openEmbedder('built-in')]);
  const opened = performance.now() - started;
  const result = await memory.search({ text: values.query, limit: 8 }, embedding);
  await memory.listings(result.hits.map((h) => h.exchangeId));
  const answered = performance.now() - started;
  const hits = result.hits.length;
  // the check aside, to its end: what it costs the process
  await memory.verified();
  const verified = performance.now() - started;
  const cpu = process.cpuUsage();
  await memory.close();
  console.log(JSON.stringify({ check: values.child, loadedMs: loaded, openedMs: opened, firstAnswerMs: answered, verifiedMs: verified, hits, cpuMs: (cpu.user + cpu.system) / 1000 }));
  process.exit(0);
}

const checks = values.checks.split(',');
const runs = [];
for (let i = 0; i < Number(values.runs); i++) {
  // alternate which way goes first in each pair
  for (const check of i % 2 ? [...checks].reverse() : checks) {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, fileURLToPath(import.meta.url), '--db', values.db, '--query', values.query, '--child', check], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    const run = { ...JSON.parse(r.stdout.trim().split('\n').pop()), peakRssMb: Number(r.stderr.trim().split('\n').pop()) / 1024 };
    runs.push(run);
    console.error(JSON.stringify(run));
  }
}
const result = {
  machine: machineFacts(),
  db: values.db,
  runs,
  medians: Object.fromEntries(
    checks.map((check) => {
      const of = runs.filter((r) => r.check === check);
      return [check, Object.fromEntries(['loadedMs', 'openedMs', 'firstAnswerMs', 'verifiedMs', 'cpuMs', 'peakRssMb'].map((k) => [k, median(of.map((r) => r[k]))]))];
    }),
  ),
};
console.log('| open | code loaded ms | store and model opened ms | first answer ms | every page checked ms | CPU ms | peak RSS MB |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const [check, m] of Object.entries(result.medians)) {
  console.log(`| ${check} | ${m.loadedMs.toFixed(0)} | ${m.openedMs.toFixed(0)} | ${m.firstAnswerMs.toFixed(0)} | ${m.verifiedMs.toFixed(0)} | ${m.cpuMs.toFixed(0)} | ${m.peakRssMb.toFixed(0)} |`);
}
if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
