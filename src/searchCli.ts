import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Embedder } from './core/embed/embedder';
import { BUILTIN_MODEL, DEFAULT_EMBED_MODEL, isBuiltinModel, namedModel, type OpenedEmbedder, openEmbedder } from './core/embed/openEmbedder';
import { RecallError } from './core/errors';
import { parseEvalQueries } from './core/eval/metrics';
import { type EvalConfig, runEval } from './core/eval/runEval';
import { AGENT_KINDS, type AgentKind } from './core/model';
import { LAYERS, modeSignals, MODES, parseMode } from './core/search/modes';
import { DEFAULT_VECTOR_LAYERS, type EmbedReport, type Memory } from './core/memory';
import { bracketedSnippet } from './core/recall';
import type { FusionName, Layer, ModeName, SearchFilters, SearchQuery, SearchResult } from './core/search/types';

/**
 * The search side of the command line: search (one query or a batch), eval, embed. Its formats are a
 * stable contract (issue 5): external evaluation reads them.
 */

/** Where a command writes: stdout and stderr, or a test's buffers. */
export interface Io {
  out(s: string): void;
  err(s: string): void;
}

/** The parsed options these commands read (cli.ts declares them). */
export interface SearchOptions {
  readonly mode?: string;
  readonly fusion?: string;
  readonly limit?: string;
  readonly json?: boolean;
  readonly batch?: string;
  readonly queries?: string;
  readonly 'corpus-root'?: string;
  readonly 'embed-model'?: string;
  readonly 'embed-layers'?: string;
  readonly 'per-conversation'?: string;
  readonly agent?: string[];
  readonly since?: string;
  readonly until?: string;
  readonly file?: string;
  readonly room?: string;
  readonly conversation?: string;
  readonly project?: string;
  readonly exclude?: string[];
  readonly quiet?: boolean;
  /** search/eval: fail instead of answering with a lexical fallback when a mode cannot run as asked. */
  readonly strict?: boolean;
}

/** Fusions `eval --fusion all` compares (weights as in the paper's W50..W90). */
export const EVAL_FUSIONS: readonly FusionName[] = ['rrf', 'combmnz', 'additive', 'max', 'adaptive', 'weighted:0.5', 'weighted:0.7', 'weighted:0.9', 'selective'];

/**
 * The model to use: --embed-model, else $AGENT_RECALL_EMBED_MODEL, else the model the store's vectors come
 * from (`recorded`: another model could not search them), else the default hub model. A local folder is
 * recorded by name only (`local:NAME`): it cannot be found again without being named.
 */
function modelSpec(o: SearchOptions, recorded?: string): { spec?: string; notice?: string } {
  const given = namedModel(o['embed-model']);
  if (given !== undefined) return { spec: given };
  if (recorded && isBuiltinModel(recorded)) return { spec: BUILTIN_MODEL };
  if (recorded?.startsWith('local:')) {
    return { notice: `The stored vectors come from the local model folder "${recorded.slice('local:'.length)}"; pass its folder with --embed-model (or $AGENT_RECALL_EMBED_MODEL)` };
  }
  return { spec: recorded ?? DEFAULT_EMBED_MODEL };
}

/** Loads the model named by the options (or the store's); a model that cannot load is reported on stderr (never thrown). */
export async function openCliEmbedder(o: SearchOptions, io: Io, recorded?: string): Promise<OpenedEmbedder> {
  const opened = await openModel(o, recorded);
  if (opened.notice) io.err(`agent-recall: ${opened.notice}`);
  return opened;
}

async function openModel(o: SearchOptions, recorded?: string): Promise<OpenedEmbedder> {
  const { spec, notice } = modelSpec(o, recorded);
  // the command line may run an in-thread benchmark model (use-lite); the extension host never does
  return spec === undefined ? { ...(notice ? { notice } : {}) } : openEmbedder(spec, { inThread: true });
}

