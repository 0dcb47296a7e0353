import { type CancellationSignal, NEVER_CANCELLED } from './cancellation';
import type { Distiller, DistillInput } from './distill/distiller';
import { OfflineDistiller } from './distill/offline';
import { type DistilledBatch, type DistillReport, distillPending, type Offload } from './distill/stage';
import type { Embedder } from './embed/embedder';
import { embedStore, type EmbedReport } from './embed/stage';
import { RecallError } from './errors';
import { collectGarbage } from './heap';
import type { Layer } from './search/types';
import { prepareSource } from './prepareSource';
import { checkRedaction } from './redactionCheck';
import type { SegmentOptions } from './segment';
import { isSameBytes, readSource } from './sourceRead';
import type { SourceAdapter } from './sources/adapter';
import { discover, type DiscoveredSource, type DiscoveryMemo, type DiscoverOptions, type SeenStat, unreadableRoots } from './sources/discover';
import { countPendingDistillation, LLM_BACKLOG, pendingDistillation } from './store/distilledStore';
import type { Store } from './store/store';
import { countTokens } from './tokens';
import { prepareCl100k } from './cl100kTable';
import { inBatches } from './workers/batches';
import { type ParallelOptions, RunWorkers } from './workers/runWorkers';
import { type SourcesPass, writeSources } from './writeSources';

/**
 * Orchestration: discover -> parse -> segment -> store (searchable by its words from here on) -> distill ->
 * tokens -> redaction stamps -> embed, incremental and resumable. Each source is written in one transaction, so a crash leaves
 * every file either fully at its old state or fully at its new one; the later stages pick up whatever is not
 * done yet. Parsing (with token counts and index text) and offline distillation run on worker threads when
 * there is enough of them (workers/runWorkers.ts); the results are written here, in the order a run on one
 * thread writes them, so the store is the same either way.
 */
export interface IndexOptions {
  readonly discover: DiscoverOptions;
  readonly segment: SegmentOptions;
  /**
   * The distiller of the distill stage: the offline one when not given, none with `false`, or a gate that
   * looks at the backlog after ingestion and decides (an LLM distiller may need the user's consent first).
   */
  readonly distiller?: Distiller | false | DistillGate;
  /** The embedding stage, run last (after distillation) when an embedder is configured. */
  readonly embed?: { readonly embedder: Embedder; readonly layers?: readonly Layer[] };
  /** Worker threads (default: the cores but one, at least 1, at most 4, for work worth them). */
  readonly parallel?: ParallelOptions;
  /**
   * The sources to bring up to date instead of discovering them all: live indexing's run for the transcripts an
   * agent just wrote, from an earlier run's `discovered` (a walk of a large history stats and sniffs every file).
   */
  readonly sources?: readonly DiscoveredSource[];
  /**
   * Collect this thread's heap once after the parse stage (a run with work for its workers). For a process of our
   * own (the command line): on the extension host's thread a full collection of every extension's heap would hold
   * the editor longer than the index run's own slices do.
   */
  readonly collectAfterParse?: boolean;
  /**
   * Run on a thread of its own with its own connection to the store (workers/apartRun.ts), so this thread only
   * relays progress and embeds: for the extension host's whole runs. Ignored (the run stays here) for a run with
   * worker threads off, an LLM distiller or a gate (they do not cross), or a source of an adapter not in the registry.
   */
  readonly apart?: boolean;
}

/** What waits for distillation after ingestion, for a gate to weigh (count it, plan a sample's cost). */
export interface DistillBacklog {
  count(): Promise<number>;
  sample(limit: number): Promise<DistillInput[]>;
}

/** Decides which distiller runs on the backlog; none, with a note saying why, leaves it waiting. */
export type DistillGate = (backlog: DistillBacklog) => Promise<{ readonly distiller?: Distiller; readonly note?: string }>;

export interface IndexProgress {
  readonly phase: 'discover' | 'parse' | 'tokens' | 'distill' | 'redaction' | 'embed';
  readonly done: number;
  readonly total: number;
  readonly file?: string;
}

/** A stage's elapsed time and the process's CPU time in it (all threads: the workers' and SQLite's too). */
export interface StageTime {
  readonly ms: number;
  readonly cpuMs: number;
}

