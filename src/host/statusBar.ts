import * as vscode from 'vscode';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

/** The status-bar entry: index state at a glance; a click opens the summary. */
export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentRecall.status', vscode.StatusBarAlignment.Left, 10));

  constructor(private readonly index: IndexService) {
    super();
    this.item.name = 'Agent Recall';
    this.item.command = 'agentRecall.showIndexSummary';
    this.register(index.onDidChange(() => void this.update()));
    void this.update();
    this.item.show();
  }

  private async update(): Promise<void> {
    const state = this.index.currentState;
    if (state === 'indexing') {
      this.item.text = `$(sync~spin) Recall ${this.index.progress ?? ''}`.trim();
      this.item.tooltip = 'Agent Recall is indexing agent transcripts';
      return;
    }
    if (state === 'no-workspace') {
      this.item.text = '$(history) Recall';
      this.item.tooltip = 'Agent Recall: open a folder to index its agent transcripts';
      return;
    }
    const s = await this.index.summary();
    this.item.text = state === 'error' ? '$(error) Recall' : `$(history) ${s.exchanges}`;
    this.item.tooltip = state === 'error' ? `Agent Recall: ${s.message ?? 'indexing failed'}` : `Agent Recall: ${s.exchanges} exchanges in ${s.conversations} conversations`;
  }
}
