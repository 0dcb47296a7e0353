import * as vscode from 'vscode';
import type { ExchangeListing, FileHistoryEntry } from '../core/memory';
import type { Config } from './config';
import { headline, NARROW_HEADLINE } from '../core/format';
import { exchangeCount, type FileHistoryIndex, storedPathOf } from './fileHistoryIndex';
import { Disposable } from './lifecycle';
import { AGENT_NAMES } from '../core/model';

/** Lines an agent edited, merged where exchanges' ranges overlap, with the exchanges that edited them. */
export interface EditedSpan {
  readonly start: number;
  readonly end: number;
  readonly entries: FileHistoryEntry[];
}

/**
 * The authorship lens, in the manner of GitLens: above a file's first line "N agent exchanges touched this
 * file", above line ranges an agent edited (as the transcript recorded them) "N agent exchanges edited this".
 * A click opens the exchange, or lets you pick one of several. Only files with history get lenses.
 */
export class AgentCodeLens extends Disposable implements vscode.CodeLensProvider {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly files: FileHistoryIndex,
    private readonly config: Config,
  ) {
    super();
    this.register(files.onDidChange(() => this.changed.fire()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentRecall.fileHistory.codeLens')) this.changed.fire();
    }));
    this.register(vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this));
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    if (!this.config.codeLens) return [];
    await this.files.ready();
    const path = storedPathOf(doc.uri);
    const c = path ? this.files.countOf(path) : undefined;
    if (!path || !c) return [];
    const entries = await this.files.entries(path, 200);
    if (token.isCancellationRequested || entries.length === 0) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    const lenses = [new vscode.CodeLens(top, openCommand(`$(history) ${exchangeCount(c.count)} touched this file`, entries))];
    for (const span of editedSpans(entries)) {
      // ranges are as the agent saw the file; a span past today's end has moved away
      if (span.start > doc.lineCount) continue;
      const n = span.entries.length;
      const title = n === 1 ? `${exchangeCount(1)} edited this: ${withoutIcons(headline(span.entries[0]!, NARROW_HEADLINE))}` : `${exchangeCount(n)} edited this`;
      lenses.push(new vscode.CodeLens(new vscode.Range(span.start - 1, 0, span.start - 1, 0), openCommand(title, span.entries)));
    }
    return lenses;
  }
}

/**
 * Lens titles and quick-pick labels draw `$(name)` as an icon: transcript text keeps its characters (VS Code
 * draws an escaped `\$(name)` as the text `$(name)`; a zero-width space would be a hidden character of our own).
 */
function withoutIcons(text: string): string {
  return text.replace(/\$\(/g, '\\$(');
}

function openCommand(title: string, entries: readonly FileHistoryEntry[]): vscode.Command {
  return {
    title,
    command: 'agentRecall.openExchanges',
    arguments: [entries.map((e) => e.exchangeId)],
    tooltip: entries.length === 1 ? 'Open the exchange' : 'Choose an exchange to open',
  };
}

/** Edited line ranges of the entries (edits and writes with recorded lines), overlapping ranges merged. */
export function editedSpans(entries: readonly FileHistoryEntry[]): EditedSpan[] {
  const ranges = entries
    .filter((e) => e.how === 'edit' || e.how === 'write')
    .flatMap((e) => (e.lines ?? []).map((r) => ({ start: r.start, end: r.end, entry: e })))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const spans: Array<{ start: number; end: number; entries: FileHistoryEntry[] }> = [];
  for (const r of ranges) {
    const last = spans[spans.length - 1];
    if (last && r.start <= last.end) {
      last.end = Math.max(last.end, r.end);
      if (!last.entries.includes(r.entry)) last.entries.push(r.entry);
    } else {
      spans.push({ start: r.start, end: r.end, entries: [r.entry] });
    }
  }
  return spans;
}

/** What a lens click does: one exchange opens; several are offered to choose from (newest first). */
export async function openExchanges(ids: unknown, listings: (ids: string[]) => Promise<ExchangeListing[]>): Promise<void> {
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) throw new Error('No exchanges to open.');
  if (ids.length === 1) {
    await vscode.commands.executeCommand('agentRecall.openExchange', ids[0]);
    return;
  }
  const items = (await listings(ids as string[])).map((e) => ({
    label: withoutIcons(headline(e, NARROW_HEADLINE)),
    description: `${e.startedAt?.slice(0, 10) ?? 'unknown date'} · ${AGENT_NAMES[e.agent]}`,
    id: e.exchangeId,
  }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Agent exchanges', placeHolder: 'Open which exchange?', matchOnDescription: true });
  if (picked) await vscode.commands.executeCommand('agentRecall.openExchange', picked.id);
}
