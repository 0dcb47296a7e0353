import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { Config } from './host/config';
import { ExchangeViewer } from './host/exchangeViewer';
import { IndexService, type IndexSummary } from './host/indexService';
import { log } from './host/log';
import { StatusBar } from './host/statusBar';
import { StatusViewProvider } from './host/statusView';

/** What `activate` returns: used by the in-host tests and by other extensions. */
export interface AgentRecallApi {
  waitForIndexIdle(): Promise<void>;
  getIndexSummary(): Promise<IndexSummary | undefined>;
}

/** Wires things up and returns at once; indexing starts in the background after activation. */
export function activate(context: vscode.ExtensionContext): AgentRecallApi {
  try {
    const config = new Config();
    const index = new IndexService(context.storageUri, config);
    const viewer = new ExchangeViewer(index);
    context.subscriptions.push(
      log,
      index,
      viewer,
      new StatusBar(index),
      vscode.window.registerTreeDataProvider('agentRecall.status', new StatusViewProvider(index)),
      ...registerCommands({ index, viewer }),
      vscode.workspace.onDidChangeConfiguration((e) => onConfigChange(e, index)),
    );
    if (config.autoIndex) setTimeout(() => void index.index(), 0);
    return {
      waitForIndexIdle: () => index.whenIdle(),
      getIndexSummary: () => index.summary(),
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
  } else if (Config.requiresReindex.some((k) => e.affectsConfiguration(k))) {
    await index.index();
  }
}

export function deactivate(): void {
  // Disposables in context.subscriptions close the store.
}
