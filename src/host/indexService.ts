import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { RecallError } from '../core/errors';
import type { Embedder } from '../core/embed/embedder';
import { type IndexOptions, indexWorkspace, runEmbedStage, type IndexProgress, type IndexReport } from '../core/indexer';
import { createSearcher } from '../core/search/searcher';
import type { Searcher } from '../core/search/types';
import type { AgentKind, SkipCounts } from '../core/model';
import { defaultClaudeRoots, defaultCodexRoots } from '../core/sources/discover';
import { Store, type StoreStats } from '../core/store/store';
import type { Config } from './config';
import type { EmbedderService } from './embedderService';
import type { LlmDistillation, LlmRun } from './llmDistillRun';
import { Disposable } from './lifecycle';
import { log, showError } from './log';

export type IndexState = 'idle' | 'indexing' | 'error' | 'no-workspace';

export interface IndexSummary {
  readonly state: IndexState;
  readonly conversations: number;
  readonly exchanges: number;
  readonly byAgent: Partial<Record<AgentKind, number>>;
  readonly skippedLines: SkipCounts;
  readonly droppedExchanges: number;
  readonly verbatimTokens: number;
  /** Exchanges with a distilled object (the index's distill stage runs after parsing and token counts). */
  readonly distilledExchanges: number;
  readonly sourcesWithErrors: number;
  readonly lastReport?: IndexReport;
  readonly lastIndexedAt?: Date;
  readonly message?: string;
}

/**
 * Owns the workspace's store and the indexing runs: one run at a time, a request during a run schedules
 * one more, explicit runs show a cancellable notification and background runs only the status bar.
 */
