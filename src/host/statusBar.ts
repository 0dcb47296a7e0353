import * as vscode from 'vscode';
import type { IndexEvent, IndexService } from './indexService';
import { visible } from '../core/visible';
import { modelName } from './embedderService';
import { Disposable } from './lifecycle';
import { RECALL_KEY, SCOPE_WORDS } from './statusView';

/** The status-bar entry: index state at a glance; a click shows the summary in the Index view. */
export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentRecall.status', vscode.StatusBarAlignment.Left, 10));

  constructor(index: IndexService) {
    super();
    this.item.name = 'Agent Recall';
    this.item.command = 'agentRecall.showIndexSummary';
    this.register(index.onDidChange((e) => this.update(e)));
    void index.summary().then((summary) => this.update({ state: index.currentState, summary }));
    this.item.show();
  }

  /** What the item shows now (read by the in-host tests). */
  get text(): string {
    return this.item.text;
  }

  private update(e: IndexEvent): void {
    const state = e.state;
    this.item.accessibilityInformation = undefined;
    if (state === 'indexing') {
      this.item.text = `$(sync~spin) Agent Recall: indexing ${e.progress ?? ''}`.trim();
      this.item.tooltip = 'Agent Recall is indexing agent transcripts. Click for the index summary.';
      return;
    }
    if (state === 'no-workspace') {
      this.item.text = '$(history) Agent Recall';
      this.item.tooltip = 'Agent Recall: open a folder to index its agent transcripts';
      return;
    }
    const s = e.summary;
    if (state === 'error') {
      this.item.text = '$(error) Agent Recall';
      this.item.tooltip = `Agent Recall: ${s.message ? visible(s.message) : 'indexing failed'}. Click for the index summary.`;
      return;
    }
    // "all history" said on the item itself: its counts are no longer this workspace's
    this.item.text = `$(history) Recall: ${s.exchanges} exchange${s.exchanges === 1 ? '' : 's'}${s.scope === 'allHistory' ? ' (all history)' : ''}`;
    const semantic = s.semantic.on ? `semantic search on (${modelName(s.semantic.model)})` : 'semantic search off';
    const words = `Agent Recall: ${s.exchanges} past agent exchanges in ${s.conversations} conversations of ${SCOPE_WORDS[s.scope]}; ${semantic}.`;
    this.item.tooltip = new vscode.MarkdownString().appendText(`${words}\n\n${RECALL_KEY} recalls a past conversation. Click for the index summary.`);
    // a screen reader reads the item's label, else its tooltip's Markdown source (appendText's &nbsp; and \( included)
    this.item.accessibilityInformation = { label: `${words} Click for the index summary.` };
  }
}
