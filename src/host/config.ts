import * as vscode from 'vscode';
import { BUILTIN_MODEL } from '../core/embed/openEmbedder';
import type { SegmentOptions } from '../core/segment';
import type { RecallScope } from '../core/storeLocation';

export type DistillerKind = 'offline' | 'anthropic' | 'vscode-lm';

/** The distillation settings (agentRecall.distill.*), read together. */
export interface DistillSettings {
  readonly distiller: DistillerKind;
  /** The user's opt-in to sending exchange text off the machine (machine scope: no workspace can set it). */
  readonly allowRemote: boolean;
  readonly anthropic: { readonly model: string; readonly baseUrl: string; readonly concurrency: number; readonly batchSize: number };
  readonly vscodeLmFamily: string;
  readonly pricePerMTokIn: number;
  readonly pricePerMTokOut: number;
}

/** The one place that reads settings: a typed getter per setting. */
export class Config {
  private get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('agentRecall');
  }

  private get<T>(key: string, fallback: T): T {
    return this.cfg.get<T>(key) ?? fallback;
  }

  /** This workspace's history, or every project's (each scope keeps its own store: storeLocation.ts). */
  get scope(): RecallScope {
    return this.get<string>('scope', 'workspace') === 'allHistory' ? 'allHistory' : 'workspace';
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
  /** Other VS Code-family user-data folders (Insiders, VSCodium, Cursor) whose Copilot Chat sessions are read. */
  get userDataDirs(): string[] {
    return this.get<string[]>('sources.userDataDirs', []);
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
  get codeLens(): boolean {
    return this.get('fileHistory.codeLens', true);
  }
  get memoryTokenBudget(): number {
    return Math.max(200, this.get('memory.tokenBudget', 4000));
  }
  /** Offer the memory to agent mode as an MCP server (VS Code 1.101+). */
  get mcpEnabled(): boolean {
    return this.get('mcp.enabled', true);
  }
  /** Replace secrets in what the MCP server returns to agents. */
  get mcpRedactSecrets(): boolean {
    return this.get('mcp.redactSecrets', true);
  }
  get segment(): Omit<SegmentOptions, 'workspaceRoot'> {
    return {
      minChars: this.get('segmentation.minExchangeChars', 100),
      maxPlies: this.get('segmentation.maxPlies', 20),
    };
  }

  /** `built-in` (the default: the model shipped in the extension), a Hugging Face hub id or a local model folder; '' turns semantic search off. */
  get embedModel(): string {
    return this.get('embed.model', BUILTIN_MODEL).trim();
  }

  /** Sets the embedding model for the user (all workspaces): what "Choose Semantic Search Model" chose. */
  setEmbedModel(value: string): Thenable<void> {
    return this.cfg.update('embed.model', value, vscode.ConfigurationTarget.Global);
  }

  get distill(): DistillSettings {
    const kind = this.get<string>('distill.distiller', 'offline');
    return {
      distiller: kind === 'anthropic' || kind === 'vscode-lm' ? kind : 'offline',
      allowRemote: this.get('distill.allowRemote', false),
      anthropic: {
        model: this.get('distill.anthropic.model', '').trim(),
        baseUrl: this.get('distill.anthropic.baseUrl', '').trim(),
        concurrency: Math.min(16, Math.max(1, Math.floor(this.get('distill.anthropic.concurrency', 4)))),
        batchSize: Math.min(20, Math.max(1, Math.floor(this.get('distill.anthropic.batchSize', 1)))),
      },
      vscodeLmFamily: this.get('distill.vscodeLm.family', '').trim(),
      pricePerMTokIn: Math.max(0, this.get('distill.pricePerMTokIn', 1)),
      pricePerMTokOut: Math.max(0, this.get('distill.pricePerMTokOut', 5)),
    };
  }

  /** Settings whose change invalidates what is already indexed. */
  static readonly requiresRebuild = ['agentRecall.segmentation.minExchangeChars', 'agentRecall.segmentation.maxPlies'];
  /** Settings whose change needs the embedding stage again (a new model re-embeds everything). */
  static readonly requiresReembed = ['agentRecall.embed.model'];
  /** Settings whose change changes which folders live indexing watches. */
  static readonly requiresRewatch = [
    'agentRecall.sources.claudeCode.roots',
    'agentRecall.sources.codex.roots',
    'agentRecall.sources.extraRoots',
    'agentRecall.indexing.live',
  ];
  /** Settings whose change opens the other store: the window recalls another history. */
  static readonly requiresRescope = ['agentRecall.scope'];
  /** Settings whose change only needs a new discovery pass. */
  static readonly requiresReindex = [
    'agentRecall.sources.claudeCode.roots',
    'agentRecall.sources.codex.roots',
    'agentRecall.sources.extraRoots',
    'agentRecall.sources.userDataDirs',
    'agentRecall.sources.includeSubagents',
  ];
}
