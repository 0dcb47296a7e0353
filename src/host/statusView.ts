import * as vscode from 'vscode';
import type { IndexService, IndexSummary } from './indexService';
import { Disposable } from './lifecycle';

/** The "Index" view: what is indexed, what was skipped, and what the indexer is doing now. */
export class StatusViewProvider extends Disposable implements vscode.TreeDataProvider<vscode.TreeItem> {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly index: IndexService) {
    super();
    this.register(index.onDidChange(() => this.changed.fire()));
  }

  getTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    return item;
  }

  async getChildren(parent?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
    if (parent) return [];
    if (this.index.currentState === 'no-workspace') {
      return [item('Open a folder to index its agent transcripts', 'info')];
    }
    const s = await this.index.summary();
    return summaryItems(s, this.index.progress);
  }
}

function item(label: string, icon: string, description?: string, tooltip?: string): vscode.TreeItem {
  const t = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  t.iconPath = new vscode.ThemeIcon(icon);
  if (description) t.description = description;
  if (tooltip) t.tooltip = tooltip;
  return t;
}

export function summaryItems(s: IndexSummary, progress: string | undefined): vscode.TreeItem[] {
  const items: vscode.TreeItem[] = [];
  if (s.state === 'indexing') items.push(item('Indexing…', 'sync~spin', progress));
  if (s.state === 'error' && s.message) items.push(item('Indexing failed', 'error', s.message, s.message));
  else if (s.message) items.push(item(s.message, 'warning'));
  const total = item(`${s.exchanges} exchanges`, 'history', `in ${s.conversations} conversations`);
  total.command = { command: 'agentRecall.showIndexSummary', title: 'Show Index Summary' };
  items.push(total);
  for (const [agent, n] of Object.entries(s.byAgent)) items.push(item(agent, 'hubot', `${n} exchanges`));
  const skipped = Object.entries(s.skippedLines);
  if (skipped.length) {
    const n = skipped.reduce((a, [, c]) => a + (c ?? 0), 0);
    items.push(item(`${n} lines skipped`, 'warning', skipped.map(([r, c]) => `${r} ${c}`).join(', ')));
  }
  if (s.droppedExchanges) items.push(item(`${s.droppedExchanges} short exchanges dropped`, 'filter'));
  if (s.sourcesWithErrors) items.push(item(`${s.sourcesWithErrors} transcripts could not be read`, 'error'));
  if (s.lastIndexedAt) items.push(item('Last indexed', 'clock', s.lastIndexedAt.toLocaleTimeString()));
  return items;
}
