import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { Config } from './host/config';
import { distillerStatus, type DistillerStatus } from './host/distillerChoice';
import { EmbedderService } from './host/embedderService';
import { IndexService, type IndexSummary } from './host/indexService';
import { LlmDistillation } from './host/llmDistillRun';
import { log } from './host/log';
import { StatusBar } from './host/statusBar';
import { StatusViewProvider } from './host/statusView';
import type { SearchQuery, SearchResult } from './core/search/types';

/** What `activate` returns: used by the in-host tests and by other extensions. */
export interface AgentRecallApi {
  waitForIndexIdle(): Promise<void>;
  getIndexSummary(): Promise<IndexSummary | undefined>;
  /** Which distiller would run now and why (never prompts). */
  getDistillerStatus(): Promise<DistillerStatus>;
  /** A search of the workspace's memory with the configured model (lexical with a notice without one). */
  search(query: SearchQuery): Promise<SearchResult>;
}

/** Wires things up and returns at once; indexing starts in the background after activation. */
export function activate(context: vscode.ExtensionContext): AgentRecallApi {
  try {
    const config = new Config();
    const embedders = new EmbedderService(vscode.Uri.joinPath(context.globalStorageUri, 'models').fsPath, config);
    const llm = new LlmDistillation(config, context.secrets, context.globalState);
    const index = new IndexService(context.storageUri, config, embedders, llm);
    context.subscriptions.push(
      log,
      index,
      embedders,
      new StatusBar(index),
      vscode.window.registerTreeDataProvider('agentRecall.status', new StatusViewProvider(index)),
      ...registerCommands({ index, secrets: context.secrets }),
      vscode.workspace.onDidChangeConfiguration((e) => onConfigChange(e, index)),
    );
    if (config.autoIndex) setTimeout(() => void index.index(), 0);
    return {
      waitForIndexIdle: () => index.whenIdle(),
      getIndexSummary: () => index.summary(),
      getDistillerStatus: () => distillerStatus({ settings: config.distill, secrets: context.secrets, memento: context.globalState }),
      search: async (query) => (await index.searcher()).search(query),
    };
  } catch (err) {
    void vscode.window.showErrorMessage(`Cannot activate Agent Recall: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

async function onConfigChange(e: vscode.ConfigurationChangeEvent, index: IndexService): Promise<void> {
  if (Config.requiresRebuild.some((k) => e.affectsConfiguration(k))) {
    const choice = await vscode.window.showInformationMessage(
      'Agent Recall: this setting changes how exchanges are cut. Rebuild the index now?',
      'Rebuild Index',
    );
    if (choice === 'Rebuild Index') await index.rebuild();
  } else if ([...Config.requiresReindex, ...Config.requiresReembed].some((k) => e.affectsConfiguration(k))) {
    await index.index();
  }
}

export function deactivate(): void {
  // Disposables in context.subscriptions close the store.
}
