#!/usr/bin/env node
// A first index of a folder of transcripts, stage by stage, against the floor measured in the same run (issue 41):
// a plain pass that reads every file and JSON-parses every record (readFloor.mjs). Runs alternate (floor, this
// build, the baseline build when given, in turn, starting with a different one each round), so a machine whose
// speed drifts weighs on all alike; ratios are taken run by run and their medians printed. Each index run is a
// fresh process on a new store (indexRun.mjs) with a second process polling it for the first answerable search
// (firstSearch.mjs), and an idle process ticking beside it; after it, one exchange is appended and the next run
// timed (indexRun.mjs --append). Run `tsc -p .` first (and build the baseline the same way).
//
//   node test/bench/indexStages.mjs [--corpus DIR] [--runs 3] [--baseline DIR] [--threads N] [--apart] [--thread-cpu] [--cli] [--json FILE]
//
// --apart: every build's run asked to go on a thread of its own (IndexOptions.apart, as the extension host's whole
// runs; a build without it runs on the calling thread), whose event loop is the one timed; --thread-cpu: also the
// longest the calling thread itself ran in one gap (indexRun.mjs); --cli: every build's process as its command line's
// `index` (its V8 flags, its heap collected after the parse stage: indexRun.mjs).
//
// --baseline: another checkout of the repository, built (e.g. the commit before, to print before and after).
// Prints markdown tables: per build, each stage's elapsed and CPU time (all threads) and share of the CPU; the
// whole run against the floor; the first search; the event loop's longest stall; peak RSS; the store's size.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { machineFacts, median, table } from './lib.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HERE = dirname(fileURLToPath(import.meta.url));
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** One child process, timed from outside (GNU time: user + system CPU, peak RSS); its last stdout line as JSON. */
function timed(args, env = {}) {
  const t0 = performance.now();
  const cmd = TIME ? [TIME, ['-f', 'TIME=%U %S %M', process.execPath, ...args]] : [process.execPath, args];
  const r = spawnSync(cmd[0], cmd[1], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || '').slice(-1500)}`);
  const t = /TIME=([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return {
    ...JSON.parse(lines[lines.length - 1]),
    processWallMs: wallMs,
    ...(t ? { processCpuMs: (Number(t[1]) + Number(t[2])) * 1000, peakRssMb: Number(t[3]) / 1024 } : {}),
  };
}

/** A process that only ticks every millisecond; on SIGTERM it prints the longest gap between two ticks. */
const CONTROL = `let last = performance.now(), longest = 0;
setInterval(() => { const now = performance.now(); longest = Math.max(longest, now - last); last = now; }, 1);
process.on('SIGTERM', () => { console.log(Math.round(longest)); process.exit(0); });`;

/** One index run of `build` with the first-search poller beside it. */
async function indexOnce(build, corpus, work, threads, flags) {
  const db = join(work, `store-${Date.now()}-${Math.random().toString(36).slice(2)}.sqlite`);
  const since = Date.now();
  const poller = spawn(process.execPath, [join(HERE, 'firstSearch.mjs'), '--build', build, '--db', db, '--since', String(since)], { cwd: ROOT });
  let polled = '';
  poller.stdout.on('data', (d) => (polled += d));
  const polledDone = new Promise((res) => poller.on('close', res));
  // an idle process's event loop beside the run: on a busy machine its gaps are the time a thread waits for a core
  const control = spawn(process.execPath, ['-e', CONTROL], { cwd: ROOT });
  let controlled = '';
  control.stdout.on('data', (d) => (controlled += d));
  const controlDone = new Promise((res) => control.on('close', res));
  // the poller's output waits in its pipe while this process waits for the run
  const run = timed([join(HERE, 'indexRun.mjs'), '--build', build, '--corpus', corpus, '--db', db, '--append', ...flags, ...(threads !== undefined ? ['--threads', String(threads)] : [])]);
  // a run that ends before the poller saw it answer: it answers now
  const wait = setTimeout(() => poller.kill(), 30_000);
  await polledDone;
  clearTimeout(wait);
  control.kill('SIGTERM');
  await controlDone;
  for (const s of ['', '-wal', '-shm', '.ledger.json']) rmSync(db + s, { force: true });
  const first = polled.trim() ? JSON.parse(polled.trim().split('\n').pop()) : { firstSearchMs: null };
  return { ...run, firstSearchMs: first.firstSearchMs, controlStallMs: Number(controlled.trim()) || NaN };
}

export async function measureStages({ corpus, runs = 3, baseline, threads, flags = [], print = () => undefined }) {
  const work = mkdtempSync(join(tmpdir(), 'agent-recall-stages-'));
  const builds = [{ name: 'this build', dir: ROOT }, ...(baseline ? [{ name: 'baseline', dir: resolve(baseline) }] : [])];
  const load = [loadavg()[0]];
  const floors = [];
  const results = Object.fromEntries(builds.map((b) => [b.name, []]));
  try {
    for (let i = 0; i < runs; i++) {
      const order = [{ name: 'floor' }, ...builds];
      for (let j = 0; j < order.length; j++) {
        const step = order[(i + j) % order.length];
        print(`run ${i + 1}/${runs}: ${step.name}`);
        if (step.name === 'floor') floors[i] = timed([join(HERE, 'readFloor.mjs'), '--build', ROOT, '--corpus', corpus]);
        else results[step.name][i] = await indexOnce(step.dir, corpus, work, step.dir === ROOT ? threads : undefined, flags);
      }
      load.push(loadavg()[0]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { machine: machineFacts(), corpus, runs, load, floors, results };
}

const STAGES = ['open', 'discover', 'parse', 'tokens', 'distill', 'embed'];

/** Markdown lines of a measurement. */
export function report(m) {
  const lines = [];
  const f = m.floors;
  const floorMs = median(f.map((x) => x.ms));
  const floorCpu = median(f.map((x) => x.cpuMs));
  lines.push(
    `${m.machine.cores} cores (${m.machine.cpu}), node ${m.machine.node}, ${m.machine.date}; load average ${m.load.map((l) => l.toFixed(1)).join(' → ')}; ` +
      `${f[0].files} files, ${(f[0].bytes / 1e6).toFixed(1)} MB; medians of ${m.runs} runs.`,
  );
  lines.push('');
  lines.push(`Floor (read every file, JSON-parse every record, one thread): ${floorMs} ms, CPU ${floorCpu} ms.`);
  for (const [name, runs] of Object.entries(m.results)) {
    lines.push('');
    lines.push(`### ${name}`);
    lines.push('');
    const total = (r) => STAGES.reduce((sum, s) => sum + (r.stages[s]?.cpuMs ?? 0), 0);
    lines.push(
      table(
        ['stage', 'ms', 'CPU ms', 'CPU share'],
        STAGES.filter((s) => runs.some((r) => r.stages[s])).map((s) => ({
          stage: s,
          ms: median(runs.map((r) => r.stages[s]?.ms ?? 0)),
          'CPU ms': median(runs.map((r) => r.stages[s]?.cpuMs ?? 0)),
          'CPU share': `${Math.round(median(runs.map((r) => (100 * (r.stages[s]?.cpuMs ?? 0)) / total(r))))} %`,
        })),
      ),
    );
    const ratio = (pick) => median(runs.map((r, i) => pick(r) / f[i].ms));
    const cpuRatio = (pick) => median(runs.map((r, i) => pick(r) / f[i].cpuMs));
    const parse = (r, k) => (r.stages.discover?.[k] ?? 0) + (r.stages.parse?.[k] ?? 0);
    lines.push('');
    lines.push(
      table(
        ['figure', 'value'],
        [
          { figure: 'end to end (open to embedded), ms', value: median(runs.map((r) => r.wallMs)) },
          { figure: 'end to end / floor: elapsed, CPU', value: `${ratio((r) => r.wallMs).toFixed(1)}×, ${cpuRatio(total).toFixed(1)}×` },
          { figure: 'discover + parse + segment + store / floor: elapsed, CPU', value: `${ratio((r) => parse(r, 'ms')).toFixed(1)}×, ${cpuRatio((r) => parse(r, 'cpuMs')).toFixed(1)}×` },
          { figure: 'first answerable search (from the start of the process), ms', value: median(runs.map((r) => r.firstSearchMs ?? NaN)) },
          {
            figure: 'event loop while indexing: longest stall, ms; stalls over 50 ms; an idle process beside it: longest stall, ms',
            value: `${median(runs.map((r) => r.longestStallMs))}; ${median(runs.map((r) => r.stallsOver50Ms))}; ${median(runs.map((r) => r.controlStallMs))}`,
          },
          ...(runs[0].longestRanMs !== undefined
            ? [{ figure: 'the longest the indexing process\'s calling thread itself ran in one gap, ms (runs)', value: `${median(runs.map((r) => r.longestRanMs))} (${runs.map((r) => r.longestRanMs).join(', ')})` }]
            : []),
          { figure: 'process: elapsed s, CPU s, peak RSS MB', value: `${(median(runs.map((r) => r.processWallMs)) / 1000).toFixed(1)}, ${(median(runs.map((r) => r.processCpuMs)) / 1000).toFixed(1)}, ${Math.round(median(runs.map((r) => r.peakRssMb)))}` },
          { figure: 'exchanges; store MB (KB per exchange)', value: `${runs[0].exchanges}; ${(runs[0].storeBytes / 1e6).toFixed(1)} (${(runs[0].storeBytes / 1024 / runs[0].exchanges).toFixed(1)})` },
          {
            figure: 'one exchange appended, the next run: searchable after ms; whole run ms; transcripts read, unchanged; bytes read',
            value: runs[0].appended
              ? `${median(runs.map((r) => r.appended.searchableMs))}; ${median(runs.map((r) => r.appended.runMs))}; ${runs[0].appended.parsed}, ${runs[0].appended.unchanged}; ${runs[0].appended.bytesRead}`
              : '–',
          },
          {
            figure: 'one more appended, a live run (the written transcript only): searchable after ms; whole run ms; transcripts read',
            value: runs[0].live
              ? `${median(runs.map((r) => r.live.searchableMs))}; ${median(runs.map((r) => r.live.runMs))}; ${runs[0].live.parsed + runs[0].live.unchanged}`
              : '–',
          },
        ],
      ),
    );
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', default: resolve(ROOT, '../shared/corpus') },
      runs: { type: 'string', default: '3' },
      baseline: { type: 'string' },
      threads: { type: 'string' },
      json: { type: 'string' },
      apart: { type: 'boolean' },
      'thread-cpu': { type: 'boolean' },
      cli: { type: 'boolean' },
    },
  });
  const m = await measureStages({
    corpus: resolve(values.corpus),
    runs: Math.max(1, Number(values.runs)),
    baseline: values.baseline,
    threads: values.threads !== undefined ? Number(values.threads) : undefined,
    flags: [...(values.apart ? ['--apart'] : []), ...(values['thread-cpu'] ? ['--thread-cpu'] : []), ...(values.cli ? ['--cli'] : [])],
    print: (s) => console.error(`[stages] ${s}`),
  });
  if (values.json) writeFileSync(values.json, JSON.stringify(m, null, 2));
  for (const line of report(m)) console.log(line);
}
