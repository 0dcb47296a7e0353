import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { indexSources } from '../../src/core/indexer';
import { discoverSources } from '../../src/core/sources/discover';
import { Store } from '../../src/core/store/store';

/**
 * The reliability probes of issue 18, shared by the unit tests (small, seeded) and the soak bench
 * (test/bench/soak.ts, any corpus, many trials): kill -9 at random points while indexing, appends that end
 * mid-line while indexing, and fuzzed lines across every line format. Each ends by comparing the store with
 * a clean index of the same files.
 */

/** A seeded PRNG (mulberry32): every probe run is repeatable from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Claude Code sessions with `exchanges` exchanges each, written under `dir` (a corpus for the probes), numbered from `first`. */
export function writeSessions(dir: string, sessions: number, exchanges: number, first = 0): void {
  mkdirSync(dir, { recursive: true });
  for (let s = first; s < first + sessions; s++) {
    const lines: string[] = [];
    for (let i = 0; i < exchanges; i++) {
      const base = { sessionId: `s${s}`, cwd: '/home/dev/shop', timestamp: `2025-03-${String(1 + (s % 28)).padStart(2, '0')}T10:${String(i % 60).padStart(2, '0')}:00Z` };
      lines.push(JSON.stringify({ ...base, type: 'user', uuid: `u${s}-${i}`, message: { role: 'user', content: `Session ${s} step ${i}: why does the ${['cart', 'invoice', 'login', 'search'][i % 4]} service stall under load?` } }));
      lines.push(JSON.stringify({ ...base, type: 'assistant', uuid: `a${s}-${i}`, message: { id: `m${s}-${i}`, role: 'assistant', content: [{ type: 'text', text: `It waits on lock ${i}; ${'the lock is held while the page renders. '.repeat(3)}Released it earlier in src/service${i % 7}.ts.` }, { type: 'tool_use', id: `t${s}-${i}`, name: 'Edit', input: { file_path: `/home/dev/shop/src/service${i % 7}.ts`, old_string: 'a', new_string: 'b' } }] } }));
    }
    writeFileSync(path.join(dir, `session-${s}.jsonl`), lines.join('\n') + '\n');
  }
}

/** Every transcript-like file under `dir` (relative paths), sorted. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(jsonl|md|json)$/.test(name)) out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/** What a store holds, comparable across stores and roots: every exchange verbatim, skips, drops. */
export async function storeContents(store: Store, root: string): Promise<string[]> {
  const out: string[] = [];
  for (const s of await store.listExchanges()) {
    const e = (await store.getExchange(s.exchangeId))!;
    // ids are left out: they hash the absolute path, and the probes compare stores of different roots
    out.push(JSON.stringify([path.relative(root, e.file), e.lineStart, e.lineEnd, e.verbatim, e.filesTouched]));
  }
  const skipped = await store.db.all<{ path: string; line: number; reason: string }>(
    'SELECT s.path, k.line, k.reason FROM skipped_lines k JOIN sources s ON s.id = k.source_id',
  );
  for (const k of skipped) out.push(JSON.stringify(['skipped', path.relative(root, k.path), k.line, k.reason]));
  const dropped = await store.db.all<{ path: string; line_start: number; line_end: number }>(
    'SELECT s.path, d.line_start, d.line_end FROM dropped_exchanges d JOIN sources s ON s.id = d.source_id',
  );
  for (const d of dropped) out.push(JSON.stringify(['dropped', path.relative(root, d.path), d.line_start, d.line_end]));
  return out.sort();
}

const SEGMENT = { minChars: 100, maxPlies: 20 };

/** Indexes every source under `root` into `store` (parse, segment, store: what the probes compare). */
export async function indexRoot(store: Store, root: string): Promise<{ failed: number }> {
  const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
  const report = await indexSources(store, sources, SEGMENT);
  return { failed: report.failed.length };
}

