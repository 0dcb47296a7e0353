import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { RecallError } from '../core/errors';
import { type Embedding, Memory, type MigrationProgress } from '../core/memory';
import { adoptStore, type RecallScope, storeFileName } from '../core/storeLocation';
import type { EmbedderService } from './embedderService';
import { Disposable } from './lifecycle';
import { log } from './log';

/**
 * Owns the workspace's memory: the store file of the scope in force in the extension's global storage folder
 * (core/storeLocation.ts), opened on first use and closed with the extension or when the scope changes, and the
 * embedding model searches use. A damaged store is reported with an offer to rebuild it.
 */
export class WorkspaceMemory extends Disposable {
  private opening: Promise<Memory> | undefined;
  private readonly rebuiltStore = this.register(new vscode.EventEmitter<void>());
  /** A store found damaged after it was opened was rebuilt: what it held is read again by the next index run. */
  readonly onDidRebuildDamaged = this.rebuiltStore.event;

  constructor(
    private readonly storageDir: vscode.Uri | undefined,
    /** The embedding model searches and the index runs use. */
    readonly embedders?: EmbedderService,
    /** Where an earlier version kept this workspace's store; moved to `storeFile` when that has none yet. */
    private readonly legacyStoreFile?: string,
    /** Which history is recalled: it names the store file. */
    private scopeInForce: RecallScope = 'workspace',
  ) {
    super();
  }

  get scope(): RecallScope {
    return this.scopeInForce;
  }

  get storeFile(): string | undefined {
    return this.storeFileOf(this.scopeInForce);
  }

  /** The store file of `scope` (the one in force, or the one a change of the setting is about to open). */
  storeFileOf(scope: RecallScope): string | undefined {
    return this.storageDir ? vscode.Uri.joinPath(this.storageDir, storeFileName(scope)).fsPath : undefined;
  }

  /**
   * Recalls another history: the open store is closed and the other scope's store is opened on next use (the
   * caller waits for the runs writing the open one to end first).
   */
  async switchScope(scope: RecallScope): Promise<void> {
    if (scope === this.scopeInForce) return;
    const open = this.opening;
    this.opening = undefined;
    this.scopeInForce = scope;
    await open?.then((m) => m.close()).catch(() => undefined);
  }

  memory(): Promise<Memory> {
    this.opening ??= this.open();
    return this.opening;
  }

  /** The configured embedding model as searches use it (none, with a notice, when it cannot load). */
  async embedding(): Promise<Embedding> {
    return (await this.embedders?.get()) ?? {};
  }

  private async open(): Promise<Memory> {
    const file = this.storeFile;
    if (!file || !this.storageDir) throw new RecallError('store-io', 'Agent Recall needs an open folder to keep its index.');
    await fs.mkdir(this.storageDir.fsPath, { recursive: true });
    if (this.legacyStoreFile && this.scopeInForce === 'workspace' && (await adoptStore(this.legacyStoreFile, file))) log.info(`Moved the store from ${this.legacyStoreFile} to ${file}.`);
    const update = new UpdateNotification();
    try {
      // Searches (the language-model tools, the recall panel) answer before every page is checked; a store found
      // damaged after is offered for rebuild as one found damaged on opening, and nothing is written to it.
      const memory = await Memory.open(file, { onMigration: (p) => update.report(p), check: 'background' }).finally(() => update.end());
      if (memory.vectorError) log.warn(memory.vectorError);
      void memory.verified().catch((err: unknown) => this.foundDamaged(memory, file, err));
      await this.reportLostWrites(memory);
      return memory;
    } catch (err) {
      this.opening = undefined;
      if (err instanceof RecallError && err.code === 'store-corrupt') {
        const rebuilt = await this.offerRebuild(file, err);
        if (rebuilt) return rebuilt;
      }
      throw err;
    }
  }

  /** The check left to the background found `memory`'s store damaged: closed, and offered for rebuild. */
  private async foundDamaged(memory: Memory, file: string, err: unknown): Promise<void> {
    const current = this.opening;
    if (!(err instanceof RecallError) || !current || (await current.catch(() => undefined)) !== memory) return;
    // while the user decides, what asks for the memory hears why there is none (not a second offer)
    const refused = Promise.reject(err);
    refused.catch(() => undefined);
    this.opening = refused;
    await memory.close().catch(() => undefined);
    const rebuilt = await this.offerRebuild(file, err).catch((e: unknown) => log.error(`Could not rebuild the store: ${e instanceof Error ? e.message : String(e)}`));
    if (this.opening === refused) this.opening = undefined;
    if (rebuilt) this.rebuiltStore.fire();
  }

  /** Says the store is damaged and offers to rebuild it; the rebuilt memory, opened, when the user chose that. */
  private async offerRebuild(file: string, err: RecallError): Promise<Memory | undefined> {
    log.error(err.message);
    const choice = await vscode.window.showErrorMessage(
      'The Agent Recall index is damaged. Rebuild it from the transcripts? (The damaged file is kept beside it.)',
      'Rebuild Index',
      'Show Log',
    );
    if (choice === 'Show Log') log.show();
    if (choice !== 'Rebuild Index') return undefined;
    const { memory, movedTo } = await Memory.rebuild(file);
    log.info(`Damaged store moved to ${movedTo}; a new one was created.`);
    this.opening = Promise.resolve(memory);
    return memory;
  }

  /** A store that lost committed writes (ledger.ts) says so once; the index run that follows reads back what it can. */
  private async reportLostWrites(memory: Memory): Promise<void> {
    const { message } = await memory.lostWrites();
    if (!message) return;
    log.warn(`The Agent Recall store ${this.storeFile}: ${message}.`);
    void vscode.window.showWarningMessage(`Agent Recall: ${message}.`, 'Show Log').then((choice) => choice && log.show());
  }

  override dispose(): void {
    void this.opening?.then((m) => m.close()).catch(() => undefined);
    super.dispose();
  }
}

/** An update quicker than this shows no notification. */
const SHOW_AFTER_MS = 1000;

/**
 * The update of a store an older version wrote (a migration; the word index built for every exchange takes ~50 s
 * at 50,000), shown as a progress notification once it has taken a second, until its end: a quick one shows nothing.
 */
class UpdateNotification {
  private progress: vscode.Progress<{ message?: string; increment?: number }> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private shownPercent = 0;
  private latest: MigrationProgress | undefined;
  private finish!: () => void;
  private readonly ended = new Promise<void>((resolve) => (this.finish = resolve));

  report(p: MigrationProgress): void {
    if (!this.latest) log.info(`Updating the store to version ${p.version} (once, after an update of the extension): ${p.step.toLowerCase()} for ${p.total} exchanges.`);
    this.latest = p;
    this.timer ??= setTimeout(() => {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Agent Recall: updating the index' }, (progress) => {
        this.progress = progress;
        this.show();
        return this.ended;
      });
    }, SHOW_AFTER_MS);
    this.show();
  }

  end(): void {
    clearTimeout(this.timer);
    this.finish();
  }

  private show(): void {
    const p = this.latest;
    if (!this.progress || !p) return;
    const percent = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
    this.progress.report({
      // the toast is narrow: what is being done is in the log
      message: `${p.done.toLocaleString()} of ${p.total.toLocaleString()} exchanges`,
      increment: percent - this.shownPercent,
    });
    this.shownPercent = percent;
  }
}
