import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { IndexOptions } from '../../src/core/indexer';
import type { Memory } from '../../src/core/memory';
import type { DiscoveredSource } from '../../src/core/sources/discover';
import { addCursorBubble, addOpenCodeTurn, BENCH_PROJECT, cursorComposerId, generateCursorDb, generateOpenCodeDb, openCodeSessionId } from './dbFixtures';

/**
 * "One appended exchange searchable ≤ 0.5 s" for each kind of agent, above all for a process's first update after a
 * first index (issue 41). A process per agent does what the extension host does: the first index on a thread of its
 * own (IndexOptions.apart, the build's dist/runWorker.js), then live runs of the written source alone (`sources`, as
 * IndexService passes the transcripts its watch saw written), on this thread. Each update writes one exchange as the
 * agent does (a database row through a connection of its own, or lines appended to a JSONL transcript) holding a word
 * of its own; its "searchable after" is the wall time from the write to a search (BM25 on verbatim) finding that word:
 * a search is started as soon as the run reports a stage past the parse stage (the exchange is written there) and
 * again after the run if that one found nothing. Also the run's CPU (the process's, every thread) and this thread's
 * own (Linux: /proc schedstat). The out/ code reads the word lists and the tokenizer's table from the build's
 * dist/vendor copies, as the host's bundle does. Between the first index and the first update, what the host does once
 * a run has ended: ToolWarmUp.afterRun and its warm-up searches (not with --cold). Runs embed with the built-in model,
 * as the host's. After `node esbuild.mjs && tsc -p .`:
 *   node out/test/bench/firstUpdates.js [--updates 4] [--agents cursor,opencode,claude,codex,gemini] [--cold] [--build DIR]
 * (--build: the checkout whose out/ and dist/ are measured, this one's by default; the agents' databases are written
 * by this one's fixtures.)
 * Prints one line per update and a table: first update and the median of the later ones, per agent.
 */

const AGENTS = ['cursor', 'opencode', 'claude', 'codex', 'gemini'] as const;
type Agent = (typeof AGENTS)[number];

interface Update {
  readonly searchableMs: number;
  /** When the run reported a stage past the parse stage (the exchange written). */
  readonly writtenMs: number;
  readonly runMs: number;
  readonly cpuMs: number;
  readonly mainCpuMs: number;
  readonly written: number;
}

const root = path.resolve(__dirname, '../../..');
/** The build measured (--build: another checkout's, e.g. main's for pairs), its out/ and dist/. */
let build = root;
const requireOut = (module: string): unknown => require(path.join(build, 'out/src', module));

