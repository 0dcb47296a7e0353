#!/usr/bin/env node
// `npm run bench`: quality and speed of Agent Recall on a real corpus, through the same CLI users run.
// Separate from the tests: it takes minutes and its numbers depend on the machine (noted in the output).
//
//   node test/bench/run.mjs [--corpus DIR] [--queries FILE] [--scales 1000,10000,50000,100000,250000]
//                           [--out DIR] [--runs 3] [--embed-model DIR_OR_ID] [--only index,stages,quality,mcp,scale,host]
//                           [--baseline DIR]
//
// Defaults: ../shared/corpus and ../shared/eval/dev-queries.jsonl beside the repo, the built-in model (what the
// extension searches with by default; built by esbuild.mjs), output in bench-results/ (git-ignored).
// Prints markdown tables; writes bench-results/bench-<date>.json with the machine facts and every figure.
// `host`: activation and first-recall time in a real VS Code (test/bench/hostTiming.mjs, also runnable alone).
// `stages`: a first index stage by stage against the floor of reading and JSON-parsing the same files, with the first
// answerable search, the event loop's longest stall and peak RSS (test/bench/indexStages.mjs, also runnable alone;
// --baseline DIR: another built checkout, measured in turn with this one).
// `mcp`: the MCP server as an agent meets it, on the corpus store (test/bench/mcpLatency.mjs, also runnable alone).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { bootstrapMeanCI, machineFacts, mean, median, table } from './lib.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: resolve(ROOT, '../shared/corpus') },
    queries: { type: 'string', default: resolve(ROOT, '../shared/eval/dev-queries.jsonl') },
    scales: { type: 'string', default: '1000,10000,50000,100000,250000' },
    out: { type: 'string', default: join(ROOT, 'bench-results') },
    runs: { type: 'string', default: '3' },
    'embed-model': { type: 'string', default: 'built-in' },
    only: { type: 'string', default: 'index,stages,quality,mcp,scale,host' },
    baseline: { type: 'string' },
  },
});
const sections = new Set(values.only.split(','));
const runs = Math.max(1, Number(values.runs));
const model = values['embed-model'];
const CLI = join(ROOT, 'dist/cli.js');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined; // GNU time gives the peak RSS of a child

for (const [what, p] of [['corpus', values.corpus], ['queries', values.queries]]) {
  if (!existsSync(p)) {
    console.error(`bench: no ${what} at ${p} (pass --${what})`);
    process.exit(2);
  }
}

/** Runs the CLI; returns { json (last stdout line), ms, peakRssMb }. */
function cli(args) {
  const t0 = performance.now();
  const cmd = TIME ? [TIME, ['-f', 'RSS_KB=%M', process.execPath, CLI, ...args]] : [process.execPath, [CLI, ...args]];
  const r = spawnSync(cmd[0], cmd[1], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`agent-recall ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || '').slice(-1500)}`);
  const rss = /RSS_KB=(\d+)/.exec(r.stderr ?? '');
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return { lines, json: lines.length ? JSON.parse(lines[lines.length - 1]) : undefined, ms, peakRssMb: rss ? Number(rss[1]) / 1024 : undefined };
}

