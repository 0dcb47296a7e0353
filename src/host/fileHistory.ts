import * as path from 'node:path';
import * as vscode from 'vscode';
import { escapeInline } from '../core/exchangeMarkdown';
import { formatLineRanges, headline, NARROW_HEADLINE } from '../core/format';
import type { FileHistoryEntry, FileTouchCount } from '../core/memory';
import { relativeDate, shortDate } from '../core/time';
import type { Config } from './config';
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
  /** Stored paths by their lower-cased form: file rooms are keyed that way (core/distill/rooms.ts). */
  private byRoomKey = new Map<string, string>();
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
      this.byRoomKey = new Map([...this.counts.keys()].map((p) => [p.toLowerCase(), p]));
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

  /** The stored path a file room's key stands for, when exchanges touched it. */
  pathOfRoomKey(key: string): string | undefined {
    return this.byRoomKey.get(key);
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

/**
 * Explorer badges: "AI" on files past agent exchanges touched, the count and date in the tooltip. VS Code joins
 * the badges of all providers with ", ", so a bare count would read as one more problem count ("6, 4").
 */
export const HISTORY_BADGE = 'AI';

export class FileDecorations extends Disposable implements vscode.FileDecorationProvider {
  private readonly changed = this.register(new vscode.EventEmitter<undefined>());
  readonly onDidChangeFileDecorations = this.changed.event;

  constructor(private readonly files: FileHistoryIndex, private readonly config: Config) {
    super();
    this.register(files.onDidChange(() => this.changed.fire(undefined)));
    this.register(vscode.window.registerFileDecorationProvider(this));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (!this.config.fileDecorations) return undefined;
    const p = storedPathOf(uri);
    const c = p ? this.files.countOf(p) : undefined;
    if (!c) return undefined;
    return new vscode.FileDecoration(HISTORY_BADGE, touchedText(c));
  }
}

export function touchedText(c: FileTouchCount): string {
  return `Touched in ${exchangeCount(c.count)}, last ${relativeDate(c.lastAt)} (${shortDate(c.lastAt)})`;
}

export function exchangeCount(n: number): string {
  return `${n} agent exchange${n === 1 ? '' : 's'}`;
}

const PATH_TEXT = /[\w@~.\-/\\]+\.\w+/g;
const HOVER_LIMIT = 8;

/**
 * Hovers: on text naming a touched file, the exchanges that touched it; on lines an exchange edited (when
 * the transcript recorded the range), the exchange that made the edit. Links open the exchange viewer.
 */
export class FileHover implements vscode.HoverProvider {
  constructor(private readonly files: FileHistoryIndex) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    await this.files.ready();
    const parts: vscode.MarkdownString[] = [];
    let range: vscode.Range | undefined;
    const named = this.pathAt(doc, pos);
    if (named) {
      const entries = await this.files.entries(named.path, HOVER_LIMIT);
      if (token.isCancellationRequested) return undefined;
      const c = this.files.countOf(named.path);
      const md = trusted(`**Agent Recall:** \`${escapeCode(named.path)}\` — ${escapeInline(c ? touchedText(c) : 'touched by past exchanges')}\n\n`);
      for (const e of entries) md.appendMarkdown(`${entryLine(e)}\n`);
      parts.push(md);
      range = named.range;
    }
    const own = storedPathOf(doc.uri);
    if (own && this.files.countOf(own)) {
      const line = pos.line + 1;
      const edits = (await this.files.entries(own, 200)).filter((e) => e.how !== 'mention' && e.how !== 'read' && e.lines?.some((r) => r.start <= line && line <= r.end));
      if (token.isCancellationRequested) return undefined;
      if (edits.length) {
        const md = trusted(`**Agent Recall:** line ${line} was edited in\n\n`);
        for (const e of edits.slice(0, HOVER_LIMIT)) md.appendMarkdown(`${entryLine(e)}\n`);
        parts.push(md);
      }
    }
    return parts.length ? new vscode.Hover(parts, range) : undefined;
  }

  private pathAt(doc: vscode.TextDocument, pos: vscode.Position): { path: string; range: vscode.Range } | undefined {
    const text = doc.lineAt(pos.line).text;
    for (const m of text.matchAll(PATH_TEXT)) {
      const start = m.index ?? 0;
      if (pos.character < start || pos.character > start + m[0].length) continue;
      const dir = doc.uri.scheme === 'file' ? path.dirname(doc.uri.fsPath) : undefined;
      const found = this.files.match(m[0].replace(/\\/g, '/'), dir);
      if (found) return { path: found, range: new vscode.Range(pos.line, start, pos.line, start + m[0].length) };
    }
    return undefined;
  }
}