function main(): void {
  const { values } = parseArgs({ options: { updates: { type: 'string', default: '4' }, agents: { type: 'string', default: AGENTS.join(',') }, child: { type: 'string' }, cold: { type: 'boolean' }, build: { type: 'string' } } });
  build = path.resolve(values.build ?? root);
  if (values.child) {
    void child(values.child as Agent, Number(values.updates), values.cold === true).catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
    return;
  }
  const rows: string[] = [];
  for (const agent of values.agents.split(',') as Agent[]) {
    if (!AGENTS.includes(agent)) throw new Error(`unknown agent ${agent}: one of ${AGENTS.join(', ')}`);
    // a process each: its first update is the first of the process, as the host's after its first index
    const run = spawnSync(process.execPath, [__filename, '--child', agent, '--updates', values.updates, '--build', build, ...(values.cold ? ['--cold'] : [])], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${agent}: ${run.stderr}`);
    const line = run.stdout.trim().split('\n').pop()!;
    const { label, updates } = JSON.parse(line) as { label: string; updates: Update[] };
    updates.forEach((u, i) => console.log(`${label}, update ${i + 1}: searchable after ${u.searchableMs} ms (written at ${u.writtenMs}), run ${u.runMs} ms, CPU ${u.cpuMs} ms (this thread ${u.mainCpuMs}), ${u.written} written`));
    const later = updates.slice(1);
    const med = (f: (u: Update) => number): number => {
      const s = later.map(f).sort((a, b) => a - b);
      return s[Math.floor(s.length / 2)]!;
    };
    const [first] = updates;
    rows.push(`| ${label} | ${first!.searchableMs} | ${med((u) => u.searchableMs)} | ${first!.cpuMs} (${first!.mainCpuMs}) | ${med((u) => u.cpuMs)} (${med((u) => u.mainCpuMs)}) |`);
  }
  console.log('\n| agent | first update: searchable after, ms | later (median) | first: CPU ms (this thread) | later (median) |\n| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

/** This thread's CPU ms so far (Linux; 0 elsewhere). */
function threadMs(): number {
  const stat = `/proc/self/task/${process.pid}/schedstat`;
  return existsSync(stat) ? Number(readFileSync(stat, 'utf8').split(' ')[0]) / 1e6 : 0;
}

/** One agent's history in a folder of its own, a first index apart, then `updates` live runs. Prints one JSON line. */
async function child(agent: Agent, updates: number, cold: boolean): Promise<void> {
  const { asBundle } = (await import(path.join(root, 'test/bench/lib.mjs'))) as { asBundle: (build: string) => string[] };
  asBundle(build);
  // required after asBundle: the distiller's word lists are resolved when first used, as the bundle's
  const { Memory: MemoryClass } = requireOut('core/memory') as typeof import('../../src/core/memory');
  const { openEmbedder } = requireOut('core/embed/openEmbedder') as typeof import('../../src/core/embed/openEmbedder');
  const { ToolWarmUp } = requireOut('host/toolWarmUp') as typeof import('../../src/host/toolWarmUp');
  const embedding = await openEmbedder('built-in');
  const dir = mkdtempSync(path.join(tmpdir(), 'first-updates-'));
  try {
    const history = await makeHistory(agent, path.join(dir, 'history'));
    const memory = await MemoryClass.open(path.join(dir, 'store.sqlite'));
    try {
      const options: IndexOptions = {
        discover: { workspaceRoots: [BENCH_PROJECT], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [], includeSubagents: true, ...history.discover },
        segment: { minChars: 100, maxPlies: 20 },
        embed: { embedder: embedding.embedder! },
        parallel: { runScript: path.join(build, 'dist/runWorker.js') },
      };
      const first = await memory.index({ ...options, apart: true });
      if (first.failed.length) throw new Error(JSON.stringify(first.failed));
      // what the host does once a run has ended (IndexService.warmSearch): the store read ahead, then the language-model
      // tools' warm-up searches (their answers' token counts make the tokenizer's table on this thread)
      if (!cold) {
        const warm = new ToolWarmUp({ memory: async () => memory, embedding: async () => embedding });
        await warm.afterRun();
        await warm.start();
      }
      const done: Update[] = [];
      for (let u = 0; u < updates; u++) {
        const word = `zq${agent}${u}marker`;
        const t0 = performance.now();
        const changed = await history.append(u, word);
        const sources = first.discovered!.filter((s: DiscoveredSource) => s.path === changed);
        if (sources.length !== 1) throw new Error(`${changed} was not discovered by the first index`);
        done.push(await update(memory, { ...options, sources }, word, t0));
      }
      console.log(JSON.stringify({ label: `${history.label} (${first.exchangesWritten} exchanges)`, updates: done }));
    } finally {
      await history.close?.();
      await memory.close();
      await embedding.embedder?.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A live run after a write at `t0`: when `word` is first found, and what the run cost. */
async function update(memory: Memory, options: IndexOptions, word: string, t0: number): Promise<Update> {
  const found = async (): Promise<number | undefined> => ((await memory.search({ text: word, mode: 'verbatim/bm25', limit: 3 })).hits.length > 0 ? performance.now() - t0 : undefined);
  let searched: Promise<number | undefined> | undefined;
  let written: number | undefined;
  const cpu = process.cpuUsage();
  const main0 = threadMs();
  const run = await memory.index(options, (p) => {
    if (p.phase === 'discover' || p.phase === 'parse' || searched) return;
    written = performance.now() - t0;
    searched = found();
  });
  const runMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const mainCpuMs = threadMs() - main0;
  if (run.failed.length) throw new Error(JSON.stringify(run.failed));
  const searchable = (await searched) ?? (await found());
  if (searchable === undefined) throw new Error(`${word} not found after the run`);
  return { searchableMs: Math.round(searchable), writtenMs: Math.round(written ?? runMs), runMs: Math.round(runMs), cpuMs: Math.round((used.user + used.system) / 1000), mainCpuMs: Math.round(mainCpuMs), written: run.exchangesWritten };
}

interface History {
  readonly label: string;
  readonly discover: Partial<IndexOptions['discover']>;
  /** Writes update `u`'s exchange holding `word` as the agent does; the source written. */
  append(u: number, word: string): Promise<string>;
  close?(): Promise<void>;
}

const WORDS = 'tide chart axis harbour legend spring neap gauge offset zone format label curve margin sort list'.split(' ');
const text = (seed: number, n: number): string => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]).join(' ');
const prompt = (word: string): string => `why does the ${word} gauge offset move the tide chart legend at spring tide, and where is it applied?`;
const reply = (word: string): string => `The ${word} offset is applied after the datum conversion, so the chart shows chart datum heights; the legend follows it.`;

/** Each agent's history: the bench databases (dbFixtures.ts), or 60 transcripts x 20 exchanges (~1.6 MB) of a JSONL agent. */
async function makeHistory(agent: Agent, dir: string): Promise<History> {
  mkdirSync(dir, { recursive: true });
  const { Db } = require('../../src/core/store/db') as typeof import('../../src/core/store/db');
  if (agent === 'cursor') {
    mkdirSync(path.join(dir, 'User', 'globalStorage'), { recursive: true });
    const file = path.join(dir, 'User', 'globalStorage', 'state.vscdb');
    await generateCursorDb(file, 300, 60);
    const { editorAgentRoots } = requireOut('core/sources/agentRoots') as typeof import('../../src/core/sources/agentRoots');
    const writer = await Db.open(file);
    return {
      label: 'Cursor, state.vscdb 300 composers x 60 bubbles',
      discover: { agentRoots: editorAgentRoots(dir) },
      append: async (u, word) => {
        await addCursorBubble(writer, cursorComposerId(u), { bubbleId: `live-${u}-u`, type: 1, text: prompt(word) });
        await addCursorBubble(writer, cursorComposerId(u), { bubbleId: `live-${u}-a`, type: 2, text: reply(word) });
        return file;
      },
      close: () => writer.close(),
    };
  }
  if (agent === 'opencode') {
    const data = path.join(dir, 'opencode');
    mkdirSync(data, { recursive: true });
    const file = path.join(data, 'opencode.db');
    await generateOpenCodeDb(file, 100, 20);
    const writer = await Db.open(file);
    return {
      label: 'OpenCode, opencode.db 100 sessions x 20 turns',
      discover: { agentRoots: [data] },
      append: async (u, word) => {
        await writer.transaction(() => addOpenCodeTurn(writer, openCodeSessionId(u), `live${u}`, Date.now(), prompt(word), reply(word)));
        return file;
      },
      close: () => writer.close(),
    };
  }
  const turn = jsonlTurn[agent];
  const files: string[] = [];
  for (let s = 0; s < 60; s++) {
    const file = path.join(dir, turn.file(s));
    mkdirSync(path.dirname(file), { recursive: true });
    const lines = [...turn.head(s)];
    for (let k = 0; k < 20; k++) lines.push(...turn.lines(s, k, `${text(s + k, 30)}?`, text(s + k + 1, 80), 1.76e12 + s * 1e7 + k * 2e4));
    writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    files.push(file);
  }
  // Gemini CLI's project folder says which folder it is of
  if (agent === 'gemini') writeFileSync(path.join(dir, '.gemini', 'tmp', 'tidepool', '.project_root'), BENCH_PROJECT);
  return {
    label: `${turn.label}, 60 transcripts x 20 exchanges`,
    discover: turn.discover(dir),
    append: async (u, word) => {
      appendFileSync(files[u]!, turn.lines(u, 100 + u, prompt(word), reply(word), Date.now()).map((l) => `${JSON.stringify(l)}\n`).join(''));
      return files[u]!;
    },
  };
}

type JsonlAgent = Exclude<Agent, 'cursor' | 'opencode'>;

/** Each JSONL agent's records as it writes them (test/fixtures): a transcript's head, and one prompt and its reply. */
const jsonlTurn: Record<JsonlAgent, {
  label: string;
  file(s: number): string;
  discover(dir: string): Partial<IndexOptions['discover']>;
  head(s: number): object[];
  lines(s: number, k: number, prompt: string, reply: string, t: number): object[];
}> = {
  claude: {
    label: 'Claude Code',
    file: (s) => `-home-dev-tidepool/${sessionUuid(s)}.jsonl`,
    discover: (dir) => ({ claudeRoots: [dir] }),
    head: () => [],
    lines: (s, k, prompt, reply, t) => {
      const base = { isSidechain: false, userType: 'external', cwd: BENCH_PROJECT, sessionId: sessionUuid(s), version: '2.1.12', gitBranch: 'main' };
      const id = (n: number): string => `${sessionUuid(s).slice(0, 24)}${(k * 2 + n).toString(16).padStart(12, '0')}`;
      return [
        { ...base, parentUuid: k ? id(-1) : null, type: 'user', message: { role: 'user', content: prompt }, uuid: id(0), timestamp: new Date(t).toISOString() },
        { ...base, parentUuid: id(0), type: 'assistant', message: { model: 'claude-sonnet-4', id: `msg_${s}_${k}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 12 } }, uuid: id(1), timestamp: new Date(t + 1000).toISOString() },
      ];
    },
  },
  codex: {
    label: 'Codex',
    file: (s) => `2025/11/03/rollout-2025-11-03T09-14-02-${sessionUuid(s)}.jsonl`,
    discover: (dir) => ({ codexRoots: [dir] }),
    head: (s) => [{ timestamp: new Date(1.76e12 + s * 1e7).toISOString(), type: 'session_meta', payload: { id: sessionUuid(s), timestamp: new Date(1.76e12 + s * 1e7).toISOString(), cwd: BENCH_PROJECT, originator: 'codex_cli_rs', cli_version: '0.63.0', source: 'cli', model_provider: 'openai' } }],
    lines: (_s, _k, prompt, reply, t) => [
      { timestamp: new Date(t).toISOString(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } },
      { timestamp: new Date(t + 1000).toISOString(), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] } },
    ],
  },
  gemini: {
    label: 'Gemini CLI (JSONL)',
    file: (s) => `.gemini/tmp/tidepool/chats/session-2026-06-01T09-00-${(0x4c1d0000 + s).toString(16)}.jsonl`,
    discover: (dir) => ({ agentRoots: [path.join(dir, '.gemini', 'tmp')] }),
    head: (s) => [{ sessionId: sessionUuid(s), projectHash: '0d2c6f7e1b9a8c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5', startTime: new Date(1.76e12 + s * 1e7).toISOString(), lastUpdated: new Date(1.76e12 + s * 1e7).toISOString(), kind: 'main' }],
    lines: (s, k, prompt, reply, t) => [
      { id: `u${s}-${k}`, timestamp: new Date(t).toISOString(), type: 'user', content: [{ text: prompt }] },
      { id: `g${s}-${k}`, timestamp: new Date(t + 1000).toISOString(), type: 'gemini', content: reply, model: 'gemini-3-pro-preview' },
    ],
  },
};

function sessionUuid(s: number): string {
  return `${s.toString(16).padStart(8, '0')}-4d6e-4f1a-8c3b-5e7d9f1a3c5e`;
}

main();
