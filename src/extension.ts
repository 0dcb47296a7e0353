import { loadStart } from './host/loadStart';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostMessage } from './protocol';
import type { ViewerMessage } from './viewerProtocol';
import { registerCommands } from './host/commands';
import { Config } from './host/config';
import { ExchangeViewer } from './host/exchangeViewer';
import { ActiveFileStatus } from './host/activeFileStatus';
import { FileDecorations } from './host/fileDecorations';
import { FileHistoryIndex } from './host/fileHistoryIndex';
import { FileHistoryView } from './host/fileHistoryView';
import { FileHover } from './host/fileHover';
import { trackAnthropicKey } from './host/anthropicKey';
import { AgentCodeLens } from './host/codeLens';
import { LiveWatcher } from './host/liveWatcher';
import { registerLmTools } from './host/lmTools';
import { type McpServerLaunch, McpServerProvider } from './host/mcpServer';
import { RecallPanel } from './host/recallPanel';
import { RoomsView } from './host/roomsView';
import { distillerStatus, type DistillerStatus } from './host/distillerChoice';
import { EmbedderService } from './host/embedderService';
import { type IndexEvent, IndexService, type IndexSummary } from './host/indexService';
import { WorkspaceMemory } from './host/workspaceMemory';
import { LlmDistillation } from './host/llmDistillRun';
import { log } from './host/log';
import { StatusBar } from './host/statusBar';
import { StatusViewProvider } from './host/statusView';
import type { SearchQuery, SearchResult } from './core/search/types';
import { STORE_FILE, workspaceStoreFile } from './core/storeLocation';
import { openWalkthroughOnce } from './host/walkthrough';

/** This module's body runs last in the bundle, once every import has been evaluated. */
const loadEnd = performance.now();

/** What `activate` returns: used by the in-host tests and by other extensions. */
export interface AgentRecallApi {
  waitForIndexIdle(): Promise<void>;
  getIndexSummary(): Promise<IndexSummary | undefined>;
  /** The workspace's store file (other tools may open it read-only). */
  readonly storeFile: string | undefined;
  /** The tree providers, to read what the views show. */
  readonly views: { readonly rooms: RoomsView; readonly fileHistory: FileHistoryView; readonly status: StatusViewProvider };
  /** The explorer badge of a file, as the decoration provider gives it. */
  fileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined;
  /** The status-bar text of the active editor's file history, when shown. */
  activeFileStatus(): string | undefined;
  /** Re-reads which files exchanges touched (done after every index run). */
  reloadFileHistory(): Promise<void>;
  /** How many index runs file changes triggered. */
  liveTriggers(): number;
  /** Whether the recall panel is open and the last messages it was sent. */
  recallPanel(): { open: boolean; posted: HostMessage[] };
  /** The exchange the viewer shows (when open) and the last messages it was sent. */
  exchangeViewer(): { shown: string | undefined; posted: ViewerMessage[] };
  /** Which distiller would run now and why (never prompts). */
  getDistillerStatus(): Promise<DistillerStatus>;
  /** Every change of the index state, with the summary as it now stands. */
  onIndexChange: vscode.Event<IndexEvent>;
  /** A search of the workspace's memory with the configured model (lexical with a notice without one). */
  search(query: SearchQuery): Promise<SearchResult>;
  /** Whether the MCP server is offered to agent mode (VS Code 1.101+), and the command it runs. */
  readonly mcp: { readonly registered: boolean; launch(): McpServerLaunch | undefined };
}

