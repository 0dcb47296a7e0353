import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileHistoryEntry, FileTouchCount } from '../core/memory';
import { relativeDate, shortDate } from '../core/time';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

/** How an editor URI is stored in files_touched: workspace-relative POSIX inside the workspace, else absolute. */
export function storedPathOf(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') return undefined;
  return vscode.workspace.asRelativePath(uri, false);
}

/**
 * Which files past exchanges touched, kept in memory for explorer badges and hovers (one query per index
 * run, not one per file), and the exchanges of one file on demand.
 */
export class FileHistoryIndex extends Disposable {
  private counts = new Map<string, FileTouchCount>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private loading: Promise<void> | undefined;

  constructor(private readonly index: IndexService) {
    super();
    this.register(index.onDidChange(() => {
      if (index.currentState === 'idle') void this.reload();
    }));
  }

  reload(): Promise<void> {
    this.loading = (async () => {
      const memory = await this.index.memory();
      this.counts = new Map((await memory.fileTouchCounts()).map((c) => [c.path, c]));
      this.changed.fire();
    })().catch(() => undefined);
    return this.loading;
  }

  async ready(): Promise<void> {
    await (this.loading ?? this.reload());
  }

  countOf(path: string): FileTouchCount | undefined {
    return this.counts.get(path);
  }

  /**
   * A stored path for text that names a file: relative to `fromDir` (the document's folder) when that is
   * a touched file, else exact, else the only stored path ending in `/text`.
   */
  match(text: string, fromDir?: string): string | undefined {
    if (fromDir && !path.isAbsolute(text)) {
      const local = storedPathOf(vscode.Uri.file(path.resolve(fromDir, text)));
      if (local && this.counts.has(local)) return local;
    }
    const t = text.replace(/^\.\//, '');
    if (this.counts.has(t)) return t;
    const rel = vscode.workspace.asRelativePath(t, false);
    if (this.counts.has(rel)) return rel;
    const suffix = `/${t}`;
    const found = [...this.counts.keys()].filter((k) => k.endsWith(suffix));
    return found.length === 1 ? found[0] : undefined;
  }

  async entries(path: string, limit = 50): Promise<FileHistoryEntry[]> {
    return (await this.index.memory()).fileHistory(path, limit);
  }
}

export function touchedText(c: FileTouchCount): string {
  return `Touched in ${exchangeCount(c.count)}, last ${relativeDate(c.lastAt)} (${shortDate(c.lastAt)})`;
}

export function exchangeCount(n: number): string {
  return `${n} agent exchange${n === 1 ? '' : 's'}`;
}
