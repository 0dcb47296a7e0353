import * as vscode from 'vscode';
import type { Embedding, IndexOptions, IndexProgress, IndexReport, Memory, StoreCounts, StoreStats } from '../core/memory';
import type { AgentKind, SkipCounts } from '../core/model';
import type { RecallScope } from '../core/storeLocation';
import type { Config } from './config';
import type { SemanticState } from './embedderService';
import type { LlmDistillation } from './llmDistillRun';
import { KnownSources, mergeLiveReport } from './knownSources';
import { ProgressPace } from './progressPace';
import { ToolWarmUp } from './toolWarmUp';
import { Disposable } from './lifecycle';
import { log, showError } from './log';
import type { WorkspaceMemory } from './workspaceMemory';
import { watchedTranscriptRoots, workspaceDiscovery, workspaceFolders } from './workspaceSources';

export type IndexState = 'idle' | 'indexing' | 'error' | 'no-workspace';

export interface IndexSummary {
  readonly state: IndexState;
  /** Which history the counts are of: this workspace's or every project's (agentRecall.scope). */
  readonly scope: RecallScope;
  readonly conversations: number;
  readonly exchanges: number;
  readonly byAgent: Partial<Record<AgentKind, number>>;
  readonly skippedLines: SkipCounts;
  readonly droppedExchanges: number;
  readonly verbatimTokens: number;
  /** Exchanges with a distilled object (the index's distill stage runs after parsing and token counts). */
  readonly distilledExchanges: number;
  /** Verbatim over distilled tokens of the distilled exchanges (0 before any). */
  readonly compressionRatio: number;
  /** Whether semantic search runs, with which model, or why not. */
  readonly semantic: SemanticState;
  readonly sourcesWithErrors: number;
  /** When the earliest and the latest dated exchanges started. */
  readonly dates: StoreStats['dates'];
  readonly lastReport?: IndexReport;
  readonly lastIndexedAt?: Date;
  readonly message?: string;
  /** While a run is under way: its stage, and how far it has come in it. */
  readonly stage?: IndexStage;
}

/**
 * A run's stage as the views say it: reading transcripts (exchanges become searchable by their words as they are
 * written), then the background work on what is stored: token counts, distillation (the headlines), embedding
 * (search by meaning).
 */
export interface IndexStage {
  readonly phase: IndexProgress['phase'];
  readonly done: number;
  readonly total: number;
}

/** What changed: the state, the progress text while indexing, and the summary as it now stands. */
export interface IndexEvent {
  readonly state: IndexState;
  readonly progress?: string;
  readonly summary: IndexSummary;
}

/** Context key: an indexing run is under way. */
export const INDEXING_CONTEXT = 'agentRecall.indexing';

/** How often, at most, a run in progress reads its headline counts (~80 ms at 50,000 exchanges; all stats ~300 ms). */
const COUNTS_EVERY_MS = 1500;

/** What the progress notification says a background stage is doing, before its count. */
const PHASE_DOING: Record<Exclude<IndexProgress['phase'], 'discover' | 'parse'>, string> = {
  tokens: 'counting tokens',
  distill: 'distilling',
  redaction: 'checking texts for secrets',
  embed: 'embedding',
};

/**
 * The indexing runs: one at a time, a request during a run schedules one more, explicit runs show a
 * cancellable notification and background runs only the status bar. Every change is an event carrying the
 * summary; the store's counts are read when a run ends, and during a run its headline counts (exchanges,
 * conversations, by agent) every COUNTS_EVERY_MS at most, so a first run does not show "0 exchanges" throughout.
 */
export class IndexService extends Disposable {
  private running: Promise<void> | undefined;
  private rerun: RunRequest | undefined;
  /** The last whole run's sources: a live run reads only the transcripts that changed among them. */
  private readonly known = new KnownSources();
  private state: IndexState;
  /** The state last published as the INDEXING_CONTEXT context key. */
  private publishedState: IndexState | undefined;
  private message: string | undefined;
  private lastReport: IndexReport | undefined;
  private lastIndexedAt: Date | undefined;
  private progressText: string | undefined;
  private stage: IndexStage | undefined;
  /** The store's counts as of the last read (first use, end of a run). */
  private counts: StoreStats | undefined;
  /** The first read of `counts`, while it is under way: every progress tick asks for the summary. */
  private firstRead: Promise<void> | undefined;
  /** The headline counts of the run in progress, read between its writes (undefined between runs). */
  private headline: StoreCounts | undefined;
  /** When the headline counts were last read during a run (0: not yet), and whether a read is under way. */
  private countedAt = 0;
  private counting = false;
  /** The run under way is to stop (the scope changed: its store is about to be closed). */
  private stopping = false;
  /** A change of scope under way (switchScope), until the other store is open and its run started. */
  private switching: Promise<void> | undefined;
  private readonly changed = this.register(new vscode.EventEmitter<IndexEvent>());
  readonly onDidChange = this.changed.event;
  /** The language-model tools' warm-up: after a store's first run, giving way to searches and runs (toolWarmUp.ts). */
  private readonly toolWarmUp = new ToolWarmUp(this);

