import * as vscode from 'vscode';
import { headline, NARROW_HEADLINE } from '../core/format';
import type { ExchangeListing, RoomProject, RoomSort, RoomSummary, RoomTypeGroup } from '../core/memory';
import { AGENT_NAMES, type RoomType } from '../core/model';
import { relativeDate, shortDate } from '../core/time';
import { visible } from '../core/visible';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

export type RoomNode =
  | { readonly kind: 'project'; readonly project: RoomProject; readonly first: boolean }
  | { readonly kind: 'type'; readonly scope: string; readonly group: RoomTypeGroup }
  | { readonly kind: 'more'; readonly scope: string; readonly group: RoomTypeGroup }
  | { readonly kind: 'room'; readonly room: RoomSummary }
  | { readonly kind: 'exchange'; readonly roomId: string; readonly exchange: ExchangeListing };

const TYPE_LABELS: Record<RoomType, string> = { file: 'Files', concept: 'Concepts', workflow: 'Workflows' };
const TYPE_ICONS: Record<RoomType, string> = { file: 'file-code', concept: 'lightbulb', workflow: 'gear' };

const rooms = (n: number): string => `${n} room${n === 1 ? '' : 's'}`;

/**
 * The "Rooms" view: core's room tree (core/roomTree.ts) as it is — projects (when rooms of more than one), room
 * types, the largest or most recent rooms with the rest under "N more…", then a room's exchanges.
 */
export class RoomsView extends Disposable implements vscode.TreeDataProvider<RoomNode> {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private sortBy: RoomSort = 'recency';
  private filterText = '';
  readonly view: vscode.TreeView<RoomNode>;

  constructor(private readonly index: IndexService) {
    super();
    this.view = this.register(vscode.window.createTreeView('agentRecall.rooms', { treeDataProvider: this, showCollapseAll: true }));
    this.register(index.onDidChange(() => {
      if (index.currentState === 'idle') this.changed.fire();
    }));
    void vscode.commands.executeCommand('setContext', 'agentRecall.roomSort', this.sortBy);
  }

  get sort(): RoomSort {
    return this.sortBy;
  }

  get filter(): string {
    return this.filterText;
  }

  setSort(sort: RoomSort): void {
    this.sortBy = sort;
    void vscode.commands.executeCommand('setContext', 'agentRecall.roomSort', sort);
    this.changed.fire();
  }

  setFilter(text: string): void {
    this.filterText = text.trim();
    this.view.description = this.filterText ? `filter: ${visible(this.filterText)}` : undefined;
    this.changed.fire();
  }

  async askFilter(): Promise<void> {
    const text = await vscode.window.showInputBox({
      title: 'Filter rooms',
      prompt: 'Show rooms whose label or key contains this text (empty shows all).',
      value: this.filterText,
    });
    if (text !== undefined) this.setFilter(text);
  }

  getTreeItem(node: RoomNode): vscode.TreeItem {
    switch (node.kind) {
      case 'project': {
        const p = node.project;
        const state = node.first ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
        // a project is the folder a transcript recorded: its name is transcript text
        const item = new vscode.TreeItem(visible(p.label), state);
        item.description = `${rooms(p.rooms)} · ${relativeDate(p.lastAt)}`;
        item.tooltip = `${p.project !== undefined ? visible(p.project) : 'Exchanges whose agent recorded no project folder'}: ${rooms(p.rooms)}, last ${shortDate(p.lastAt)}`;
        item.iconPath = new vscode.ThemeIcon(p.project !== undefined ? 'root-folder' : 'question');
        item.id = `project:${p.project ?? ''}`;
        return item;
      }
      case 'type': {
        const n = node.group.first.length + node.group.more.length;
        const item = new vscode.TreeItem(TYPE_LABELS[node.group.type], vscode.TreeItemCollapsibleState.Expanded);
        item.description = rooms(n);
        item.iconPath = new vscode.ThemeIcon(TYPE_ICONS[node.group.type]);
        item.id = `type:${node.scope}:${node.group.type}`;
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(`${node.group.more.length} more…`, vscode.TreeItemCollapsibleState.Collapsed);
        item.tooltip = `The other ${rooms(node.group.more.length)} of this type, in the same order (sort by size or recency)`;
        item.id = `more:${node.scope}:${node.group.type}`;
        return item;
      }
      case 'room': {
        const r = node.room;
        const item = new vscode.TreeItem(visible(r.label), vscode.TreeItemCollapsibleState.Collapsed);
        item.description = `${r.count} · ${relativeDate(r.lastAt)}`;
        const also = r.aliases.length ? `\nAlso: ${r.aliases.map((a) => visible(a)).join(', ')}` : '';
        item.tooltip = `${visible(r.label)} (${r.type}: ${visible(r.key)}): ${r.count} exchange${r.count === 1 ? '' : 's'}, last ${shortDate(r.lastAt)}${also}`;
        item.contextValue = 'room';
        item.id = `room:${r.id}`;
        return item;
      }
      case 'exchange': {
        const e = node.exchange;
        const item = new vscode.TreeItem(headline(e, NARROW_HEADLINE), vscode.TreeItemCollapsibleState.None);
        item.description = `${relativeDate(e.startedAt)} · ${AGENT_NAMES[e.agent]}`;
        // plain text: a Markdown tooltip makes a link of a URL in it, even when appended as text
        item.tooltip = visible(`${e.core ?? e.prompt}${e.context ? `\n\n${e.context}` : ''}`, { lines: true });
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.command = { command: 'agentRecall.openExchange', title: 'Open Exchange', arguments: [e.exchangeId] };
        item.id = `ex:${node.roomId}:${e.exchangeId}`;
        return item;
      }
    }
  }

  async getChildren(node?: RoomNode): Promise<RoomNode[]> {
    const memory = await this.index.memory().catch(() => undefined);
    if (!memory) return [];
    if (!node) {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const projects = await memory.roomTree(this.sortBy, this.filterText, folders);
      this.view.message = projects.length || !this.filterText ? undefined : `No room matches "${this.filterText}".`;
      if (projects.length === 1) return typeNodes(projects[0]!);
      return projects.map((project, i) => ({ kind: 'project' as const, project, first: i === 0 }));
    }
    switch (node.kind) {
      case 'project':
        return typeNodes(node.project);
      case 'type':
        return [
          ...node.group.first.map((room) => ({ kind: 'room' as const, room })),
          ...(node.group.more.length ? [{ kind: 'more' as const, scope: node.scope, group: node.group }] : []),
        ];
      case 'more':
        return node.group.more.map((room) => ({ kind: 'room' as const, room }));
      case 'room':
        return (await memory.roomExchanges(node.room.id)).map((exchange) => ({ kind: 'exchange' as const, roomId: node.room.id, exchange }));
      default:
        return [];
    }
  }

  getParent(): undefined {
    return undefined;
  }
}

function typeNodes(project: RoomProject): RoomNode[] {
  return project.types.map((group) => ({ kind: 'type' as const, scope: project.project ?? '', group }));
}