function step(name) {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${name}`);
}

step('build');
for (const args of [['esbuild.mjs', '--production'], ['node_modules/typescript/bin/tsc', '-p', '.'], ['test/model/buildStaticModel.mjs']]) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`build step ${args[0]} failed`);
}

const work = mkdtempSync(join(tmpdir(), 'agent-recall-bench-'));
const result = { machine: machineFacts(), corpus: values.corpus, queries: values.queries, model, runs };
const out = [];
const say = (s = '') => {
  out.push(s);
  console.log(s);
};
say(`# Agent Recall benchmark`);
say();
say(`${result.machine.cores} cores (${result.machine.cpu}), ${result.machine.memoryGiB} GiB, node ${result.machine.node}, ${result.machine.date}`);
say(`corpus ${values.corpus}; queries ${values.queries}; embedding model ${model}; medians of ${runs} runs`);

try {
  // ---- index: parse+store, tokens, offline distill, embedding
  const store = join(work, 'corpus.sqlite');
  step('index');
  const idx = [];
  for (let i = 0; i < runs; i++) {
    const db = i === runs - 1 ? store : join(work, `index-${i}.sqlite`);
    const r = cli(['index', '--root', values.corpus, '--db', db, '--json', '--quiet']);
    idx.push({ ...r.json, wallMs: r.ms, peakRssMb: r.peakRssMb });
    if (db !== store) for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
  }
  const stats = idx[idx.length - 1].stats;
  step('embed');
  const embeds = [];
  for (let i = 0; i < runs; i++) {
    const db = join(work, `embed-${i}.sqlite`);
    for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
    copyFileSync(store, db);
    const r = cli(['embed', '--db', db, '--embed-model', model, '--json']);
    const texts = Object.values(r.json.embedded ?? {}).reduce((a, b) => a + b, 0);
    embeds.push({ texts, ms: r.ms });
    rmSync(db, { force: true });
  }
  cli(['embed', '--db', store, '--embed-model', model, '--embed-layers', 'all', '--json']);
  result.index = {
    exchanges: stats.exchanges,
    megabytes: idx[0].bytesParsed / 1e6,
    parseStoreMBps: median(idx.map((r) => r.bytesParsed / 1e6 / (r.parseMs / 1000))),
    distillPerSecond: median(idx.map((r) => (r.distill ? r.distill.distilled / (r.distill.ms / 1000) : NaN))),
    indexWallS: median(idx.map((r) => r.wallMs / 1000)),
    embedTextsPerSecond: median(embeds.map((e) => e.texts / (e.ms / 1000))),
    peakRssMb: median(idx.map((r) => r.peakRssMb ?? NaN)),
    compression: stats.compression,
  };
  say();
  say('## Speed of indexing (whole corpus)');
  say();
  say(
    table(
      ['exchanges', 'MB', 'parse+store MB/s', 'offline distill ex/s', 'embed texts/s', 'index wall s', 'index peak RSS MB'],
      [{
        exchanges: result.index.exchanges,
        MB: result.index.megabytes,
        'parse+store MB/s': result.index.parseStoreMBps,
        'offline distill ex/s': result.index.distillPerSecond,
        'embed texts/s': result.index.embedTextsPerSecond,
        'index wall s': result.index.indexWallS,
        'index peak RSS MB': result.index.peakRssMb,
      }],
    ),
  );
  const c = stats.compression;
  say();
  say(`Compression (cl100k, corpus totals): ${c.verbatimTokens} / ${c.distilledTokens} = **${c.ratio}x**; per-item mean ${c.meanItemRatio}x; mean distilled tokens ${c.meanDistilledTokens}.`);

  // ---- stages: a first index stage by stage, against the read-and-parse floor measured in the same run
  if (sections.has('stages')) {
    step('stages');
    const { measureStages, report } = await import('./indexStages.mjs');
    result.stages = await measureStages({ corpus: values.corpus, runs, baseline: values.baseline, print: step });
    say();
    say('## A first index, stage by stage, against the floor');
    say();
    for (const line of report(result.stages)) say(line);
  }

  // ---- host: activation and first recall in code-server driven by Chromium (the UI tests' harness)
  if (sections.has('host')) {
    step('host');
    const { measureHostTiming, report } = await import('./hostTiming.mjs');
    result.host = await measureHostTiming({ runs, print: step });
    say();
    say('## Activation and first recall in the real host');
    say();
    for (const line of report(result.host)) say(line);
  }

  // ---- quality: every mode x fusion, per query type, paired comparison against verbatim
  if (sections.has('quality')) {
    step('quality');
    const evalOut = cli(['eval', '--db', store, '--queries', values.queries, '--corpus-root', values.corpus, '--mode', 'all', '--fusion', 'all', '--embed-model', model, '--json']);
    const rows = evalOut.lines.map((l) => JSON.parse(l));
    result.quality = rows;
    say();
    say('## Recall quality (paper Table 6 style)');
    say();
    const types = [...new Set(rows.flatMap((r) => Object.keys(r.byType)))].sort();
    say(
      table(
        ['mode', 'mechanism', 'fusion', 'MRR', 'P@1', 'nDCG@10', 'R@5', 'R@10', ...types.map((t) => `MRR ${t}`), 'note'],
        rows.map((r) => ({
          mode: r.mode,
          mechanism: r.mode.includes('+') && !r.mode.startsWith('core+') ? 'hybrid' : r.mode.split('/')[1],
          fusion: r.mode.includes('(') || r.mode === '3-signal' ? r.fusion : '–',
          MRR: r.metrics.mrr,
          'P@1': r.metrics.p1,
          'nDCG@10': r.metrics.ndcg10,
          'R@5': r.metrics.recall5,
          'R@10': r.metrics.recall10,
          ...Object.fromEntries(types.map((t) => [`MRR ${t}`, r.byType[t]?.mrr])),
          note: r.notice ? 'fallback: lexical' : '',
        })),
      ),
    );
    // Paired: reciprocal rank per query, distilled mode minus verbatim with the same mechanism.
    const rr = (row) => new Map(row.ranks.map((q) => [q.id, q.rank ? 1 / q.rank : 0]));
    const paired = [];
    for (const mech of ['bm25', 'vector']) {
      const base = rows.find((r) => r.mode === `verbatim/${mech}`);
      if (!base) continue;
      const b = rr(base);
      for (const r of rows.filter((x) => x.mode.endsWith(`/${mech}`) && !x.mode.startsWith('verbatim'))) {
        const d = rr(r);
        const diffs = [...b.keys()].map((id) => (d.get(id) ?? 0) - b.get(id));
        const [lo, hi] = bootstrapMeanCI(diffs);
        paired.push({ mode: r.mode, 'vs': `verbatim/${mech}`, 'ΔMRR': mean(diffs), '95% CI': `[${lo.toFixed(3)}, ${hi.toFixed(3)}]`, 'kept %': base.metrics.mrr ? (100 * r.metrics.mrr) / base.metrics.mrr : NaN });
      }
    }
    result.paired = paired;
    say();
    say('Distilled against verbatim, same mechanism (mean difference of reciprocal rank, bootstrap 95% interval):');
    say();
    say(table(['mode', 'vs', 'ΔMRR', '95% CI', 'kept %'], paired));
  }

  // ---- mcp: fresh servers spawned by the SDK's client, the first answer from the spawn, then warm searches
  if (sections.has('mcp')) {
    step('mcp');
    const json = join(work, 'mcp.json');
    const r = spawnSync(process.execPath, [join(ROOT, 'test/bench/mcpLatency.mjs'), '--db', store, '--queries', values.queries, '--embed-model', model, '--json', json], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mcpLatency failed: ${(r.stderr || '').slice(-1500)}`);
    const m = JSON.parse(readFileSync(json, 'utf8'));
    result.mcp = m;
    say();
    say(`## MCP search over stdio (the SDK's client; ${m.servers} fresh servers, medians; then ${m.warm.calls} warm calls)`);
    say();
    say(
      table(['spawn -> first answer ms', 'first call ms', 'warm p50 ms', 'warm p95 ms'], [
        { 'spawn -> first answer ms': m.firstAnswerMs, 'first call ms': m.firstCallMs, 'warm p50 ms': m.warm.p50, 'warm p95 ms': m.warm.p95 },
      ]),
    );
  }

  // ---- scale: replicate the store, then search latency of the default mode (one pass in a fresh process, query embedding included)
  if (sections.has('scale')) {
    result.scale = [];
    for (const n of values.scales.split(',').map(Number).filter((x) => x > 0)) {
      step(`scale ${n}`);
      const big = join(work, `scale-${n}.sqlite`);
      const rep = spawnSync(process.execPath, [join(ROOT, 'test/bench/replicateStore.mjs'), '--from', store, '--to', big, '--exchanges', String(n)], { cwd: ROOT, encoding: 'utf8' });
      if (rep.status !== 0) throw new Error(`replicateStore failed: ${rep.stderr}`);
      const emb = cli(['embed', '--db', big, '--embed-model', model, '--json']);
      const defaults = cli(['eval', '--db', big, '--queries', values.queries, '--corpus-root', values.corpus, '--embed-model', model, '--json']);
      const hybrid = cli(['eval', '--db', big, '--queries', values.queries, '--corpus-root', values.corpus, '--mode', 'bm25(v)+vec(d)', '--embed-model', model, '--json']);
      const d = defaults.json;
      const h = hybrid.json;
      const size = statSync(big).size;
      result.scale.push({
        exchanges: n,
        storeMB: size / 1e6,
        kbPerExchange: size / 1024 / n,
        defaultMode: d.mode,
        p50: d.p50Ms,
        p95: d.p95Ms,
        p99: d.p99Ms,
        hybridP50: h.p50Ms,
        hybridP95: h.p95Ms,
        mrr: d.metrics.mrr,
        embedS: emb.ms / 1000,
        searchPeakRssMb: defaults.peakRssMb,
      });
      for (const s of ['', '-wal', '-shm']) rmSync(big + s, { force: true });
    }
    say();
    say('## Search latency at scale (store replicated from the corpus; one pass in a fresh process; per query, query embedding included)');
    say();
    say(
      table(
        ['exchanges', 'store MB', 'KB/exchange', 'default mode', 'p50 ms', 'p95 ms', 'p99 ms', 'bm25(v)+vec(d) p50', 'bm25(v)+vec(d) p95', 'MRR', 'eval peak RSS MB'],
        result.scale.map((s) => ({
          exchanges: s.exchanges,
          'store MB': s.storeMB,
          'KB/exchange': s.kbPerExchange,
          'default mode': s.defaultMode,
          'p50 ms': s.p50,
          'p95 ms': s.p95,
          'p99 ms': s.p99,
          'bm25(v)+vec(d) p50': s.hybridP50,
          'bm25(v)+vec(d) p95': s.hybridP95,
          MRR: s.mrr,
          'eval peak RSS MB': s.searchPeakRssMb,
        })),
      ),
    );
  }
} finally {
  mkdirSync(values.out, { recursive: true });
  const file = join(values.out, `bench-${result.machine.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2));
  writeFileSync(file.replace(/\.json$/, '.md'), out.join('\n') + '\n');
  console.error(`[bench] wrote ${file}`);
  rmSync(work, { recursive: true, force: true });
}
