import * as vscode from 'vscode';
import { isHubModel, resolveModelSpec } from '../core/embed/openEmbedder';
import type { Config } from './config';
import type { IndexService } from './indexService';
import { log } from './log';

/**
 * Offers the workspace's memory to agent mode as an MCP server (`agent-recall mcp` over stdio, run by the
 * extension host's own runtime) through the MCP server definition API of VS Code 1.101+. Older VS Code has
 * no such API; there the language-model tools (lmTools.ts) are the agents' way in. The SDK never loads in
 * the extension host: the server is another process.
 */

/** The id declared in package.json `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'agentRecall.memory';

/** What VS Code runs: the shape of `vscode.McpStdioServerDefinition` (not in @types/vscode 1.100). */
export interface McpServerLaunch {
  readonly label: string;
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly version: string;
}

interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<unknown[]>;
  resolveMcpServerDefinition?(server: unknown, token: vscode.CancellationToken): vscode.ProviderResult<unknown>;
}

/** The parts of the 1.101+ API used here, looked up at run time so older hosts simply lack them. */
interface McpApi {
  readonly McpStdioServerDefinition: new (label: string, command: string, args?: string[], env?: Record<string, string>, version?: string) => unknown;
  registerMcpServerDefinitionProvider(id: string, provider: McpServerDefinitionProvider): vscode.Disposable;
}

function mcpApi(): McpApi | undefined {
  const ns = vscode as unknown as { McpStdioServerDefinition?: McpApi['McpStdioServerDefinition']; lm?: Partial<McpApi> };
  const register = ns.lm?.registerMcpServerDefinitionProvider;
  if (typeof register !== 'function' || typeof ns.McpStdioServerDefinition !== 'function') return undefined;
  return { McpStdioServerDefinition: ns.McpStdioServerDefinition, registerMcpServerDefinitionProvider: register.bind(ns.lm) };
}

export class McpServerProvider implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** Whether this VS Code has the MCP server definition API and the provider is registered. */
  readonly registered: boolean;

  constructor(
    private readonly extension: vscode.ExtensionContext['extension'],
    private readonly index: IndexService,
    private readonly config: Config,
    private readonly folders: readonly string[],
    /** Where the extension downloads hub models (EmbedderService): the server loads them from there. */
    private readonly modelCache: string,
  ) {
    const api = mcpApi();
    this.registered = api !== undefined;
    if (!api) {
      log.info('This VS Code has no MCP server definition API (1.101+); agents reach the memory through the language-model tools.');
      return;
    }
    this.disposables.push(
      api.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: this.changed.event,
        provideMcpServerDefinitions: () => {
          const launch = this.launch();
          return launch ? [new api.McpStdioServerDefinition(launch.label, launch.command, launch.args, launch.env, launch.version)] : [];
        },
        // the server opens the store read-only, so it must exist first: opening the memory creates it
        resolveMcpServerDefinition: async (server) => {
          await this.index.memory();
          return server;
        },
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        // new arguments: VS Code restarts the server with them
        if (['agentRecall.mcp', 'agentRecall.embed.model', 'agentRecall.scope'].some((k) => e.affectsConfiguration(k))) this.changed.fire();
      }),
    );
  }

  /**
   * The server VS Code starts for this workspace, or undefined when there is none to offer: it serves the store of
   * the scope in force, and in `workspace` scope nothing outside the workspace's folders (ScopedMemory).
   */
  launch(): McpServerLaunch | undefined {
    const scope = this.config.scope;
    const file = this.index.workspace.storeFileOf(scope);
    if (!file || this.folders.length === 0 || !this.config.mcpEnabled) return undefined;
    const cli = vscode.Uri.joinPath(this.extension.extensionUri, 'dist', 'cli.js').fsPath;
    return {
      label: 'Agent Recall',
      // the extension host's runtime: Node under code-server, Electron (run as Node) in desktop VS Code
      command: process.execPath,
      args: [
        cli,
        'mcp',
        '--db',
        file,
        ...(scope === 'workspace' ? this.folders.flatMap((f) => ['--workspace', f]) : []),
        // said either way: the CLI redacts by default, and only --no-redact turns it off
        this.config.mcpRedactSecrets ? '--redact' : '--no-redact',
        ...this.modelArgs(),
      ],
      env: { ELECTRON_RUN_AS_NODE: '1' },
      version: String((this.extension.packageJSON as { version?: string }).version ?? '0.0.0'),
    };
  }

  /** With semantic search on, the configured model; the server never downloads it (see agent-recall mcp). */
  private modelArgs(): string[] {
    const model = this.config.embedModel;
    if (model === '') return [];
    // a folder as the host resolves it (the server's working directory is VS Code's choice), or built-in
    return isHubModel(model) ? ['--embed-model', model, '--model-cache', this.modelCache] : ['--embed-model', resolveModelSpec(model)];
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