function trusted(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = { enabledCommands: ['agentRecall.openExchange'] };
  md.supportHtml = false;
  return md;
}

function escapeCode(s: string): string {
  return s.replace(/`/g, "'");
}

/** One hover line: a command link to the exchange with its headline (escaped), date, agent and how. */
export function entryLine(e: FileHistoryEntry): string {
  const args = encodeURIComponent(JSON.stringify([e.exchangeId]));
  const lines = e.lines?.length ? ` lines ${formatLineRanges(e.lines)}` : '';
  return `- [${escapeInline(headline(e, NARROW_HEADLINE))}](command:agentRecall.openExchange?${args} "Open the verbatim exchange") — ${relativeDate(e.startedAt)} · ${e.agent} · ${e.how}${lines}`;
}

/** "N past exchanges" for the active editor's file; a click shows the File History view. */
export class ActiveFileStatus extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentRecall.fileHistory', vscode.StatusBarAlignment.Right, 100));

  constructor(private readonly files: FileHistoryIndex) {
    super();
    this.item.name = 'Agent Recall: file history';
    this.item.command = 'agentRecall.showFileHistory';
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.register(files.onDidChange(() => this.update()));
    this.update();
  }

  get text(): string | undefined {
    return this.item.text || undefined;
  }

  private update(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const p = uri ? storedPathOf(uri) : undefined;
    const c = p ? this.files.countOf(p) : undefined;
    if (!c) {
      this.item.text = '';
      this.item.hide();
      return;
    }
    this.item.text = `$(history) ${c.count} past exchange${c.count === 1 ? '' : 's'}`;
    this.item.tooltip = `${touchedText(c)}. Click to list them.`;
    this.item.show();
  }
}

type HistoryNode = FileHistoryEntry;

/** The "File History" view: the exchanges that touched the active editor's file, newest first. */
export class FileHistoryView extends Disposable implements vscode.TreeDataProvider<HistoryNode> {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private current: string | undefined;
  readonly view: vscode.TreeView<HistoryNode>;

  constructor(private readonly files: FileHistoryIndex) {
    super();
    this.view = this.register(vscode.window.createTreeView('agentRecall.fileHistory', { treeDataProvider: this }));
    this.register(vscode.window.onDidChangeActiveTextEditor((e) => this.follow(e?.document.uri)));
    this.register(files.onDidChange(() => this.changed.fire()));
    this.follow(vscode.window.activeTextEditor?.document.uri);
  }

  /** The stored path the view shows. */
  get file(): string | undefined {
    return this.current;
  }

  private follow(uri: vscode.Uri | undefined): void {
    const p = uri ? storedPathOf(uri) : undefined;
    // viewer documents and other non-files keep the last file shown
    if (!p || p === this.current) return;
    this.current = p;
    this.view.description = p;
    this.changed.fire();
  }

  getTreeItem(e: HistoryNode): vscode.TreeItem {
    // date and agent lead, so a narrow side bar cuts the headline (shown whole in the tooltip), never them
    const item = new vscode.TreeItem(`${relativeDate(e.startedAt)} · ${e.agent}`, vscode.TreeItemCollapsibleState.None);
    item.description = headline(e, NARROW_HEADLINE);
    const lines = e.lines?.length ? ` lines ${formatLineRanges(e.lines)}` : '';
    item.tooltip = new vscode.MarkdownString().appendText(`${e.core ?? e.prompt}

${shortDate(e.startedAt)} · ${e.agent} · ${e.how}${lines}`);
    item.iconPath = new vscode.ThemeIcon(e.how === 'edit' || e.how === 'write' ? 'edit' : e.how === 'read' ? 'eye' : 'comment');
    item.command = { command: 'agentRecall.openExchange', title: 'Open Exchange', arguments: [e.exchangeId] };
    item.id = `${this.current}:${e.exchangeId}`;
    return item;
  }

  async getChildren(parent?: HistoryNode): Promise<HistoryNode[]> {
    if (parent || !this.current) {
      this.view.message = parent ? undefined : 'Open a file to see the agent exchanges that touched it.';
      return [];
    }
    const entries = await this.files.entries(this.current);
    const c = this.files.countOf(this.current);
    this.view.message = entries.length ? undefined : `No past exchange touched ${this.current}.`;
    this.view.description = c ? `${this.current} · ${c.count}` : this.current;
    return entries;
  }
}
