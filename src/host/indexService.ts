import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { RecallError } from '../core/errors';
import { type Embedding, type IndexOptions, type IndexProgress, type IndexReport, Memory, type StoreStats } from '../core/memory';
import type { AgentKind, SkipCounts } from '../core/model';
import { userDataDirOf } from '../core/sources/agentRoots';
import { defaultDiscovery, transcriptRoots } from '../core/sources/discover';
import type { Config } from './config';
import type { EmbedderService, SemanticState } from './embedderService';
import type { LlmDistillation } from './llmDistillRun';
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
  /** Verbatim over distilled tokens of the distilled exchanges (0 before any). */
  readonly compressionRatio: number;
  /** Whether semantic search runs, with which model, or why not. */
  readonly semantic: SemanticState;
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
  private memoryPromise: Promise<Memory> | undefined;
  private running: Promise<void> | undefined;
  private rerun: { full: boolean; notify: boolean } | undefined;
  private state: IndexState;
  private message: string | undefined;
  private lastReport: IndexReport | undefined;
  private lastIndexedAt: Date | undefined;
  private progressText: string | undefined;
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
    if (embedders) this.register(embedders.onDidChange(() => this.changed.fire()));
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

  /** The workspace's memory, opened on first use. A damaged store is reported with an offer to rebuild it. */
  memory(): Promise<Memory> {
    this.memoryPromise ??= this.openMemory();
    return this.memoryPromise;
  }

  private async openMemory(): Promise<Memory> {
    const file = this.storeFile;
    if (!file || !this.storageDir) throw new RecallError('store-io', 'Agent Recall needs an open folder to keep its index.');
    await fs.mkdir(this.storageDir.fsPath, { recursive: true });
    try {
      const memory = await Memory.open(file);
      if (memory.vectorError) log.warn(memory.vectorError);
      return memory;
    } catch (err) {
      this.memoryPromise = undefined;
      if (err instanceof RecallError && err.code === 'store-corrupt') {
        log.error(err.message);
        const choice = await vscode.window.showErrorMessage(
          'The Agent Recall index is damaged. Rebuild it from the transcripts? (The damaged file is kept beside it.)',
          'Rebuild Index',
          'Show Log',
        );
        if (choice === 'Show Log') log.show();
        if (choice === 'Rebuild Index') {
          const { memory, movedTo } = await Memory.rebuild(file);
          log.info(`Damaged store moved to ${movedTo}; a new one was created.`);
          this.memoryPromise = Promise.resolve(memory);
          return memory;
        }
      }
      throw err;
    }
  }

  /** The configured embedding model as searches use it (none, with a notice, when it cannot load). */
  async embedding(): Promise<Embedding> {
    return (await this.embedders?.get()) ?? {};
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
    await (await this.memory()).markAllSourcesStale();
    await this.index({ full: true, notify: true });
  }

  async summary(): Promise<IndexSummary> {
    let stats: StoreStats | undefined;
    if (this.state !== 'no-workspace') {
      const memory = await this.memory().catch(() => undefined);
      stats = await memory?.stats();
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
      compressionRatio: stats?.compression.ratio ?? 0,
      semantic: this.embedders?.state ?? { on: false, reason: 'no embedding model service' },
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
      const memory = await this.memory();
      const fresh = (await memory.stats()).sources === 0;
      const llm = await this.llm?.prepare(notify);
      const distiller = llm ? this.llm?.distillerFor(llm, notify) : undefined;
      const location = notify || fresh ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window;
      const options: IndexOptions = { ...(await this.indexOptions()), ...(distiller !== undefined ? { distiller } : {}) };
      const report = await vscode.window.withProgress(
        { location, title: 'Agent Recall: indexing transcripts', cancellable: location === vscode.ProgressLocation.Notification },
        (progress, token) => memory.index(options, (p) => this.onProgress(p, progress), token),
      );
      const note = report.distillNote;
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
      discover: this.discovery(roots),
      segment: { ...this.config.segment, ...(roots.length === 1 ? { workspaceRoot: roots[0]! } : {}) },
    };
  }

  private discovery(roots: readonly string[]): IndexOptions['discover'] {
    return defaultDiscovery({
      workspaceRoots: roots,
      claudeRoots: this.config.claudeRoots,
      codexRoots: this.config.codexRoots,
      extraRoots: this.config.extraRoots,
      includeSubagents: this.config.includeSubagents,
      userDataDirs: this.userDataDirs(),
    });
  }

  /** Folders outside the workspace that hold transcripts (watched for live indexing). */
  transcriptRoots(): string[] {
    return transcriptRoots(this.discovery(this.workspaceRoots()));
  }

  /** This editor's user-data folder (found from our storage folder, never guessed) and the configured ones. */
  private userDataDirs(): string[] {
    const own = this.storageDir ? userDataDirOf(this.storageDir.fsPath) : undefined;
    return [...new Set([...(own ? [own] : []), ...this.config.userDataDirs])];
  }

  private workspaceRoots(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  private setState(state: IndexState): void {
    this.state = state;
    this.changed.fire();
  }

  override dispose(): void {
    void this.memoryPromise?.then((m) => m.close()).catch(() => undefined);
    super.dispose();
  }
}