/** Wires things up and returns at once; indexing starts in the background after activation. */
export function activate(context: vscode.ExtensionContext): AgentRecallApi {
  const activateStart = performance.now();
  try {
    const config = new Config();
    const modelCache = vscode.Uri.joinPath(context.globalStorageUri, 'models').fsPath;
    const embedders = new EmbedderService(modelCache, config);
    const llm = new LlmDistillation(config, context.secrets, context.globalState);
    // the store lives where `agent-recall mcp --workspace DIR` finds it too (core/storeLocation.ts)
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const storeDir = folders.length ? vscode.Uri.file(path.dirname(workspaceStoreFile(context.globalStorageUri.fsPath, folders))) : undefined;
    const legacyStore = context.storageUri ? vscode.Uri.joinPath(context.storageUri, STORE_FILE).fsPath : undefined;
    const workspace = new WorkspaceMemory(storeDir, embedders, legacyStore, config.scope);
    const index = new IndexService(workspace, storeDir, config, llm);
    const mcp = new McpServerProvider(context.extension, index, config, folders, modelCache);
    const viewer = new ExchangeViewer(context.extensionUri, index);
    const files = new FileHistoryIndex(index);
    const decorations = new FileDecorations(files, config);
    const hover = new FileHover(files);
    const codeLens = new AgentCodeLens(files, config);
    const fileHistory = new FileHistoryView(files);
    const rooms = new RoomsView(index);
    const live = new LiveWatcher(index, config);
    const activeFile = new ActiveFileStatus(files);
    const recall = new RecallPanel(context.extensionUri, index, viewer);
    const status = new StatusViewProvider(index);
    context.subscriptions.push(
      log,
      workspace,
      index,
      embedders,
      viewer,
      files,
      decorations,
      codeLens,
      fileHistory,
      rooms,
      live,
      activeFile,
      recall,
      mcp,
      vscode.languages.registerHoverProvider([{ scheme: 'file' }, { scheme: 'untitled' }], hover),
      new StatusBar(index),
      status,
      vscode.window.registerTreeDataProvider('agentRecall.status', status),
      ...registerLmTools(index),
      ...registerCommands({ index, viewer, fileHistory, rooms, recall, config, secrets: context.secrets, embedders }),
      vscode.workspace.onDidChangeConfiguration((e) => onConfigChange(e, index, live, config)),
      trackAnthropicKey(context.secrets),
    );
    // what the in-host tests observe, recorded here rather than inside the classes
    let liveTriggers = 0;
    const posted: HostMessage[] = [];
    context.subscriptions.push(
      live.onDidTrigger(() => liveTriggers++),
      recall.onDidPost((m) => {
        posted.push(m);
        if (posted.length > 20) posted.shift();
      }),
    );
    if (config.autoIndex) setTimeout(() => void index.index(), 0);
    void openWalkthroughOnce(context.globalState).catch((err) => log.warn(`Could not open the walkthrough: ${err instanceof Error ? err.message : String(err)}`));
    const evaluating = Math.round(loadEnd - loadStart);
    const activating = Math.round(performance.now() - activateStart);
    log.info(`Activated in ${evaluating + activating} ms (bundle evaluation ${evaluating} ms + activate() ${activating} ms).`);
    return {
      waitForIndexIdle: () => index.whenIdle(),
      onIndexChange: index.onDidChange,
      getIndexSummary: () => index.summary(),
      // the scope in force names the file (agentRecall.scope)
      get storeFile() {
        return index.storeFile;
      },
      views: { rooms, fileHistory, status },
      fileDecoration: (uri) => decorations.provideFileDecoration(uri),
      activeFileStatus: () => activeFile.text,
      reloadFileHistory: () => files.reload(),
      liveTriggers: () => liveTriggers,
      recallPanel: () => ({ open: recall.isOpen, posted: [...posted] }),
      exchangeViewer: () => ({ shown: viewer.shown, posted: [...viewer.posted] }),
      getDistillerStatus: () => distillerStatus({ settings: config.distill, secrets: context.secrets, memento: context.globalState }),
      search: (query) => index.searching((memory, embedding) => memory.search(query, embedding)),
      mcp: { registered: mcp.registered, launch: () => mcp.launch() },
    };
  } catch (err) {
    void vscode.window.showErrorMessage(`Cannot activate Agent Recall: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

async function onConfigChange(e: vscode.ConfigurationChangeEvent, index: IndexService, live: LiveWatcher, config: Config): Promise<void> {
  // another history: its own store, opened and brought up to date now (every view refreshes on the run's events)
  if (Config.requiresRescope.some((k) => e.affectsConfiguration(k))) return index.switchScope(config.scope);
  // new transcript folders are watched at once, not after a reload
  if (Config.requiresRewatch.some((k) => e.affectsConfiguration(k))) live.start();
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
