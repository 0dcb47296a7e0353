import * as vscode from 'vscode';
import type { ExchangeViewer } from './exchangeViewer';
import type { FileHistoryView } from './fileHistory';
import type { IndexService } from './indexService';
import { log, showError } from './log';
import type { RoomsView } from './roomsView';

/** Everything a command handler may use. */
export interface CommandContext {
  readonly index: IndexService;
  readonly viewer: ExchangeViewer;
  readonly fileHistory: FileHistoryView;
  readonly rooms: RoomsView;
}

type Handler = (ctx: CommandContext) => (...args: unknown[]) => unknown;

/** Command ids (without the `agentRecall.` prefix) -> handler factories. A test checks them against package.json. */
export const COMMANDS: Record<string, Handler> = {
  rebuildIndex: (ctx) => () => ctx.index.rebuild(),
  indexNow: (ctx) => () => ctx.index.index({ notify: true }),
  showIndexSummary: (ctx) => () => showIndexSummary(ctx),
  showLog: () => () => log.show(),
  openExchange: (ctx) => (id) => ctx.viewer.open(requireId(id)),
  previousExchange: (ctx) => (uri) => ctx.viewer.step('previous', uri instanceof vscode.Uri ? uri : undefined),
  nextExchange: (ctx) => (uri) => ctx.viewer.step('next', uri instanceof vscode.Uri ? uri : undefined),
  openTranscript: (ctx) => (id) => ctx.viewer.openTranscript(typeof id === 'string' ? id : undefined),
  openTouchedFile: (ctx) => (id, file) => ctx.viewer.openTouchedFile(requireId(id), typeof file === 'string' ? file : undefined),
  showFileHistory: () => () => vscode.commands.executeCommand('agentRecall.fileHistory.focus'),
  sortRoomsByRecency: (ctx) => () => ctx.rooms.setSort('recency'),
  sortRoomsBySize: (ctx) => () => ctx.rooms.setSort('size'),
  filterRooms: (ctx) => () => ctx.rooms.askFilter(),
};

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

async function showIndexSummary(ctx: CommandContext): Promise<void> {
  const s = await ctx.index.summary();
  const agents = Object.entries(s.byAgent)
    .map(([a, n]) => `${a} ${n}`)
    .join(', ');
  const skipped = Object.values(s.skippedLines).reduce((a, n) => a + (n ?? 0), 0);
  const detail = [
    `${s.exchanges} exchanges in ${s.conversations} conversations${agents ? ` (${agents})` : ''}.`,
    `${s.verbatimTokens.toLocaleString()} verbatim tokens; ${skipped} lines skipped; ${s.droppedExchanges} short exchanges dropped.`,
    s.lastIndexedAt ? `Last indexed ${s.lastIndexedAt.toLocaleString()}.` : 'Not indexed yet.',
    s.message ?? '',
  ]
    .filter(Boolean)
    .join('\n');
  const choice = await vscode.window.showInformationMessage('Agent Recall index', { modal: false, detail }, 'Index Now', 'Show Log');
  if (choice === 'Index Now') await ctx.index.index({ notify: true });
  if (choice === 'Show Log') log.show();
}