/** A run's report: its pass over the sources (parse figures), then each later stage's. */
export interface IndexReport extends SourcesPass {
  readonly tokensCounted: number;
  /** Distilled exchanges whose redaction stamp was not current, stamped by this run (redactionCheck.ts). */
  readonly redactionChecked?: number;
  /** Absent when the stage did not run (cancelled before it, or no distiller). */
  readonly distill?: DistillReport;
  readonly embedded?: EmbedReport;
  /** Why the embedding stage did not run (the model stopped working): search stays lexical. */
  readonly embedNotice?: string;
  /** Why distillation waits (a gate declined), for the user. */
  readonly distillNote?: string;
  /** Folders the user named as roots (`extraRoots`) that are not folders (mistyped, removed): nothing was read there. */
  readonly unreadableRoots?: ReadonlyArray<{ readonly root: string; readonly reason: string }>;
  /** Each stage's time: discover, parse (read, parse, segment, store), tokens, distill, redaction, embed. */
  readonly stages: Partial<Record<IndexProgress['phase'], StageTime>>;
  /** What discovery found (absent when the run was given its `sources`). */
  readonly discovered?: readonly DiscoveredSource[];
}

export async function indexWorkspace(
  store: Store,
  options: IndexOptions,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
  memo?: DiscoveryMemo,
): Promise<IndexReport> {
  const workers = new RunWorkers(options.parallel);
  const clock = new StageClock();
  try {
    onProgress({ phase: 'discover', done: 0, total: 0 });
    const unreadable = options.sources ? [] : await unreadableRoots(options.discover.extraRoots);
    // a process's first whole run takes what an earlier process's discoveries kept in the store
    const restoring = memo && !options.sources ? memo.restoring(options.discover) : undefined;
    if (restoring) memo!.restore(restoring, await store.discoveryMemo(restoring));
    const found = options.sources ? { sources: options.sources } : await discover(options.discover, memo);
    const sources = found.sources;
    clock.lap('discover');
    const report = await indexSources(store, sources, options.segment, onProgress, token, workers, { ...('seen' in found ? { seen: found.seen } : {}), booksLater: true });
    clock.lap('parse');
    // the parse stage's garbage (its writes, the lexicon's merges) would stay in this thread's heap through most of
    // distillation, which allocates too little here for V8 to collect it: at 1 GB ~55 MB for the stage's first 100 s
    if (options.collectAfterParse && workers.started) collectGarbage();
    // searchable by its words from here on; the offline distiller's workers count tokens as they distill
    const uncounted = await store.countWithoutTokens();
    const chosen = token.isCancellationRequested ? { distiller: undefined } : await chooseDistiller(store, options.distiller);
    const distill = chosen.distiller && !token.isCancellationRequested ? await distillPending(store.db, chosen.distiller, onProgress, token, { offload: offload(store, workers) }) : undefined;
    clock.lap('distill');
    const countedWhileDistilling = uncounted - (await store.countWithoutTokens());
    const tokensCounted = countedWhileDistilling + (token.isCancellationRequested ? 0 : await countPendingTokens(store, onProgress, token, workers));
    clock.lap('tokens');
    // texts distilled before redaction stamps, or under older rules, are checked once (redactionCheck.ts)
    const redactionChecked = token.isCancellationRequested ? 0 : await checkRedaction(store.db, onProgress, token, (exchanges) => workers.for({ exchanges }));
    clock.lap('redaction');
    // the embedding runs here: the threads' heaps (their tables, what they parsed) are let go before it
    await workers.close();
    const embed = options.embed && !token.isCancellationRequested ? await runEmbedStage(store, options.embed, onProgress, token) : {};
    clock.lap('embed');
    await afterWrites(store, report.parsed > 0);
    if (!options.sources) await keepDiscoveries(store, memo);
    return {
      ...report,
      tokensCounted,
      redactionChecked,
      ...(distill ? { distill } : {}),
      ...embed,
      ...(chosen.note ? { distillNote: chosen.note } : {}),
      ...(unreadable.length ? { unreadableRoots: unreadable } : {}),
      stages: clock.stages,
      ...(options.sources ? {} : { discovered: sources }),
      cancelled: token.isCancellationRequested,
    };
  } finally {
    await workers.close();
  }
}