/** With --strict, a mode that could not run as asked (its result carries a notice) is an error, not an answer. */
function assertRanAsAsked(o: SearchOptions, r: { readonly mode: ModeName; readonly notice?: string }): void {
  if (o.strict && r.notice) throw new RecallError('model-unavailable', `--strict: ${r.mode} could not run as asked. ${r.notice}`);
}

/**
 * Runs `fn` with the embedder when `wanted` (loaded once, disposed after), or without one and a notice
 * when it cannot load. An explicit --embed-model that fails is reported on stderr either way.
 */
async function withEmbedder<T>(
  o: SearchOptions,
  wanted: boolean | { readonly recorded: string | undefined },
  io: Io,
  fn: (e: Embedder | undefined, notice?: string) => Promise<T>,
  options: { reportFailure: boolean } = { reportFailure: true },
): Promise<T> {
  if (wanted === false) return fn(undefined);
  const recorded = wanted === true ? undefined : wanted.recorded;
  if (recorded === undefined && wanted !== true) return fn(undefined);
  // search reports a model that cannot load through the result's notice instead (once)
  const opened = options.reportFailure ? await openCliEmbedder(o, io, recorded) : await openModel(o, recorded);
  try {
    return await fn(opened.embedder, opened.notice);
  } finally {
    await opened.embedder?.dispose();
  }
}

function filtersOf(o: SearchOptions): SearchFilters | undefined {
  const agents = (o.agent ?? []).map((a) => {
    if (!(AGENT_KINDS as readonly string[]).includes(a)) throw new RecallError('bad-argument', `Unknown agent ${a}. Agents: ${AGENT_KINDS.join(', ')}.`);
    return a as AgentKind;
  });
  const f: SearchFilters = {
    ...(agents.length ? { agents } : {}),
    ...(o.since ? { since: o.since } : {}),
    ...(o.until ? { until: o.until } : {}),
    ...(o.file ? { file: o.file } : {}),
    ...(o.room ? { room: o.room } : {}),
    ...(o.conversation ? { conversation: o.conversation } : {}),
    ...(o.project ? { project: o.project } : {}),
  };
  return Object.keys(f).length ? f : undefined;
}

function intOf(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new RecallError('bad-argument', `--${name} needs a whole number of at least 1, got ${v}.`);
  return n;
}

/**
 * Whether a model is wanted: `true` when one is named (--embed-model, $AGENT_RECALL_EMBED_MODEL) and a query names
 * no mode (with a model the default is SEMANTIC_MODE, as in the extension); else the model of the store's vectors
 * when a named mode would use them; undefined: no model needed.
 */
async function needsModel(memory: Memory, o: SearchOptions, modes: readonly (ModeName | undefined)[]): Promise<true | { recorded: string | undefined }> {
  if (modes.includes(undefined) && namedModel(o['embed-model']) !== undefined) return true;
  const recorded = await memory.vectorModel();
  const vector = modes.some((m) => m !== undefined && modeSignals(m).some((s) => s.mechanism === 'vector'));
  return { recorded: vector ? recorded : undefined };
}

