#!/usr/bin/env node
// The offline distiller's CPU as an index worker spends it (issue 41): a fresh process runs the worker's distill task
// (redaction, the distiller, token counts of the verbatim and of the distilled text) over every exchange of a corpus,
// in batches of 100, on one thread, and prints the process's CPU time (all threads: V8's background compilation and
// GC included) and its elapsed time as one JSON line. Runs any build's out/ (tsc -p .), so a baseline is timed the
// same way; with --out, the batches' records are written as JSON, to compare two builds byte for byte.
//
//   node test/bench/distillCpu.mjs --build DIR --inputs FILE [--corpus DIR] [--out FILE] [--passes N]
//
// --passes N: the corpus N times in the one process, each pass's CPU printed apart (the verbatim's token counts,
// then the distill batches): the first pass pays for compiling and for filling the memories, the later ones not.
// --inputs: the exchanges to distill as JSON; when the file does not exist, --corpus is indexed into a temporary
// store without distilling (this build) and its exchanges written there first (not timed).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { build: { type: 'string' }, inputs: { type: 'string' }, corpus: { type: 'string' }, out: { type: 'string' }, passes: { type: 'string' } },
});
if (!values.build || !values.inputs) {
  process.stderr.write('usage: node test/bench/distillCpu.mjs --build DIR --inputs FILE [--corpus DIR] [--out FILE]\n');
  process.exit(2);
}
const build = resolve(values.build);
const require = createRequire(import.meta.url);
const BATCH = 100;

if (!existsSync(values.inputs)) await writeInputs(values.inputs, values.corpus);
const inputs = JSON.parse(readFileSync(values.inputs, 'utf8'));

const cpu0 = process.cpuUsage();
const t0 = performance.now();
// loaded inside the timing: each worker loads and compiles the distiller and its tables
const { distillOfflineBatch } = require(join(build, 'out/src/core/distill/stage.js'));
const { countTokens } = require(join(build, 'out/src/core/tokens.js'));
const answers = [];
const passes = [];
for (let pass = 0; pass < Number(values.passes ?? 1); pass++) {
  const cpuMs = { tokens: 0, distill: 0 };
  let mark = process.cpuUsage();
  const since = () => {
    const d = process.cpuUsage(mark);
    mark = process.cpuUsage();
    return (d.user + d.system) / 1000;
  };
  since();
  for (let i = 0; i < inputs.length; i += BATCH) {
    const batch = inputs.slice(i, i + BATCH);
    const tokens = batch.map((e) => ({ n: e.n, id: e.exchangeId, tokens: countTokens(e.verbatim) }));
    cpuMs.tokens += since();
    const distilled = await distillOfflineBatch(batch);
    cpuMs.distill += since();
    if (pass === 0) answers.push({ distilled, tokens });
  }
  passes.push({ tokensMs: Math.round(cpuMs.tokens), distillMs: Math.round(cpuMs.distill) });
}
const cpu = process.cpuUsage(cpu0);
const threads = threadCpuMs();
const elapsedMs = performance.now() - t0;
if (values.out) writeFileSync(values.out, JSON.stringify(answers));
process.stdout.write(
  `${JSON.stringify({ exchanges: inputs.length, cpuMs: Math.round((cpu.user + cpu.system) / 1000), elapsedMs: Math.round(elapsedMs), heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20), threads, passes })}\n`,
);

/**
 * CPU ms since the process started of its main thread (which also read the inputs) and of its other threads together
 * (V8's compilers and GC helpers, libuv's), from /proc (Linux).
 */
function threadCpuMs() {
  if (!existsSync('/proc/self/task')) return undefined;
  const ms = (task) => {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    // the fields after the thread's name: utime and stime are the 12th and 13th, in ticks of 10 ms
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  };
  const tasks = readdirSync('/proc/self/task');
  const main = ms(String(process.pid));
  return { main, others: tasks.filter((t) => t !== String(process.pid)).reduce((a, t) => a + ms(t), 0) };
}

async function writeInputs(file, corpus) {
  if (!corpus) throw new Error(`${file} does not exist: give --corpus to write it`);
  const { Store } = require(join(build, 'out/src/core/store/store.js'));
  const { indexWorkspace } = require(join(build, 'out/src/core/indexer.js'));
  const { pendingDistillation } = require(join(build, 'out/src/core/store/distilledStore.js'));
  const work = mkdtempSync(join(tmpdir(), 'agent-recall-distillcpu-'));
  try {
    const store = await Store.open(join(work, 'bench.sqlite'));
    await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [resolve(corpus)], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      distiller: false,
    });
    writeFileSync(file, JSON.stringify(await pendingDistillation(store.db, 1_000_000)));
    await store.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