/**
 * The distill stage's workers, when its backlog (the stage's own count of it) is worth them: one batch per thread
 * and one more being read. A batch's exchanges stored without a token count are counted there too (the text is in
 * hand), as they are distilled: the count stage after it finds nothing left to do.
 */
function offload(store: Store, workers: RunWorkers): (backlog: number) => Offload | undefined {
  return (backlog) => {
    const pool = workers.for({ exchanges: backlog });
    if (!pool) return undefined;
    const run = async (batch: readonly DistillInput[]): Promise<DistilledBatch> => {
      const count = await store.uncountedBetween(batch[0]!.n, batch[batch.length - 1]!.n);
      const { distilled, tokens } = await pool.run({ kind: 'distill', batch, count });
      await store.setTokenCounts(tokens);
      return distilled;
    };
    // the threads stop when the last batch is in (a later stage that needs them starts them again)
    return { run, depth: pool.size + 1, done: () => workers.close() };
  };
}

async function chooseDistiller(store: Store, choice: IndexOptions['distiller']): Promise<{ distiller?: Distiller | undefined; note?: string }> {
  if (choice === false) return {};
  if (choice === undefined) return { distiller: offlineDistiller(store) };
  if (typeof choice !== 'function') return { distiller: choice };
  // the gate decides on an LLM distiller: its backlog includes what was distilled offline
  return choice({
    count: () => countPendingDistillation(store.db, Date.now(), LLM_BACKLOG),
    sample: (limit) => pendingDistillation(store.db, limit, 0, Date.now(), LLM_BACKLOG),
  });
}

/** The offline distiller: it needs nothing from the store (word rarity comes from a fixed list). */
export function offlineDistiller(_store?: Store): OfflineDistiller {
  return new OfflineDistiller();
}

/** The embedding stage; a model that stops working ends it with a notice (search stays lexical), not an error. */
export async function runEmbedStage(
  store: Store,
  embed: NonNullable<IndexOptions['embed']>,
  onProgress: (p: IndexProgress) => void,
  token: CancellationSignal,
): Promise<{ embedded?: EmbedReport; embedNotice?: string }> {
  try {
    const options = embed.layers ? { layers: embed.layers } : {};
    return { embedded: await embedStore(store, embed.embedder, options, (p) => onProgress({ phase: 'embed', done: p.done, total: p.total }), token) };
  } catch (err) {
    if (err instanceof RecallError && err.code === 'model-unavailable') return { embedNotice: err.message };
    throw err;
  }
}

/** How a pass over the sources is run within an index run. */
export interface PassOptions {
  /** The sizes and times discovery just saw (the first look asks for none of those). */
  readonly seen?: ReadonlyMap<string, SeenStat>;
  /** The caller keeps the books after the run's later stages (afterWrites), not the pass before it returns. */
  readonly booksLater?: boolean;
}

/**
 * Brings the sources up to date (writeSources.ts). `workers`: the run's threads (when not given, the pass starts
 * and stops its own, for enough work).
 */
export async function indexSources(
  store: Store,
  sources: readonly DiscoveredSource[],
  segment: SegmentOptions,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
  workers?: RunWorkers,
  pass: PassOptions = {},
): Promise<SourcesPass> {
  const own = workers ? undefined : new RunWorkers();
  const run = workers ?? own!;
  try {
    // the lexicon's segments merged once at the end, not as each group adds one
    const { first, second } = await store.lexiconMergesHeld(async () => {
      const first = await writeSources(store, sources, segment, onProgress, token, run, pass.seen);
      // A file that kept an exchange was rewritten without it: the files holding a copy are read again, so it stays.
      const orphaned = new Set(await store.releaseOrphanedCopies());
      const again = sources.filter((s) => orphaned.has(s.path));
      const second = again.length > 0 && !token.isCancellationRequested ? await writeSources(store, again, segment, onProgress, token, run) : undefined;
      return { first, second };
    });
    if (!pass.booksLater) await afterWrites(store, first.parsed + (second?.parsed ?? 0) > 0);
    onProgress({ phase: 'parse', done: sources.length, total: sources.length });
    if (!second) return first;
    return {
      ...first,
      parsed: first.parsed + second.parsed,
      unchanged: first.unchanged - second.parsed,
      failed: [...first.failed, ...second.failed],
      bytesParsed: first.bytesParsed + second.bytesParsed,
      exchangesWritten: first.exchangesWritten + second.exchangesWritten,
      exchangesKept: first.exchangesKept + second.exchangesKept,
      duplicates: first.duplicates + second.duplicates,
      parseMs: first.parseMs + second.parseMs,
      cancelled: second.cancelled,
    };
  } finally {
    await own?.close();
  }
}