export class IndexService extends Disposable {
  private storePromise: Promise<Store> | undefined;
  private running: Promise<void> | undefined;
  private rerun: { full: boolean; notify: boolean } | undefined;
  private state: IndexState;
  private message: string | undefined;
  private lastReport: IndexReport | undefined;
  private lastIndexedAt: Date | undefined;
  private progressText: string | undefined;
  private searcherFor: { store: Store; embedder: Embedder | undefined; searcher: Searcher } | undefined;
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly storageDir: vscode.Uri | undefined,
    private readonly config: Config,
    private readonly embedders?: EmbedderService,
    /** When given, an LLM distiller configured in the settings replaces the offline stage (llmDistillRun.ts). */
    private readonly llm?: LlmDistillation,
  ) {
    super();
    this.state = this.workspaceRoots().length && storageDir ? 'idle' : 'no-workspace';
  }

  get storeFile(): string | undefined {
    return this.storageDir ? vscode.Uri.joinPath(this.storageDir, 'recall.sqlite').fsPath : undefined;
  }

  get currentState(): IndexState {
    return this.state;
  }

  get progress(): string | undefined {
    return this.progressText;
  }

  /** The store, opened on first use. A damaged store is reported with an offer to rebuild it. */
  getStore(): Promise<Store> {
    this.storePromise ??= this.openStore();
    return this.storePromise;
  }

  private async openStore(): Promise<Store> {
    const file = this.storeFile;
    if (!file || !this.storageDir) throw new RecallError('store-io', 'Agent Recall needs an open folder to keep its index.');
    await fs.mkdir(this.storageDir.fsPath, { recursive: true });
    try {
      const store = await Store.open(file);
      if (store.vectorError) log.warn(store.vectorError);
      return store;
    } catch (err) {
      this.storePromise = undefined;
      if (err instanceof RecallError && err.code === 'store-corrupt') {
        log.error(err.message);
        const choice = await vscode.window.showErrorMessage(
          'The Agent Recall index is damaged. Rebuild it from the transcripts? (The damaged file is kept beside it.)',
          'Rebuild Index',
          'Show Log',
        );
        if (choice === 'Show Log') log.show();
        if (choice === 'Rebuild Index') {
          const { store, movedTo } = await Store.rebuild(file);
          log.info(`Damaged store moved to ${movedTo}; a new one was created.`);
          this.storePromise = Promise.resolve(store);
          return store;
        }
      }
      throw err;
    }
  }

  /**
   * The searcher over this workspace's store with the configured embedding model (lexical, with a notice in
   * every result, when the model cannot load). Kept while the model is the same: it caches term statistics.
   */
  async searcher(): Promise<Searcher> {
    const store = await this.getStore();
    const opened = (await this.embedders?.get()) ?? {};
    if (!this.searcherFor || this.searcherFor.store !== store || this.searcherFor.embedder !== opened.embedder) {
      this.searcherFor = {
        store,
        embedder: opened.embedder,
        searcher: createSearcher(store, opened.embedder, opened.notice ? { embedderNotice: opened.notice } : {}),
      };
    }
    return this.searcherFor.searcher;
  }

  /** Starts (or queues) an indexing run. */
  index(options: { full?: boolean; notify?: boolean } = {}): Promise<void> {
    const full = options.full ?? false;
    const notify = options.notify ?? false;
    if (this.state === 'no-workspace') return Promise.resolve();
    if (this.running) {
      this.rerun = { full: full || (this.rerun?.full ?? false), notify: notify || (this.rerun?.notify ?? false) };
      return this.running;
    }
    this.running = this.runLoop(full, notify).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no indexing run is active or queued. */
  async whenIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  async rebuild(): Promise<void> {
    await this.whenIdle();
    // Re-parses every transcript that still exists; exchanges whose transcripts are gone are kept.
    await (await this.getStore()).markAllSourcesStale();
    await this.index({ full: true, notify: true });
  }

  async summary(): Promise<IndexSummary> {
    let stats: StoreStats | undefined;
    if (this.state !== 'no-workspace') {
      const store = await this.getStore().catch(() => undefined);
      stats = await store?.stats();
    }
    return {
      state: this.state,
      conversations: stats?.conversations ?? 0,
      exchanges: stats?.exchanges ?? 0,
      byAgent: stats?.exchangesByAgent ?? {},
      skippedLines: stats?.skippedLines ?? {},
      droppedExchanges: stats?.droppedExchanges ?? 0,
      verbatimTokens: stats?.verbatimTokens ?? 0,
      distilledExchanges: stats?.compression.distilled ?? 0,
      sourcesWithErrors: stats?.sourcesWithErrors ?? 0,
      ...(this.lastReport ? { lastReport: this.lastReport } : {}),
      ...(this.lastIndexedAt ? { lastIndexedAt: this.lastIndexedAt } : {}),
      ...(this.message ? { message: this.message } : {}),
    };
  }

  private async runLoop(full: boolean, notify: boolean): Promise<void> {
    let next: { full: boolean; notify: boolean } | undefined = { full, notify };
    while (next) {
      this.rerun = undefined;
      await this.runOnce(next.notify);
      next = this.rerun;
    }
  }

  private async runOnce(notify: boolean): Promise<void> {
    this.setState('indexing');
    try {
      const store = await this.getStore();
      const fresh = (await store.stats()).sources === 0;
      const llm = await this.llm?.prepare(notify);
      const location = notify || fresh ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window;
      const options = await this.indexOptions();
      const { report, note } = await vscode.window.withProgress(
        { location, title: 'Agent Recall: indexing transcripts', cancellable: location === vscode.ProgressLocation.Notification },
        (progress, token) => this.indexAndDistill(store, options, llm, notify, progress, token),
      );
      if (report.embedNotice) log.warn(report.embedNotice);
      this.lastReport = report;
      this.lastIndexedAt = new Date();
      this.message = report.cancelled ? 'Indexing was cancelled; run it again to finish.' : note;
      if (note) log.info(note);
      for (const f of report.failed) log.warn(`Could not index ${f.path}: ${f.error}`);
      log.info(
        `Indexed ${report.parsed}/${report.sources} sources (${report.unchanged} unchanged, ${report.failed.length} failed), ` +
          `${report.exchangesWritten} exchanges in ${Math.round(report.parseMs)} ms.`,
      );
      this.setState('idle');
    } catch (err) {
      this.message = err instanceof Error ? err.message : String(err);
      this.setState('error');
      await showError(`Agent Recall could not index: ${this.message}`, err);
    } finally {
      this.progressText = undefined;
      this.changed.fire();
    }
  }

  /** Ingestion, then the distill stage: the indexer's offline one, or the configured LLM one after its gates. */
  private async indexAndDistill(
    store: Store,
    options: IndexOptions,
    llm: LlmRun | undefined,
    explicit: boolean,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    token: vscode.CancellationToken,
  ): Promise<{ report: IndexReport; note?: string }> {
    const onProgress = (p: IndexProgress): void => this.onProgress(p, progress);
    const external = llm !== undefined && llm.kind !== 'offline';
    const report = await indexWorkspace(store, { ...options, ...(external ? { distiller: false as const } : {}) }, onProgress, token);
    if (!this.llm || !llm || llm.kind === 'offline' || token.isCancellationRequested) return { report };
    if (llm.kind === 'wait') return { report, note: llm.reason };
    const r = await this.llm.run(store, llm, explicit, onProgress, token);
    // what the LLM just distilled is embedded now, not at the next run
    const embedded = options.embed && r.report && !token.isCancellationRequested ? await runEmbedStage(store, options.embed, onProgress, token) : {};
    const merged = { ...report, ...(r.report ? { distill: r.report } : {}), ...embedded };
    return { report: merged, ...(r.note ? { note: r.note } : {}) };
  }

  private onProgress(p: IndexProgress, progress: vscode.Progress<{ message?: string; increment?: number }>): void {
    const text =
      p.phase === 'discover'
        ? 'finding transcripts…'
        : p.phase === 'parse'
          ? `${p.done}/${p.total} transcripts`
          : p.phase === 'tokens'
            ? `counting tokens ${p.done}/${p.total}`
            : p.phase === 'embed'
              ? `embedding ${p.done}/${p.total}`
              : `distilling ${p.done}/${p.total}`;
    if (text !== this.progressText) {
      const increment = p.phase === 'parse' && p.total > 0 ? 100 / p.total : undefined;
      progress.report({ message: text, ...(increment ? { increment } : {}) });
      this.progressText = text;
      this.changed.fire();
    }
  }

  private async indexOptions(): Promise<IndexOptions> {
    const roots = this.workspaceRoots();
    // the embedding stage runs when the configured model loads; otherwise search stays lexical
    const embedder = (await this.embedders?.get())?.embedder;
    return {
      ...(embedder ? { embed: { embedder } } : {}),
      discover: {
        workspaceRoots: roots,
        claudeRoots: [...defaultClaudeRoots(), ...this.config.claudeRoots],
        codexRoots: [...defaultCodexRoots(), ...this.config.codexRoots],
        extraRoots: this.config.extraRoots,
        includeSubagents: this.config.includeSubagents,
      },
      segment: { ...this.config.segment, ...(roots.length === 1 ? { workspaceRoot: roots[0]! } : {}) },
    };
  }

  /** Folders outside the workspace that hold transcripts (watched for live indexing). */
  transcriptRoots(): string[] {
    return [
      ...defaultClaudeRoots(),
      ...this.config.claudeRoots,
      ...defaultCodexRoots(),
      ...this.config.codexRoots,
      ...this.config.extraRoots,
    ];
  }

  private workspaceRoots(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  private setState(state: IndexState): void {
    this.state = state;
    this.changed.fire();
  }

  override dispose(): void {
    void this.storePromise?.then((s) => s.close()).catch(() => undefined);
    super.dispose();
  }
}