export async function searchCommand(memory: Memory, o: SearchOptions, positionals: readonly string[], io: Io): Promise<number> {
  const mode = o.mode !== undefined ? parseMode(o.mode) : undefined;
  const base: Omit<SearchQuery, 'text'> = {
    ...(mode ? { mode } : {}),
    ...(o.fusion ? { fusion: o.fusion } : {}),
    ...(o.limit ? { limit: intOf(o.limit, 'limit')! } : {}),
    ...(o['per-conversation'] ? { perConversation: intOf(o['per-conversation'], 'per-conversation')! } : {}),
    ...(filtersOf(o) ? { filters: filtersOf(o)! } : {}),
    ...(o.exclude?.length ? { exclude: o.exclude } : {}),
  };
  if (o.batch === undefined && positionals.length === 0) throw new RecallError('bad-argument', 'search needs a QUERY (or --batch QUERIES.jsonl).');
  return withEmbedder(o, await needsModel(memory, o, [mode]), io, async (embedder, notice) => {
    const searcher = memory.searcher({ embedder, notice });
    const strictSearch = async (text: string) => {
      const r = await searcher.search({ ...base, text });
      assertRanAsAsked(o, r);
      return r;
    };
    if (o.batch !== undefined) return batch(o.batch, strictSearch, io);
    const r = await strictSearch(positionals.join(' '));
    if (o.json) {
      io.out(JSON.stringify(r));
      return 0;
    }
    if (r.notice) io.err(`note: ${r.notice}`);
    io.out(
      `${r.hits.length} hits, ${r.mode}${modeSignals(r.mode).length > 1 ? ` / ${r.fusion}` : ''}, confidence ${r.confidence}, ${r.tookMs.toFixed(1)} ms` +
        (r.notice ? ` — fallback: ${r.notice}` : ''),
    );
    for (const [i, h] of r.hits.entries()) {
      io.out(
        `${String(i + 1).padStart(2)}. ${h.score.toFixed(4)} ${h.confidence.padEnd(6)} ${h.agent.padEnd(11)} ${(h.startedAt ?? '').slice(0, 10).padEnd(10)} ` +
          `${path.basename(h.file)}:${h.lineStart}-${h.lineEnd}  ${h.exchangeId.slice(0, 12)}`,
      );
      if (h.core) io.out(`    core: ${h.core}`);
      io.out(`    ${bracketedSnippet(h.snippet)}`);
      io.out(`    why: ${h.parts.map((p) => `${p.signal} #${p.rank} (${p.score.toFixed(3)})`).join(', ')}`);
      if (h.more > 0) io.out(`    ${h.more} more in this conversation: --conversation ${h.conversationId}`);
      for (const c of h.copies) io.out(`    also saved in ${c.file}:${c.lineStart}-${c.lineEnd}`);
    }
    return 0;
  }, { reportFailure: o.batch !== undefined });
}

/** One JSON line per input line `{"id","query"}`; a bad line gets `{"id", "hits": [], "error"}` and exit code 1. */
async function batch(file: string, search: (text: string) => Promise<SearchResult>, io: Io): Promise<number> {
  const text = await readFile(path.resolve(file), 'utf8').catch((err: Error) => {
    throw new RecallError('bad-argument', `Cannot read the batch file ${file}: ${err.message}`);
  });
  let failed = 0;
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let id: unknown = null;
    try {
      const q = JSON.parse(line) as { id?: unknown; qid?: unknown; query?: unknown };
      id = q.id ?? q.qid ?? null;
      if (typeof q.query !== 'string') throw new Error('no string "query"');
      const r = await search(q.query);
      io.out(
        JSON.stringify({
          id,
          hits: r.hits.map((h) => ({
            exchangeId: h.exchangeId,
            agent: h.agent,
            file: h.file,
            lineStart: h.lineStart,
            lineEnd: h.lineEnd,
            sessionId: h.sessionId,
            score: h.score,
            parts: h.parts,
            core: h.core ?? null,
            context: h.context ?? null,
          })),
          // a mode that could not run as asked says so on every line (its hits are of the fallback)
          ...(r.notice ? { fallback: r.notice } : {}),
        }),
      );
    } catch (err) {
      if (err instanceof RecallError && err.code !== 'bad-argument') throw err;
      failed++;
      const message = `line ${i + 1}: ${(err as Error).message}`;
      io.err(`agent-recall: batch ${message}`);
      io.out(JSON.stringify({ id, hits: [], error: message }));
    }
  }
  return failed > 0 ? 1 : 0;
}

