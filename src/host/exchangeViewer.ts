import * as path from 'node:path';
import * as vscode from 'vscode';
import { exchangeView } from '../core/exchangeView';
import type { FileTouch } from '../core/model';
import { visible } from '../core/visible';
import { isViewerRequest, type ViewerMessage, type ViewerRequest } from '../viewerProtocol';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';
import { log, showError } from './log';
import { RawDocuments, revealTranscript } from './rawDocuments';
import { openTranscriptLink } from './transcriptLinks';
import { webviewHtml, webviewRoots } from './webviewHtml';

export const VIEW_TYPE = 'agentRecall.exchange';

/**
 * The exchange viewer: one reading view (a webview with the recall panel's CSP) that shows one exchange at a
 * time; opening another exchange reuses it where it is, so it never spreads into new editor groups. It comes
 * back after a window reload (the webview keeps the exchange id in its state).
 */
export class ExchangeViewer extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private current: string | undefined;
  private readonly raw: RawDocuments;
  /** Messages posted to the webview, newest last (a few), for the in-host tests. */
  readonly posted: ViewerMessage[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly index: IndexService,
  ) {
    super();
    this.raw = this.register(new RawDocuments(index));
    this.register(vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        const id = typeof state === 'object' && state !== null ? (state as { exchangeId?: unknown }).exchangeId : undefined;
        this.adopt(panel);
        if (typeof id === 'string') await this.show(id);
      },
    }));
    this.register(index.onDidChange(() => {
      if (index.currentState === 'idle' && this.current && this.panel) void this.show(this.current).catch(() => undefined);
    }));
  }

  /** The exchange shown, if the viewer is open. */
  get shown(): string | undefined {
    return this.panel ? this.current : undefined;
  }

  /**
   * Shows an exchange. The viewer stays in its editor group; the first time it opens in `viewColumn`
   * (the recall panel asks for the group beside itself), else beside the active editor.
   */
  async open(exchangeId: string, options: { viewColumn?: vscode.ViewColumn; preserveFocus?: boolean } = {}): Promise<void> {
    const found = await (await this.index.memory()).exchange(exchangeId);
    if (!found) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    if (!this.panel) {
      this.adopt(vscode.window.createWebviewPanel(VIEW_TYPE, 'Exchange', { viewColumn: options.viewColumn ?? vscode.ViewColumn.Beside, preserveFocus: options.preserveFocus ?? false }, this.options()));
    } else this.panel.reveal(undefined, options.preserveFocus ?? false);
    await this.show(found.exchangeId);
  }

  /** Opens the previous or next exchange of the conversation shown. */
  async step(direction: 'previous' | 'next', exchangeId = this.shown): Promise<void> {
    if (!exchangeId) throw new Error('Open an exchange first (Agent Recall: Recall Past Conversation).');
    const n = await (await this.index.memory()).neighbours(exchangeId);
    const target = n?.[direction];
    if (!target) {
      void vscode.window.showInformationMessage(`This is the ${direction === 'next' ? 'last' : 'first'} exchange of the conversation.`);
      return;
    }
    await this.open(target);
  }

  /**
   * Opens the exchange's source as a read-only raw view (rawDocuments.ts) with its lines selected, beside the
   * viewer: the transcript's text, or its records pretty-printed where lines do not place the exchange.
   */
  async openTranscript(exchangeId = this.shown): Promise<vscode.TextEditor> {
    const e = await this.exchangeOrShown(exchangeId);
    const column = this.panel ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
    return this.raw.open(e.exchangeId, e.file, column);
  }

  /** Shows the exchange's transcript file where it lives (the Explorer, the system's file manager). */
  async revealTranscript(exchangeId = this.shown): Promise<void> {
    await revealTranscript((await this.exchangeOrShown(exchangeId)).file);
  }

  private async exchangeOrShown(exchangeId: string | undefined): Promise<{ exchangeId: string; file: string }> {
    if (!exchangeId) throw new Error('Open an exchange first.');
    const e = await (await this.index.memory()).exchange(exchangeId);
    if (!e) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    return e;
  }

  /**
   * Opens a file the exchange touched, at the touched lines when the transcript recorded them: the one
   * asked for, else the best one that still exists in this workspace (edited before written before read
   * before mentioned). A file that no longer exists is never opened; the user is told once instead.
   */
  async openTouchedFile(exchangeId: string, filePath?: string, viewColumn: vscode.ViewColumn = vscode.ViewColumn.Active): Promise<vscode.TextEditor | undefined> {
    const e = await (await this.index.memory()).exchange(exchangeId);
    if (!e) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    const asked = filePath ? e.filesTouched.filter((f) => f.path === filePath) : rankTouches(e.filesTouched);
    if (!asked.length) {
      void vscode.window.showInformationMessage('This exchange touched no files.');
      return undefined;
    }
    const gone: string[] = [];
    for (const touch of asked) {
      // transcript text chose this path: open only files inside the workspace
      const uri = resolveTouchedPath(touch.path);
      if (!uri || !vscode.workspace.getWorkspaceFolder(uri) || touch.path.split('/').includes('..')) {
        gone.push(`${touch.path} (outside this workspace)`);
        continue;
      }
      if (!(await exists(uri))) {
        gone.push(`${touch.path} (no longer exists)`);
        continue;
      }
      // no recorded lines: the file opens where it opens, with nothing selected (a selection would claim lines)
      const range = touch.lines?.[0];
      return range ? openAtLines(uri, range.start, range.end, viewColumn) : vscode.window.showTextDocument(uri, { preview: true, viewColumn });
    }
    void vscode.window.showInformationMessage(`Agent Recall cannot open the file${gone.length > 1 ? 's' : ''} this exchange touched: ${visible(gone.slice(0, 4).join(', '))}${gone.length > 4 ? ', …' : ''}.`);
    return undefined;
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel?.dispose();
    this.panel = panel;
    this.ready = false;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'activity.svg');
    panel.webview.options = { enableScripts: true, localResourceRoots: this.options().localResourceRoots! };
    panel.webview.html = this.html(panel.webview);
    panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m));
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableFindWidget: true,
      retainContextWhenHidden: true,
      localResourceRoots: webviewRoots(this.extensionUri),
    };
  }

  private async show(exchangeId: string): Promise<void> {
    this.current = exchangeId;
    const memory = await this.index.memory();
    const e = await memory.exchange(exchangeId);
    if (!e) {
      this.post({ type: 'missing', exchangeId });
      return;
    }
    const [distilled, neighbours, copies] = await Promise.all([memory.distilled(e.exchangeId), memory.neighbours(e.exchangeId), memory.savedCopies(e)]);
    const view = exchangeView({ ...e, copies }, distilled, neighbours);
    if (this.panel) this.panel.title = view.tab;
    this.post({ type: 'show', view });
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isViewerRequest(raw)) {
      log.warn(`Exchange viewer: ignored a malformed message ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(raw);
    } catch (err) {
      void showError(`Agent Recall: ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }

  private async handle(m: ViewerRequest): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.current) await this.show(this.current);
        return;
      case 'step':
        await this.step(m.direction);
        return;
      case 'openRaw':
        await this.openTranscript();
        return;
      case 'openFile':
        if (this.current) await this.openTouchedFile(this.current, m.path, vscode.ViewColumn.Beside);
        return;
      case 'openLink':
        // checked again there (the webview is not trusted to have filtered it), and asked about, every one
        await openTranscriptLink(m.href);
        return;
    }
  }

  private post(m: ViewerMessage): void {
    this.posted.push(m);
    if (this.posted.length > 20) this.posted.shift();
    if (this.panel && this.ready) void this.panel.webview.postMessage(m);
  }

  private html(webview: vscode.Webview): string {
    return webviewHtml(webview, this.extensionUri, {
      script: vscode.Uri.joinPath(this.extensionUri, 'dist', 'viewer.js'),
      style: vscode.Uri.joinPath(this.extensionUri, 'media', 'viewer.css'),
      title: 'Exchange',
      root: '<div id="app" role="document" aria-label="Past exchange"></div>',
    });
  }

  override dispose(): void {
    this.panel?.dispose();
    super.dispose();
  }
}

const HOW_RANK: Record<string, number> = { edit: 0, write: 1, read: 2, mention: 3 };

/** Touched files best first for "open the file it touched": edited (with lines first), written, read, mentioned. */
export function rankTouches(files: readonly FileTouch[]): FileTouch[] {
  return [...files].sort((a, b) => (HOW_RANK[a.how] ?? 4) - (HOW_RANK[b.how] ?? 4) || Number(!b.lines?.length) - Number(!a.lines?.length));
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.File) !== 0;
  } catch {
    return false;
  }
}

/** A touched path (workspace-relative POSIX or absolute) as a file URI, when it can be placed. */
export function resolveTouchedPath(p: string): vscode.Uri | undefined {
  if (path.isAbsolute(p)) return vscode.Uri.file(p);
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, ...p.split('/')) : undefined;
}

async function openAtLines(uri: vscode.Uri, start: number, end: number, viewColumn: vscode.ViewColumn): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const last = Math.max(0, Math.min(doc.lineCount - 1, end - 1));
  const first = Math.max(0, Math.min(last, start - 1));
  const range = new vscode.Range(first, 0, last, doc.lineAt(last).text.length);
  return vscode.window.showTextDocument(doc, { selection: range, preview: true, viewColumn });
}