/**
 * Brings one source up to date on this thread. An appended file is parsed from the start of its last exchange
 * (which may still be growing), so appending in steps yields the same exchanges as indexing once; a truncated,
 * replaced or rewritten file (or any markdown file, which tools regenerate) is re-parsed whole.
 */
export async function indexSource(
  store: Store,
  file: string,
  adapter: SourceAdapter,
  segment: SegmentOptions,
  project?: string,
): Promise<'unchanged' | { bytes: number; inserted: number; duplicates: number }> {
  const read = await readSource(file, await store.getSource(file), adapter, project);
  if (read === 'unchanged') return 'unchanged';
  if (isSameBytes(read)) {
    await store.setSourceTimes([read.sameBytes]);
    return 'unchanged';
  }
  const prepared = prepareSource(file, adapter, segment, read, { project });
  return { bytes: prepared.bytes, ...(await store.writeParse(prepared.write)) };
}

/**
 * The books kept after a pass that wrote (`wrote`): the ledger of what the store holds (ledger.ts) and the verbatim
 * index's segments merged when many have piled up. Neither changes what a search finds, so an index run keeps them
 * after its later stages, not before its first words are searchable (~80–180 ms for the ledger at 12,000 sources,
 * ~0.3–0.5 s for a merge); a pass that wrote nothing leaves both as they are (the ledger says the same).
 */
export async function afterWrites(store: Store, wrote: boolean): Promise<void> {
  if (!wrote) return;
  await store.writeLedger();
  await store.mergeSearchSegments();
}

/**
 * What the run's discovery changed in its memo, kept in the store for the next process (a whole run after one
 * appended exchange: one row), after the later stages like the books: it changes nothing a search finds.
 */
async function keepDiscoveries(store: Store, memo: DiscoveryMemo | undefined): Promise<void> {
  const changes = memo?.changes();
  // what is not kept is found again by the next process's discovery: a failed write costs it time, not the run its work
  if (changes) await store.keepDiscoveryMemo(changes).catch(() => memo!.unkept());
}

/** Exchanges read per batch of the count stage. */
const COUNT_BATCH = 200;

/**
 * Counts cl100k tokens of exchanges stored without a count (exchanges are counted when parsed; these are an
 * older run's): on the workers when there are enough, a batch per thread at a time.
 */
export async function countPendingTokens(
  store: Store,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
  workers?: RunWorkers,
): Promise<number> {
  const total = await store.countWithoutTokens();
  if (total === 0) return 0;
  // the counter's table, made a few milliseconds at a time when this is the process's first count (see prepareCl100k)
  await prepareCl100k();
  return inBatches<{ n: number; id: string; verbatim: string }, number>(
    {
      next: (afterN) => store.exchangesWithoutTokens(COUNT_BATCH, afterN),
      onThread: (batch, pool) => pool.run({ kind: 'count', texts: batch.map((e) => e.verbatim) }),
      here: (batch) => batch.map((e) => countTokens(e.verbatim)),
      write: async (batch, counts, done) => {
        await store.setTokenCounts(batch.map((e, i) => ({ n: e.n, id: e.id, tokens: counts[i]! })));
        onProgress({ phase: 'tokens', done, total });
      },
    },
    workers?.for({ exchanges: total }),
    token,
  );
}

/** Each stage's elapsed and CPU time, lap by lap. */
class StageClock {
  readonly stages: Partial<Record<IndexProgress['phase'], StageTime>> = {};
  private at = performance.now();
  private cpu = process.cpuUsage();

  lap(stage: IndexProgress['phase']): void {
    const used = process.cpuUsage(this.cpu);
    this.stages[stage] = { ms: Math.round(performance.now() - this.at), cpuMs: Math.round((used.user + used.system) / 1000) };
    this.at = performance.now();
    this.cpu = process.cpuUsage();
  }
}