export async function evalCommand(memory: Memory, o: SearchOptions, io: Io): Promise<number> {
  if (!o.queries) throw new RecallError('bad-argument', 'eval needs --queries Q.jsonl.');
  if (!o['corpus-root']) throw new RecallError('bad-argument', 'eval needs --corpus-root DIR (query files are relative to it).');
  const queries = parseEvalQueries(await readFile(path.resolve(o.queries), 'utf8'), path.resolve(o['corpus-root']));
  const modes: Array<ModeName | undefined> = o.mode === 'all' ? [...MODES] : [o.mode !== undefined ? parseMode(o.mode) : undefined];
  const fusions: Array<FusionName | undefined> =
    o.fusion === 'all' ? [...EVAL_FUSIONS] : o.fusion ? o.fusion.split(',') : [undefined];
  const configs: EvalConfig[] = [];
  for (const mode of modes) {
    // a one-signal mode is the same under every fusion: run it once
    const single = mode !== undefined && modeSignals(mode).length === 1;
    for (const fusion of single ? [fusions[0]] : fusions) {
      configs.push({ ...(mode ? { mode } : {}), ...(fusion ? { fusion } : {}) });
    }
  }
  const limit = intOf(o.limit, 'limit') ?? 10;
  return withEmbedder(o, await needsModel(memory, o, modes), io, async (embedder, notice) => {
    const searcher = memory.searcher({ embedder, notice });
    // warmed as the extension warms it after indexing, then one untimed query, so the first timed one does not
    // pay for loading the model and for statements prepared once
    await searcher.warm();
    await searcher.search({ text: queries[0]?.query ?? 'warm up' });
    const rows = await runEval(searcher, queries, configs, limit);
    for (const r of rows) assertRanAsAsked(o, r);
    if (o.json) {
      for (const r of rows) io.out(JSON.stringify(r));
      return 0;
    }
    io.out(`${queries.length} queries, limit ${limit}${embedder ? `, model ${embedder.modelId}` : ', no embedding model'}`);
    io.out(`${'mode'.padEnd(18)} ${'fusion'.padEnd(13)}   MRR    P@1  nDCG@10   R@5   R@10  p50 ms  p95 ms`);
    const f = (x: number) => x.toFixed(3).padStart(6);
    for (const r of rows) {
      const m = r.metrics;
      io.out(
        `${r.mode.padEnd(18)} ${(modeSignals(r.mode).length > 1 ? r.fusion : '-').padEnd(13)} ${f(m.mrr)} ${f(m.p1)} ${f(m.ndcg10).padStart(8)} ${f(m.recall5)} ${f(m.recall10)} ` +
          `${r.p50Ms.toFixed(1).padStart(7)} ${r.p95Ms.toFixed(1).padStart(7)}${r.notice ? '  (fallback: lexical)' : ''}`,
      );
    }
    return 0;
  });
}

/** `--embed-layers core,verbatim` or `all`. */
export function parseLayers(v: string | undefined): Layer[] {
  if (v === undefined) return [...DEFAULT_VECTOR_LAYERS];
  if (v === 'all') return [...LAYERS];
  return v.split(',').map((l) => {
    if (!(LAYERS as readonly string[]).includes(l)) throw new RecallError('bad-argument', `Unknown layer ${l}. Layers: ${LAYERS.join(', ')}, or all.`);
    return l as Layer;
  });
}

/**
 * The embedding stage from the command line (`embed`, and `index --embed-model`). A model that cannot
 * load is reported and leaves the store lexical: exit code 0, nothing lost.
 */
export async function embedCommand(memory: Memory, o: SearchOptions, io: Io): Promise<{ code: number; report?: EmbedReport; notice?: string }> {
  const layers = parseLayers(o['embed-layers']);
  return withEmbedder(o, true, io, async (embedder, notice) => {
    if (!embedder) return { code: 0, ...(notice ? { notice } : {}) };
    let last = 0;
    const report = await memory.embed(embedder, layers, (p) => {
      if (o.quiet || (Date.now() - last < 500 && p.done !== p.total)) return;
      last = Date.now();
      io.err(`[embed ${p.layer}] ${p.done}/${p.total}`);
    });
    return { code: 0, report };
  });
}
