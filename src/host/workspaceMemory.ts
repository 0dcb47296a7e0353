import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { RecallError } from '../core/errors';
import { type Embedding, Memory } from '../core/memory';
import { adoptStore } from '../core/storeLocation';
import type { EmbedderService } from './embedderService';
import { Disposable } from './lifecycle';
import { log } from './log';

/**
 * Owns the workspace's memory: the store file in the extension's global storage folder (core/storeLocation.ts), opened on first use and
 * closed with the extension, and the embedding model searches use. A damaged store is reported with an
 * offer to rebuild it.
 */
export class WorkspaceMemory extends Disposable {
  private opening: Promise<Memory> | undefined;

  constructor(
    private readonly storageDir: vscode.Uri | undefined,
    /** The embedding model searches and the index runs use. */
    readonly embedders?: EmbedderService,
    /** Where an earlier version kept this workspace's store; moved to `storeFile` when that has none yet. */
    private readonly legacyStoreFile?: string,
  ) {
    super();
  }

  get storeFile(): string | undefined {
    return this.storageDir ? vscode.Uri.joinPath(this.storageDir, 'recall.sqlite').fsPath : undefined;
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
    if (this.legacyStoreFile && (await adoptStore(this.legacyStoreFile, file))) log.info(`Moved the store from ${this.legacyStoreFile} to ${file}.`);
    try {
      const memory = await Memory.open(file);
      if (memory.vectorError) log.warn(memory.vectorError);
      await this.reportLostWrites(memory);
      return memory;
    } catch (err) {
      this.opening = undefined;
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
          this.opening = Promise.resolve(memory);
          return memory;
        }
      }
      throw err;
    }
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