  constructor(
    readonly workspace: WorkspaceMemory,
    private readonly storageDir: vscode.Uri | undefined,
    private readonly config: Config,
    /** When given, an LLM distiller configured in the settings replaces the offline stage (llmDistillRun.ts). */
    private readonly llm?: LlmDistillation,
  ) {
    super();
    this.state = workspaceFolders().length && storageDir ? 'idle' : 'no-workspace';
    // the model loading (or failing) changes the summary's semantic state
    const embedders = workspace.embedders;
    if (embedders) this.register(embedders.onDidChange(() => this.fire()));
    this.register(workspace.onDidRebuildDamaged(() => void this.index()));
    // with the extension: no warm-up search starts after this (one under way on a store closed under it fails quietly)
    this.register({ dispose: () => void this.toolWarmUp.dispose() });
  }

  get storeFile(): string | undefined {
    return this.workspace.storeFile;
  }

  get currentState(): IndexState {
    return this.state;
  }

  get progress(): string | undefined {
    return this.progressText;
  }

  /** The workspace's memory (see WorkspaceMemory). */
  memory(): Promise<Memory> {
    return this.workspace.memory();
  }

  embedding(): Promise<Embedding> {
    return this.workspace.embedding();
  }

  /**
   * Runs a search the user (or the user's agent) asked: a language-model tool's call, the recall panel's query, a
   * digest, the test API's search. `work` is given the workspace's memory and the model searches use, fetched once
   * the tools' warm-up has given way to it (ToolWarmUp).
   */
  searching<T>(work: (memory: Memory, embedding: Embedding) => Promise<T>): Promise<T> {
    return this.toolWarmUp.searching(async () => work(await this.memory(), await this.embedding()));
  }

