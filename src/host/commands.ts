import * as vscode from 'vscode';
import { clearAnthropicApiKey, setAnthropicApiKey } from './anthropicKey';
import { openExchanges } from './codeLens';
import type { Config } from './config';
import type { EmbedderService } from './embedderService';
import type { ExchangeViewer } from './exchangeViewer';
import { storedPathOf } from './fileHistoryIndex';
import type { FileHistoryView } from './fileHistoryView';
import type { IndexService } from './indexService';
import { log, showError } from './log';
import { showMemoryForAgent } from './memory';
import { RawDocuments } from './rawDocuments';
import type { RecallPanel } from './recallPanel';
import type { RoomsView } from './roomsView';
import { chooseSemanticModel } from './semanticSearch';

/** Everything a command handler may use. */
export interface CommandContext {
  readonly index: IndexService;
  readonly viewer: ExchangeViewer;
  readonly fileHistory: FileHistoryView;
  readonly rooms: RoomsView;
  readonly recall: RecallPanel;
  readonly config: Config;
  readonly secrets: vscode.SecretStorage;
  readonly embedders: EmbedderService;
}

type Handler = (ctx: CommandContext) => (...args: unknown[]) => unknown;

/** Command ids (without the `agentRecall.` prefix) -> handler factories. A test checks them against package.json. */
export const COMMANDS: Record<string, Handler> = {
  rebuildIndex: (ctx) => () => ctx.index.rebuild(),
  indexNow: (ctx) => () => ctx.index.index({ notify: true }),
  // the summary lives in the Index view (a notification's detail is not shown by VS Code)
  showIndexSummary: () => () => vscode.commands.executeCommand('agentRecall.status.focus'),
  showLog: () => () => log.show(),
  openExchange: (ctx) => (id) => ctx.viewer.open(requireId(id)),
  openExchanges: (ctx) => (ids) => openExchanges(ids, async (list) => (await ctx.index.memory()).listings(list.map(requireId))),
  previousExchange: (ctx) => () => ctx.viewer.step('previous'),
  nextExchange: (ctx) => () => ctx.viewer.step('next'),
  openTranscript: (ctx) => (id) => ctx.viewer.openTranscript(typeof id === 'string' ? id : undefined),
  // from a raw view's title the argument is its URI, from the viewer's nothing (the exchange shown)
  revealTranscript: (ctx) => (arg) => ctx.viewer.revealTranscript(typeof arg === 'string' ? arg : RawDocuments.exchangeOf(arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri)),
  openTouchedFile: (ctx) => (id, file) => ctx.viewer.openTouchedFile(requireId(id), typeof file === 'string' ? file : undefined),
  showFileHistory: () => () => vscode.commands.executeCommand('agentRecall.fileHistory.focus'),
  sortRoomsByRecency: (ctx) => () => ctx.rooms.setSort('recency'),
  sortRoomsBySize: (ctx) => () => ctx.rooms.setSort('size'),
  filterRooms: (ctx) => () => ctx.rooms.askFilter(),
  recall: (ctx) => (text) => ctx.recall.show(typeof text === 'string' ? { text } : undefined),
  showMemoryForAgent: (ctx) => (query) => showMemoryForAgent(ctx.index, ctx.config, query),
  recallAboutFile: (ctx) => (uri) => ctx.recall.show({ text: '', facets: { file: fileOf(ctx, uri) } }),
  recallInRoom: (ctx) => (node) => ctx.recall.show({ text: '', facets: { room: roomOf(node) } }),
  setAnthropicApiKey: (ctx) => (key?: unknown) => setAnthropicApiKey(ctx.secrets, key),
  clearAnthropicApiKey: (ctx) => () => clearAnthropicApiKey(ctx.secrets),
  turnOnSemanticSearch: (ctx) => () => chooseSemanticModel(ctx.embedders, ctx.index, ctx.config),
};

/** The stored path of the file a command was invoked on (editor title menu), else of the File History view. */
function fileOf(ctx: CommandContext, uri: unknown): string {
  const p = uri instanceof vscode.Uri ? storedPathOf(uri) : (ctx.fileHistory.file ?? storedPathOf(vscode.window.activeTextEditor?.document.uri ?? vscode.Uri.parse('untitled:')));
  if (!p) throw new Error('Open a file first.');
  return p;
}

/** The room of a Rooms-tree node (the context menu passes the node). */
function roomOf(node: unknown): { id: string; label: string } {
  const room = (node as { kind?: string; room?: { id?: unknown; label?: unknown } } | undefined)?.room;
  if (typeof room?.id !== 'string' || typeof room.label !== 'string') throw new Error('Choose a room in the Rooms view.');
  return { id: room.id, label: room.label };
}

/** Command arguments come from links and other extensions: check them. */
function requireId(id: unknown): string {
  if (typeof id !== 'string' || !/^[\w-]{6,}$/.test(id)) throw new Error(`Not an exchange id: ${String(id)}`);
  return id;
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([name, factory]) => {
    const handler = factory(ctx);
    return vscode.commands.registerCommand(`agentRecall.${name}`, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (err) {
        // not awaited: the command settles while the message waits for the user
        void showError(`Agent Recall: ${err instanceof Error ? err.message : String(err)}`, err);
        return undefined;
      }
    });
  });
}
