import * as path from 'node:path';
import * as vscode from 'vscode';
import { renderExchangeMarkdown } from '../core/exchangeMarkdown';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

/** The extension's own read-only URI scheme: `agent-recall:/exchange/<id>.md`. */
export const SCHEME = 'agent-recall';

export function exchangeUri(exchangeId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/exchange/${exchangeId}.md` });
}

/** The exchange id of a viewer URI, or undefined for any other URI. */
export function exchangeIdOf(uri: vscode.Uri | undefined): string | undefined {
  if (uri?.scheme !== SCHEME) return undefined;
  return /^\/exchange\/([^/]+)\.md$/.exec(uri.path)?.[1];
}

/** Renders stored exchanges as Markdown documents; re-renders open ones when the index changes. */
export class ExchangeViewer extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly index: IndexService) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(SCHEME, this));
    this.register(
      index.onDidChange(() => {
        if (index.currentState !== 'idle') return;
        for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === SCHEME) this.changed.fire(d.uri);
      }),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = exchangeIdOf(uri);
    if (!id) return `# Not an exchange\n\n${uri.toString()} does not name an exchange.`;
    const memory = await this.index.memory();
    const exchange = await memory.exchange(id);
    if (!exchange) return `# Exchange not found\n\nThe exchange ${id} is not in the index (it may have been re-indexed).`;
    const [distilled, neighbours] = await Promise.all([memory.distilled(id), memory.neighbours(id)]);
    return renderExchangeMarkdown({
      exchange,
      ...(distilled ? { distilled } : {}),
      ...(neighbours ? { neighbours } : {}),
    });
  }

  /** Opens the verbatim exchange in a read-only Markdown editor. */
  async open(exchangeId: string, options: { preview?: boolean; viewColumn?: vscode.ViewColumn } = {}): Promise<vscode.TextEditor> {
    const found = await (await this.index.memory()).exchange(exchangeId);
    if (!found) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    const doc = await vscode.workspace.openTextDocument(exchangeUri(found.exchangeId));
    if (doc.languageId !== 'markdown') await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    return vscode.window.showTextDocument(doc, { preview: options.preview ?? true, ...(options.viewColumn ? { viewColumn: options.viewColumn } : {}) });
  }

  /** Opens the previous or next exchange of the conversation shown in `uri` (default: the active editor). */
  async step(direction: 'previous' | 'next', uri = vscode.window.activeTextEditor?.document.uri): Promise<void> {
    const id = exchangeIdOf(uri);
    if (!id) throw new Error('Open an exchange first (Agent Recall: Recall Past Conversation).');
    const n = await (await this.index.memory()).neighbours(id);
    const target = n?.[direction];
    if (!target) {
      void vscode.window.showInformationMessage(`This is the ${direction === 'next' ? 'last' : 'first'} exchange of the conversation.`);
      return;
    }
    await this.open(target);
  }

  /** Opens the source transcript with the exchange's line range selected. */
  async openTranscript(exchangeId = exchangeIdOf(vscode.window.activeTextEditor?.document.uri)): Promise<vscode.TextEditor> {
    if (!exchangeId) throw new Error('Open an exchange first.');
    const e = await (await this.index.memory()).exchange(exchangeId);
    if (!e) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    return openAtLines(vscode.Uri.file(e.file), e.lineStart, e.lineEnd);
  }

  /** Opens a file the exchange touched, at the touched lines when the transcript recorded them. */
  async openTouchedFile(exchangeId: string, filePath?: string): Promise<vscode.TextEditor | undefined> {
    const e = await (await this.index.memory()).exchange(exchangeId);
    if (!e) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    const touch = filePath ? e.filesTouched.find((f) => f.path === filePath) : (e.filesTouched.find((f) => f.lines?.length) ?? e.filesTouched[0]);
    if (!touch) {
      void vscode.window.showInformationMessage('This exchange touched no files.');
      return undefined;
    }
    // transcript text chose this path: open only files inside the workspace
    const uri = resolveTouchedPath(touch.path);
    if (!uri || !vscode.workspace.getWorkspaceFolder(uri) || touch.path.split('/').includes('..')) {
      throw new Error(`${touch.path} is outside this workspace, so Agent Recall does not open it.`);
    }
    const range = touch.lines?.[0];
    return openAtLines(uri, range?.start ?? 1, range?.end ?? range?.start ?? 1);
  }
}

/** A touched path (workspace-relative POSIX or absolute) as a file URI, when it can be placed. */
export function resolveTouchedPath(p: string): vscode.Uri | undefined {
  if (path.isAbsolute(p)) return vscode.Uri.file(p);
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, ...p.split('/')) : undefined;
}

async function openAtLines(uri: vscode.Uri, start: number, end: number): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const last = Math.max(0, Math.min(doc.lineCount - 1, end - 1));
  const first = Math.max(0, Math.min(last, start - 1));
  const range = new vscode.Range(first, 0, last, doc.lineAt(last).text.length);
  return vscode.window.showTextDocument(doc, { selection: range, preview: true });
}
