import * as path from 'node:path';
import * as vscode from 'vscode';
import { modelName, type SemanticState } from './embedderService';
import type { IndexService, IndexSummary } from './indexService';
import { Disposable } from './lifecycle';
import { AGENT_NAMES, type AgentKind } from '../core/model';
import type { RecallScope } from '../core/storeLocation';
import { visible } from '../core/visible';

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
    if (parent) return parent instanceof TotalItem ? parent.agents : [];
    if (this.index.currentState === 'no-workspace') {
      return [item('Open a folder to index its agent transcripts', 'info')];
    }
    // the summary is kept by the index service (read when a run ends), so a progress tick costs no query
    const s = await this.index.summary();
    // nothing indexed and nothing happening: the view's welcome content explains where memories come from
    if (s.exchanges === 0 && s.state === 'idle' && !s.message && !s.sourcesWithErrors) return [];
    return summaryItems(s, this.index.progress);
  }
}

/** The recall key as this platform writes it. */
export const RECALL_KEY = process.platform === 'darwin' ? '⌥⌘R' : 'Ctrl+Alt+R';

function item(label: string, icon: string, description?: string, tooltip?: string): vscode.TreeItem {
  const t = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  t.iconPath = new vscode.ThemeIcon(icon);
  if (description) t.description = description;
  if (tooltip) t.tooltip = tooltip;
  return t;
}

/** The sources that could not be read, with why (from the last run: a database not in WAL mode, a half-written file). */
function unreadable(s: IndexSummary): vscode.TreeItem {
  const failed = s.lastReport?.failed ?? [];
  const first = failed[0];
  return item(
    `${counted(s.sourcesWithErrors, 'transcript')} could not be read`,
    'error',
    first ? visible(path.basename(first.path)) : undefined,
    failed.length ? visible(failed.map((f) => `${f.path}: ${f.error}`).join('\n\n'), { lines: true }) : undefined,
  );
}

/** The exchange count, with each agent's share as its children (folded when the list would crowd the view). */
class TotalItem extends vscode.TreeItem {
  constructor(s: IndexSummary, readonly agents: vscode.TreeItem[]) {
    super(counted(s.exchanges, 'exchange'), agents.length === 0 ? vscode.TreeItemCollapsibleState.None : agents.length > FOLD_AGENTS_ABOVE ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
    // a stable id keeps the row open when the view refreshes while indexing (rows above it come and go)
    this.id = 'agentRecall.index.total';
    this.iconPath = new vscode.ThemeIcon('history');
    this.description = `in ${counted(s.conversations, 'conversation')}`;
    this.tooltip = agents.map((a) => `${a.label}: ${a.description}`).join('\n') || undefined;
    this.command = { command: 'agentRecall.showIndexSummary', title: 'Show Index Summary' };
  }
}

/** The history a scope recalls, as the views say it. */
export const SCOPE_WORDS: Record<RecallScope, string> = { workspace: 'this workspace', allHistory: 'every project (all history)' };

/** Which history is recalled (agentRecall.scope), and a click that opens the setting to change it. */
function scopeItem(scope: RecallScope): vscode.TreeItem {
  const t = item(
    scope === 'allHistory' ? 'Scope: all history' : 'Scope: this workspace',
    scope === 'allHistory' ? 'globe' : 'root-folder',
    undefined,
    scope === 'allHistory'
      ? "Recalling every project's sessions the agents kept. Click to change agentRecall.scope."
      : "Recalling the sessions of this workspace's folders. Click to change agentRecall.scope (all history).",
  );
  t.id = 'agentRecall.index.scope';
  t.command = { command: 'workbench.action.openSettings', title: 'Change Scope', arguments: ['agentRecall.scope'] };
  return t;
}

/** More agents than this fold under the total, so the semantic-search and recall rows stay in sight. */
const FOLD_AGENTS_ABOVE = 3;

export function summaryItems(s: IndexSummary, progress: string | undefined): vscode.TreeItem[] {
  const items: vscode.TreeItem[] = [];
  if (s.state === 'indexing') items.push(item('Indexing…', 'sync~spin', progress));
  // a message may quote a transcript's path
  const message = s.message && visible(s.message);
  if (s.state === 'error' && message) items.push(item('Indexing failed', 'error', message, message));
  else if (message) items.push(item(message, 'warning'));
  const agents = Object.entries(s.byAgent).map(([agent, n]) => item(AGENT_NAMES[agent as AgentKind] ?? agent, 'hubot', counted(n, 'exchange')));
  items.push(new TotalItem(s, agents));
  items.push(scopeItem(s.scope));
  if (s.exchanges > 0) {
    const ratio = s.compressionRatio ? ` · ${s.compressionRatio.toFixed(1)}× smaller` : '';
    const tip = s.compressionRatio ? `Distilled objects are ${s.compressionRatio}× smaller than the verbatim exchanges (cl100k tokens).` : undefined;
    items.push(item(`${s.distilledExchanges} distilled`, 'symbol-constant', `of ${s.exchanges}${ratio}`, tip));
  }
  items.push(semanticItem(s.semantic));
  const recall = item('Recall a past conversation', 'search', RECALL_KEY, `Agent Recall: Recall Past Conversation (${RECALL_KEY})`);
  recall.command = { command: 'agentRecall.recall', title: 'Recall Past Conversation' };
  items.push(recall);
  const skipped = Object.entries(s.skippedLines);
  if (skipped.length) {
    const n = skipped.reduce((a, [, c]) => a + (c ?? 0), 0);
    items.push(item(`${counted(n, 'line')} skipped`, 'warning', skipped.map(([r, c]) => `${r} ${c}`).join(', ')));
  }
  if (s.droppedExchanges) items.push(item(`${counted(s.droppedExchanges, 'short exchange')} dropped`, 'filter'));
  if (s.sourcesWithErrors) items.push(unreadable(s));
  // short enough for a narrow side bar ("Indexed 10:27"); the date and seconds in the tooltip
  if (s.lastIndexedAt) items.push(item('Indexed', 'clock', s.lastIndexedAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), `Last indexed ${s.lastIndexedAt.toLocaleString()}`));
  return items;
}

/** "Semantic search: on (model)" or "off" with the reason, and a click that turns it on when it can. */
export function semanticItem(state: SemanticState): vscode.TreeItem {
  if (state.on) {
    // the side bar is narrow: "built-in (100-d)"; the tooltip says what that is
    const builtin = modelName(state.model) !== state.model;
    const how = builtin ? 'the word vectors shipped with the extension (nothing downloaded)' : state.model;
    return item('Semantic search: on', 'sparkle', `${builtin ? 'built-in' : state.model} (${state.dimension}-d)`, `Queries are matched by meaning with ${how}, as well as by words.`);
  }
  if (state.loading) return item('Semantic search: loading', 'loading~spin', modelName(state.model));
  // nothing failed: the model is not asked for before indexing starts
  if (state.pending) return item('Semantic search: not checked yet', 'circle-outline', '', 'The embedding model is loaded when indexing starts.');
  // the side bar is narrow: a few words here, the whole reason in the tooltip
  const short = state.fix === 'download' ? 'not downloaded' : state.fix === 'choose-model' && /setting .* is empty/.test(state.reason) ? 'no model set' : 'model failed';
  const t = item('Semantic search: off', 'circle-slash', short, `${state.reason}\n\nSearch matches words only.${state.fix ? ' Click to turn semantic search on.' : ''}`);
  if (state.fix) t.command = { command: 'agentRecall.turnOnSemanticSearch', title: 'Choose Semantic Search Model' };
  return t;
}

/** `1 exchange`, `2 exchanges`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
