import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Config } from './config';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';
import { log } from './log';

/** Quiet time after the last write before indexing: agents write a reply in several appends. */
const DEBOUNCE_MS = 150;
/** How often to look again for a transcript root that does not exist yet (e.g. ~/.codex before the first run). */
const ROOT_RETRY_MS = 30_000;

/**
 * Live indexing: watches the transcript roots (recursive fs.watch outside the workspace, a workspace file
 * watcher for SpecStory and Aider histories inside it) and runs the incremental indexer shortly after an
 * agent writes, so a new exchange is searchable about a second later.
 */
export class LiveWatcher extends Disposable {
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private readonly triggered = this.register(new vscode.EventEmitter<void>());
  /** Fires when a change in a transcript folder starts an index run. */
  readonly onDidTrigger = this.triggered.event;

  constructor(private readonly index: IndexService, private readonly config: Config) {
    super();
    const ws = this.register(vscode.workspace.createFileSystemWatcher('**/{.specstory/history/*.md,.aider.chat.history.md}'));
    this.register(ws.onDidChange(() => this.schedule()));
    this.register(ws.onDidCreate(() => this.schedule()));
    this.register({ dispose: () => this.stop() });
    // after activation: watching walks the transcript roots, which activate() should not wait for
    this.retry = setTimeout(() => this.start(), 0);
  }

  /** (Re)starts the watchers, e.g. after the roots setting changed. */
  start(): void {
    this.stop();
    if (!this.config.liveIndexing) return;
    let missing = false;
    for (const root of new Set(this.index.transcriptRoots())) {
      if (!fs.existsSync(root)) {
        missing = true;
        continue;
      }
      try {
        const w = fs.watch(root, { recursive: true }, (_event, name) => {
          if (!name || isTranscriptChange(root, String(name))) this.schedule();
        });
        w.on('error', (err) => {
          log.warn(`Stopped watching ${root}: ${err.message}`);
          w.close();
          this.watchers.delete(root);
        });
        this.watchers.set(root, w);
      } catch (err) {
        log.warn(`Cannot watch ${root}: ${(err as Error).message}`);
      }
    }
    if (missing) this.retry = setTimeout(() => this.start(), ROOT_RETRY_MS);
  }

  private schedule(): void {
    if (!this.config.liveIndexing) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.triggered.fire();
      void this.index.index();
    }, DEBOUNCE_MS);
  }

  private stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.retry);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

/**
 * JSONL and JSON transcripts; in VS Code's workspaceStorage (every extension's state) only the chat
 * session folders, so other extensions' writes do not trigger indexing.
 */
function isTranscriptChange(root: string, name: string): boolean {
  if (!/\.jsonl?$/.test(name)) return false;
  return !/[\\/]workspaceStorage$/.test(root) || /(^|[\\/])chatSessions[\\/]/.test(name);
}
