import * as vscode from 'vscode';
import { headline, NARROW_HEADLINE } from '../core/format';
import type { ExchangeListing, RoomSort, RoomSummary } from '../core/memory';
import { AGENT_NAMES, ROOM_TYPES, type RoomType } from '../core/model';
import { compareText } from '../core/order';
import { relativeDate, shortDate } from '../core/time';
import type { FileHistoryIndex } from './fileHistoryIndex';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

export type RoomNode =
  | { readonly kind: 'type'; readonly type: RoomType; readonly rooms: readonly RoomSummary[] }
  | { readonly kind: 'room'; readonly room: RoomSummary }
  | { readonly kind: 'exchange'; readonly roomId: string; readonly exchange: ExchangeListing };

const TYPE_LABELS: Record<RoomType, string> = { file: 'Files', concept: 'Concepts', workflow: 'Workflows' };
const TYPE_ICONS: Record<RoomType, string> = { file: 'file-code', concept: 'lightbulb', workflow: 'gear' };

/** The "Rooms" view: room types → rooms (label, count) → exchanges (core, date), sorted and filtered. */
export class RoomsView extends Disposable implements vscode.TreeDataProvider<RoomNode> {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private sortBy: RoomSort = 'recency';
  private filterText = '';
  readonly view: vscode.TreeView<RoomNode>;

  constructor(
    private readonly index: IndexService,
    private readonly files?: FileHistoryIndex,
  ) {
    super();
    this.view = this.register(vscode.window.createTreeView('agentRecall.rooms', { treeDataProvider: this, showCollapseAll: true }));
    this.register(index.onDidChange(() => {
      if (index.currentState === 'idle') this.changed.fire();
    }));
    if (files) this.register(files.onDidChange(() => this.changed.fire()));
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
    this.view.description = this.filterText ? `filter: ${this.filterText}` : undefined;
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
      case 'type': {
        const item = new vscode.TreeItem(TYPE_LABELS[node.type], vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${node.rooms.length} room${node.rooms.length === 1 ? '' : 's'}`;
        item.iconPath = new vscode.ThemeIcon(TYPE_ICONS[node.type]);
        item.id = `type:${node.type}`;
        return item;
      }
      case 'room': {
        const r = node.room;
        const item = new vscode.TreeItem(r.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = `${r.count} · ${relativeDate(r.lastAt)}`;
        item.tooltip = `${r.label} (${r.type}: ${r.key}): ${r.count} exchange${r.count === 1 ? '' : 's'}, last ${shortDate(r.lastAt)}`;
        item.contextValue = 'room';
        item.id = `room:${r.id}`;
        return item;
      }
      case 'exchange': {
        const e = node.exchange;
        const item = new vscode.TreeItem(headline(e, NARROW_HEADLINE), vscode.TreeItemCollapsibleState.None);
        item.description = `${relativeDate(e.startedAt)} · ${AGENT_NAMES[e.agent]}`;
        item.tooltip = new vscode.MarkdownString().appendText(`${e.core ?? e.prompt}${e.context ? `\n\n${e.context}` : ''}`);
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
      const rooms = this.asFileHistory(await memory.rooms(this.sortBy, this.filterText));
      this.view.message = rooms.length || !this.filterText ? undefined : `No room matches "${this.filterText}".`;
      return ROOM_TYPES.map((type) => ({ kind: 'type' as const, type, rooms: rooms.filter((r) => r.type === type) })).filter(
        (t) => t.rooms.length > 0,
      );
    }
    if (node.kind === 'type') return node.rooms.map((room) => ({ kind: 'room' as const, room }));
    if (node.kind === 'room') {
      const file = node.room.type === 'file' ? this.files?.pathOfRoomKey(node.room.key) : undefined;
      if (file) return (await this.files!.entries(file, 200)).map((exchange) => ({ kind: 'exchange' as const, roomId: node.room.id, exchange }));
      return (await memory.roomExchanges(node.room.id)).map((exchange) => ({ kind: 'exchange' as const, roomId: node.room.id, exchange }));
    }
    return [];
  }

  /**
   * A file room holds every exchange that touched its file, as the File History view and the explorer badge
   * count them (the distiller files an exchange under its main file only, which made the counts disagree).
   */
  private asFileHistory(rooms: RoomSummary[]): RoomSummary[] {
    if (!this.files) return rooms;
    const out = rooms.map((r) => {
      const file = r.type === 'file' ? this.files!.pathOfRoomKey(r.key) : undefined;
      const c = file ? this.files!.countOf(file) : undefined;
      return c ? { ...r, count: c.count, ...(c.lastAt ? { lastAt: c.lastAt } : {}) } : r;
    });
    const rank = (r: RoomSummary): [number, string] => (this.sortBy === 'size' ? [r.count, r.lastAt ?? ''] : [0, r.lastAt ?? '']);
    // the store sorted by its counts: re-sort file rooms by theirs (other types keep the store's order)
    const files = out.filter((r) => r.type === 'file').sort((a, b) => {
      const [ca, la] = rank(a);
      const [cb, lb] = rank(b);
      return cb - ca || compareText(lb, la);
    });
    let i = 0;
    return out.map((r) => (r.type === 'file' ? files[i++]! : r));
  }

  getParent(): undefined {
    return undefined;
  }
}