/** A clean, one-shot index of `root` in a new store under `work`. */
export async function cleanContents(root: string, work: string): Promise<string[]> {
  const store = await Store.open(path.join(work, `clean-${Date.now()}-${Math.random().toString(36).slice(2)}.sqlite`));
  try {
    await indexRoot(store, root);
    return await storeContents(store, root);
  } finally {
    await store.close();
  }
}

/**
 * Appends that end mid-line while indexing: every file under `from` is copied into `root` in `steps` pieces
 * cut at random byte offsets (mostly mid-line), the store indexing after each piece. Returns the final contents.
 */
export async function appendMidLine(from: string, root: string, store: Store, steps: number, random: () => number): Promise<{ contents: string[]; runs: number }> {
  const files = filesUnder(from);
  if (files.some((f) => f.endsWith('.json'))) throw new Error('appendMidLine takes line formats only (copyTree(..., true))');
  const bytes = new Map(files.map((f) => [f, readFileSync(path.join(from, f))]));
  const cuts = new Map(files.map((f) => [f, Array.from({ length: steps - 1 }, () => Math.floor(random() * bytes.get(f)!.length)).sort((a, b) => a - b)]));
  let runs = 0;
  for (let step = 0; step < steps; step++) {
    for (const f of files) {
      const all = bytes.get(f)!;
      const end = step === steps - 1 ? all.length : cuts.get(f)![step]!;
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), all.subarray(0, end));
    }
    await indexRoot(store, root);
    runs++;
  }
  return { contents: await storeContents(store, root), runs };
}

/** Line mutations a hostile or broken writer produces. */
const MUTATIONS: ReadonlyArray<(line: string, r: () => number) => string> = [
  (l, r) => l.slice(0, Math.floor(r() * l.length)), // cut short
  (l, r) => { const i = Math.floor(r() * l.length); return l.slice(0, i) + String.fromCharCode(Math.floor(r() * 0x3000)) + l.slice(i + 1); },
  (l) => l.replace(/"(type|role|content|message)"/, '"x$1"'), // an unknown shape
  (l) => `${l}${l}`, // two records on one line
  () => '', // an empty line
  (l) => `\u0000\u0001${l}`, // control bytes
  (l) => l.replace(/"text":"/, `"text":"${'\\ud800'.repeat(3)}`), // lone surrogates
  () => `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"X","input":${'['.repeat(3000)}${']'.repeat(3000)}}]}}`,
  (l) => l.replace(/[{}[\]]/, ''),
  (l) => JSON.stringify(l), // a string, not an object
  (l, r) => l.split('').sort(() => r() - 0.5).join('').slice(0, 200), // noise
  (l) => l.replace(/"(\w+)":/, '"$1":null,"$1":'), // duplicate keys
];

/** Copies `from` into `to`, replacing a fraction of every file's lines with mutated ones. Returns how many. */
export function fuzzCopy(from: string, to: string, fraction: number, random: () => number): number {
  let mutated = 0;
  for (const f of filesUnder(from).filter((x) => !x.endsWith('.json'))) {
    const lines = readFileSync(path.join(from, f), 'utf8').split('\n');
    const out = lines.map((l) => {
      if (l === '' || random() >= fraction) return l;
      mutated++;
      return MUTATIONS[Math.floor(random() * MUTATIONS.length)]!(l, random);
    });
    mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    writeFileSync(path.join(to, f), out.join('\n'));
  }
  return mutated;
}

/** Copies the files under `from` to `to`; `lineFormats` leaves whole-document JSON out (it is not appended). */
export function copyTree(from: string, to: string, lineFormats = false): void {
  for (const f of filesUnder(from).filter((x) => !lineFormats || !x.endsWith('.json'))) {
    mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    copyFileSync(path.join(from, f), path.join(to, f));
  }
}

/** Runs the bundled CLI; `killAfterMs` sends SIGKILL that long after the start. */
export function runCli(cli: string, args: string[], killAfterMs?: number): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), killAfterMs) : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}
