import * as vscode from 'vscode';
import { headline, NARROW_HEADLINE, touchedPhrase } from '../core/format';
import type { FileHistoryEntry } from '../core/memory';
import { relativeDate, shortDate } from '../core/time';
import { visible } from '../core/visible';
import { type FileHistoryIndex, storedPathOf } from './fileHistoryIndex';
import { Disposable } from './lifecycle';
import { AGENT_NAMES } from '../core/model';

type HistoryNode = FileHistoryEntry;

/** Context key: the File History view shows a file (set once one was opened; it keeps the last one). */
export const FILE_SHOWN = 'agentRecall.fileHistoryShowsFile';

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
    this.view.description = visible(p);
    this.changed.fire();
    // "Recall About This File" is offered in the command palette once there is a file to recall about
    void vscode.commands.executeCommand('setContext', FILE_SHOWN, true);
  }

  getTreeItem(e: HistoryNode): vscode.TreeItem {
    // date and agent lead, so a narrow side bar cuts the headline (shown whole in the tooltip), never them
    const item = new vscode.TreeItem(`${relativeDate(e.startedAt)} · ${AGENT_NAMES[e.agent]}`, vscode.TreeItemCollapsibleState.None);
    item.description = headline(e, NARROW_HEADLINE);
    // plain text: a Markdown tooltip makes a link of a URL in it, even when appended as text
    item.tooltip = `${visible(e.core ?? e.prompt, { lines: true })}

${shortDate(e.startedAt)} · ${AGENT_NAMES[e.agent]} · ${touchedPhrase(e.how, e.lines)}`;
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
    this.view.message = entries.length ? undefined : `No past exchange touched ${visible(this.current)}.`;
    this.view.description = c ? `${visible(this.current)} · ${c.count}` : visible(this.current);
    return entries;
  }
}