  /**
   * Starts (or queues) an indexing run. `changed`: the transcripts live indexing saw written; the run reads only
   * those when the last whole run found them all (else, and without it, every source is looked at).
   */
  index(options: { full?: boolean; notify?: boolean; changed?: readonly string[] } = {}): Promise<void> {
    const request: RunRequest = {
      full: options.full ?? false,
      notify: options.notify ?? false,
      ...(options.changed ? { changed: new Set(options.changed) } : {}),
    };
    if (this.state === 'no-workspace') return Promise.resolve();
    if (this.running) {
      this.rerun = this.rerun ? joinRequests(this.rerun, request) : request;
      return this.running;
    }
    // no warm-up search starts while runs are under way
    this.running = this.toolWarmUp.indexing(() => this.runLoop(request)).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no indexing run is active or queued, nor a change of scope under way. */
  async whenIdle(): Promise<void> {
    while (this.running || this.switching) await (this.switching ?? this.running);
  }

  /**
   * Recalls another history (agentRecall.scope changed): the run under way stops (what it wrote stays), the other
   * scope's store is opened and shown at once with its counts, and an incremental run brings it up to date.
   */
  switchScope(scope: RecallScope): Promise<void> {
    const previous = this.switching ?? Promise.resolve();
    // switches are queued, so the last one asked is the one in force
    const switching = previous.then(() => (scope === this.workspace.scope ? undefined : this.openScope(scope)));
    const tracked: Promise<void> = switching.finally(() => {
      if (this.switching === tracked) this.switching = undefined;
    });
    this.switching = tracked;
    return tracked;
  }

  private async openScope(scope: RecallScope): Promise<void> {
    this.stopping = true;
    this.rerun = undefined;
    while (this.running) await this.running;
    this.stopping = false;
    // the warm-up searches the store about to close: it ends, and the other store's first run (below) starts it again
    await this.toolWarmUp.stop();
    await this.workspace.switchScope(scope);
    this.known.forget();
    this.counts = undefined;
    this.lastReport = undefined;
    this.lastIndexedAt = undefined;
    this.message = undefined;
    this.fire();
    if (this.state !== 'no-workspace') void this.index();
  }

  async rebuild(): Promise<void> {
    await this.whenIdle();
    // Re-parses every transcript that still exists; exchanges whose transcripts are gone are kept.
    await (await this.memory()).markAllSourcesStale();
    await this.index({ full: true, notify: true });
  }

  /**
   * The summary; the store is read only the first time (runs keep it current), once however many ask. That read
   * waits for the writes queued before it, so a run in progress (the first one) is shown at once, with the
   * counts it reads as it goes.
   */
  async summary(): Promise<IndexSummary> {
    if (!this.counts && this.state !== 'no-workspace') {
      this.firstRead ??= this.readCounts().finally(() => (this.firstRead = undefined));
      if (this.state !== 'indexing') await this.firstRead;
    }
    return this.composeSummary();
  }

  private async readCounts(): Promise<void> {
    const memory = await this.memory().catch(() => undefined);
    this.counts = (await memory?.stats().catch(() => undefined)) ?? this.counts;
  }

  private composeSummary(): IndexSummary {
    const stats = this.counts;
    const now = this.state === 'indexing' ? this.headline : undefined;
    return {
      state: this.state,
      scope: this.workspace.scope,
      conversations: now?.conversations ?? stats?.conversations ?? 0,
      exchanges: now?.exchanges ?? stats?.exchanges ?? 0,
      byAgent: now?.exchangesByAgent ?? stats?.exchangesByAgent ?? {},
      skippedLines: stats?.skippedLines ?? {},
      droppedExchanges: stats?.droppedExchanges ?? 0,
      verbatimTokens: stats?.verbatimTokens ?? 0,
      distilledExchanges: now?.distilled ?? stats?.compression.distilled ?? 0,
      compressionRatio: stats?.compression.ratio ?? 0,
      semantic: this.workspace.embedders?.state ?? { on: false, reason: 'no embedding model service' },
      sourcesWithErrors: stats?.sourcesWithErrors ?? 0,
      dates: stats?.dates ?? {},
      ...(this.lastReport ? { lastReport: this.lastReport } : {}),
      ...(this.lastIndexedAt ? { lastIndexedAt: this.lastIndexedAt } : {}),
      ...(this.message ? { message: this.message } : {}),
      ...(this.state === 'indexing' && this.stage ? { stage: this.stage } : {}),
    };
  }

  private fire(): void {
    if (this.state !== this.publishedState) {
      this.publishedState = this.state;
      // the Rooms view's welcome offers a rebuild only when no run is under way
      void vscode.commands.executeCommand('setContext', INDEXING_CONTEXT, this.state === 'indexing');
    }
    this.changed.fire({ state: this.state, ...(this.progressText ? { progress: this.progressText } : {}), summary: this.composeSummary() });
  }

  private async runLoop(request: RunRequest): Promise<void> {
    let next: RunRequest | undefined = request;
    while (next) {
      this.rerun = undefined;
      await this.runOnce(next);
      next = this.rerun;
    }
  }

  private async runOnce({ full, notify, changed }: RunRequest): Promise<void> {
    this.state = 'indexing';
    this.fire();
    try {
      const memory = await this.memory();
      const fresh = await memory.isEmpty();
      const llm = await this.llm?.prepare(notify);
      const distiller = llm ? this.llm?.distillerFor(llm, notify) : undefined;
      const location = notify || fresh ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window;
      const discovery = this.indexOptions();
      const key = JSON.stringify(discovery.discover);
      const sources = changed && !fresh ? await this.known.sourcesOf(key, changed) : undefined;
      const options: IndexOptions = {
        ...discovery,
        // a first index or a rebuild (every transcript read) on a thread of its own: its writes, merges and
        // collections off this thread; other runs read little, and sooner here than that thread would start (~0.4 s)
        ...(sources ? { sources } : fresh || full ? { apart: true } : {}),
        ...(await this.embedStage()),
        ...(distiller !== undefined ? { distiller } : {}),
      };
      // the run's progress reports, paced: each one refreshes the views
      const pace = new ProgressPace();
      const run = await vscode.window.withProgress(
        { location, title: 'Agent Recall: indexing transcripts', cancellable: location === vscode.ProgressLocation.Notification },
        (progress, token) => memory.index(options, (p) => this.onProgress(p, progress, pace), this.cancelledBy(token)),
      );
      if (run.discovered && !run.cancelled) this.known.remember(key, run.discovered);
      const report = sources ? mergeLiveReport(this.lastReport, run, sources) : run;
      const note = report.distillNote;
      const roots = unreadableRootsNote(report);
      if (report.embedNotice) log.warn(report.embedNotice);
      this.lastReport = report;
      this.lastIndexedAt = new Date();
      this.message = report.cancelled ? 'Indexing was cancelled; run it again to finish.' : [roots, note].filter(Boolean).join(' ') || undefined;
      if (note) log.info(note);
      if (roots) log.warn(roots);
      for (const f of run.failed) log.warn(`Could not index ${f.path}: ${f.error}`);
      log.info(
        `Indexed ${run.parsed}/${run.sources} ${sources ? 'changed ' : ''}sources (${run.unchanged} unchanged, ${run.failed.length} failed), ` +
          `${run.exchangesWritten} exchanges in ${Math.round(run.parseMs)} ms.`,
      );
      this.state = 'idle';
      void this.warmSearch();
    } catch (err) {
      this.message = err instanceof Error ? err.message : String(err);
      this.state = 'error';
      // not awaited: the error state is published now, and the next run need not wait for the user
      void showError(`Agent Recall could not index: ${this.message}`, err);
    } finally {
      this.progressText = undefined;
      this.stage = undefined;
      await this.readCounts();
      this.headline = undefined;
      this.fire();
    }
  }

  /** Cancelled by the user (the notification's button) or by a change of scope. */
  private cancelledBy(token: vscode.CancellationToken): { readonly isCancellationRequested: boolean } {
    const stopping = (): boolean => this.stopping;
    return {
      get isCancellationRequested() {
        return token.isCancellationRequested || stopping();
      },
    };
  }

  /** Reads ahead what the next search needs of the store as the run left it, then the tools' warm-up (ToolWarmUp.afterRun). */
  private async warmSearch(): Promise<void> {
    try {
      await this.toolWarmUp.afterRun();
    } catch (err) {
      log.warn(`Could not prepare the next search: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private onProgress(p: IndexProgress, progress: vscode.Progress<{ message?: string; increment?: number }>, pace: ProgressPace): void {
    const text =
      p.phase === 'discover'
        ? 'finding transcripts…'
        : p.phase === 'parse'
          ? `${p.done}/${p.total} transcripts`
          : `${PHASE_DOING[p.phase]} ${p.done}/${p.total}`;
    this.stage = { phase: p.phase, done: p.done, total: p.total };
    const due = pace.next(p, performance.now());
    if (due && text !== this.progressText) {
      const increment = p.phase === 'parse' ? due.increment : 0;
      progress.report({ message: text, ...(increment > 0 ? { increment } : {}) });
      this.progressText = text;
      this.fire();
    }
    // in every phase: the distilled count grows while the run distills
    if (p.phase !== 'discover' && !this.counting && performance.now() - this.countedAt >= COUNTS_EVERY_MS) void this.readHeadlineCounts();
  }

  /** The run's exchanges so far into the summary (not awaited by the run: it reads between its writes). */
  private async readHeadlineCounts(): Promise<void> {
    this.counting = true;
    try {
      const memory = await this.memory();
      const counts = await memory.counts();
      if (this.state === 'indexing') {
        this.headline = counts;
        this.fire();
      }
    } catch {
      // the end of the run reads every count again
    } finally {
      this.countedAt = performance.now();
      this.counting = false;
    }
  }

  private indexOptions(): IndexOptions {
    const roots = workspaceFolders();
    return {
      discover: workspaceDiscovery(this.config, this.storageDir, roots),
      segment: { ...this.config.segment, ...(roots.length === 1 ? { workspaceRoot: roots[0]! } : {}) },
    };
  }

  /** The embedding stage runs when the configured model loads; otherwise search stays lexical. */
  private async embedStage(): Promise<Pick<IndexOptions, 'embed'>> {
    const embedder = (await this.embedding()).embedder;
    return embedder ? { embed: { embedder } } : {};
  }

  /** Folders outside the workspace that hold transcripts (watched for live indexing). */
  transcriptRoots(): string[] {
    return watchedTranscriptRoots(this.config, this.storageDir);
  }
}

/** A run asked for: `changed` absent means every source is looked at. */
interface RunRequest {
  readonly full: boolean;
  readonly notify: boolean;
  readonly changed?: ReadonlySet<string>;
}

/** Two requests as one run: only changed transcripts when both are, else a whole one. */
function joinRequests(a: RunRequest, b: RunRequest): RunRequest {
  return {
    full: a.full || b.full,
    notify: a.notify || b.notify,
    ...(a.changed && b.changed ? { changed: new Set([...a.changed, ...b.changed]) } : {}),
  };
}

/** The configured extra roots that could not be searched, for the Index view and the log; undefined when none. */
function unreadableRootsNote(report: IndexReport): string | undefined {
  const roots = report.unreadableRoots ?? [];
  if (roots.length === 0) return undefined;
  return `Not searched (agentRecall.sources.extraRoots): ${roots.map((r) => `${r.root}: ${r.reason}`).join('; ')}.`;
}
