import * as vscode from 'vscode';
import type { SegmentOptions } from '../core/segment';

/** The one place that reads settings: a typed getter per setting. */
export class Config {
  private get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('agentRecall');
  }

  private get<T>(key: string, fallback: T): T {
    return this.cfg.get<T>(key) ?? fallback;
  }

  get claudeRoots(): string[] {
    return this.get<string[]>('sources.claudeCode.roots', []);
  }
  get codexRoots(): string[] {
    return this.get<string[]>('sources.codex.roots', []);
  }
  get extraRoots(): string[] {
    return this.get<string[]>('sources.extraRoots', []);
  }
  get includeSubagents(): boolean {
    return this.get('sources.includeSubagents', true);
  }
  get autoIndex(): boolean {
    return this.get('indexing.auto', true);
  }
  get liveIndexing(): boolean {
    return this.get('indexing.live', true);
  }
  get fileDecorations(): boolean {
    return this.get('fileHistory.decorations', true);
  }
  get memoryTokenBudget(): number {
    return Math.max(200, this.get('memory.tokenBudget', 4000));
  }
  get segment(): Omit<SegmentOptions, 'workspaceRoot'> {
    return {
      minChars: this.get('segmentation.minExchangeChars', 100),
      maxPlies: this.get('segmentation.maxPlies', 20),
    };
  }

  /** Settings whose change invalidates what is already indexed. */
  static readonly requiresRebuild = ['agentRecall.segmentation.minExchangeChars', 'agentRecall.segmentation.maxPlies'];
  /** Settings whose change only needs a new discovery pass. */
  static readonly requiresReindex = [
    'agentRecall.sources.claudeCode.roots',
    'agentRecall.sources.codex.roots',
    'agentRecall.sources.extraRoots',
    'agentRecall.sources.includeSubagents',
  ];
}
