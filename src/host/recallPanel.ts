import * as vscode from 'vscode';
import { AGENT_KINDS, AGENT_NAMES } from '../core/model';
import { refiningTimes, shownFacets } from '../core/recall';
import { visible } from '../core/visible';
import { type Facets, type HostMessage, isWebviewMessage, type WebviewMessage } from '../protocol';
import type { ExchangeViewer } from './exchangeViewer';
import { modelName } from './embedderService';
import type { IndexService, IndexStage, IndexSummary } from './indexService';
import { Disposable } from './lifecycle';
import { log } from './log';
import { webviewHtml, webviewRoots } from './webviewHtml';

const VIEW_TYPE = 'agentRecall.recall';

/**
 * The recall panel: a webview in the editor area where the user describes a vague memory, recognises the
 * exchange among the candidates and opens it. The host answers queries with the core searcher; the
 * webview only displays (protocol.ts). One panel at a time; opening again reveals it.
 */
export class RecallPanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private pending: HostMessage[] = [];
  private readonly postedEmitter = this.register(new vscode.EventEmitter<HostMessage>());
  /** Every message sent to the webview (or queued for it). */
  readonly onDidPost = this.postedEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly index: IndexService,
    private readonly viewer: ExchangeViewer,
  ) {
    super();
    this.register(index.onDidChange((e) => this.postStatus(e.summary)));
    // after a window reload VS Code hands the panel back; its webview restores the query from its own state
    this.register(vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      deserializeWebviewPanel: async (panel) => {
        if (this.panel) panel.dispose();
        else this.panel = this.adopt(panel);
      },
    }));
  }

  /** Opens (or reveals) the panel, optionally with a query and facets already set. */
  show(initial?: { text?: string; facets?: Facets }): void {
    if (!this.panel) this.panel = this.create();
    else this.panel.reveal();
    if (initial) this.post({ type: 'setQuery', text: initial.text ?? '', facets: shownFacets(initial.facets ?? {}) });
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  private create(): vscode.WebviewPanel {
    return this.adopt(vscode.window.createWebviewPanel(VIEW_TYPE, 'Recall', vscode.ViewColumn.Active, { retainContextWhenHidden: true }));
  }

  private adopt(panel: vscode.WebviewPanel): vscode.WebviewPanel {
    panel.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'activity.svg');
    panel.webview.html = this.html(panel.webview);
    panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
      this.pending = [];
    });
    return panel;
  }

  private html(webview: vscode.Webview): string {
    return webviewHtml(webview, this.extensionUri, {
      script: vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'),
      style: vscode.Uri.joinPath(this.extensionUri, 'media', 'recall.css'),
      title: 'Recall',
      root: '<main id="app" aria-label="Recall past conversations"></main>',
    });
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isWebviewMessage(raw)) {
      log.warn(`Recall panel: ignored a malformed message ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(raw);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error(`Recall panel: ${message}`);
      this.post({ type: 'error', ...(raw.type === 'query' ? { seq: raw.seq } : {}), message });
    }
  }

  private async handle(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        for (const p of this.pending.splice(0)) void this.panel?.webview.postMessage(p);
        await this.postStatus();
        return;
      case 'query':
        await this.query(m.seq, m.text, m.facets, m.exclude);
        return;
      case 'open':
        // beside the panel, keeping the panel in view (the viewer stays in its group once open)
        await this.viewer.open(m.exchangeId, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
        return;
      case 'openFile':
        await this.viewer.openTouchedFile(m.exchangeId, m.path, vscode.ViewColumn.Beside);
        return;
    }
  }

  private async query(seq: number, text: string, facets: Facets, exclude: readonly string[]): Promise<void> {
    const started = performance.now();
    // the tools' warm-up gives way to the panel's queries too
    const answer = await this.index.searching((memory, embedding) => memory.recall({ text, facets, exclude }, embedding));
    this.post({ type: 'results', seq, ...answer, tookMs: Math.round(performance.now() - started) });
  }

  /** The index state for the banner: from the event that changed it, or read once when the panel is ready. */
  private async postStatus(summary?: IndexSummary): Promise<void> {
    if (!this.panel) return;
    const s = summary ?? (await this.index.summary());
    const example = await this.exampleQuery();
    this.post({
      type: 'status',
      status: {
        indexing: s.state === 'indexing',
        exchanges: s.exchanges,
        ...(s.stage ? backgroundNote(s.stage, s.exchanges) : {}),
        // only the agents this workspace has exchanges of: a chip that can only empty the list helps nobody
        agents: AGENT_KINDS.filter((a) => (s.byAgent[a] ?? 0) > 0).map((id) => ({ id, name: AGENT_NAMES[id] })),
        times: refiningTimes(s.dates),
        ...(s.message ? { message: visible(s.message) } : {}),
        semantic: s.semantic.on ? `on (${modelName(s.semantic.model)})` : s.semantic.loading ? `loading ${modelName(s.semantic.model)}` : `off: ${s.semantic.reason}`,
        ...(example ? { example } : {}),
      },
    });
  }

  /** An example that fits this workspace: the theme most exchanges share (a fixed example would not). */
  private async exampleQuery(): Promise<string | undefined> {
    const rooms = await (await this.index.memory()).rooms('size').catch(() => []);
    const theme = rooms.find((r) => r.type === 'concept' && r.count > 1) ?? rooms.find((r) => r.type === 'concept');
    // the label as people wrote it: lower-casing an identifier (cartTotalCents) makes a word nobody used
    return theme ? `what did we decide about ${visible(theme.label)}` : undefined;
  }

  private post(m: HostMessage): void {
    this.postedEmitter.fire(m);
    if (!this.panel) return;
    if (!this.ready) this.pending.push(m);
    else void this.panel.webview.postMessage(m);
  }

  override dispose(): void {
    this.panel?.dispose();
    super.dispose();
  }
}

/**
 * What a run does after its exchanges are stored, for the panel's banner: they are searchable by their words
 * already, and the work that follows in the background says what it will add.
 */
function backgroundNote(stage: IndexStage, exchanges: number): { background?: string } {
  const of = stage.total > 0 ? ` (${stage.done.toLocaleString('en-US')} of ${stage.total.toLocaleString('en-US')})` : '';
  const searchable = `All ${exchanges.toLocaleString('en-US')} exchanges are searchable by their words.`;
  switch (stage.phase) {
    case 'distill':
      return { background: `${searchable} Distilling them in the background${of}: their headlines and rooms follow.` };
    case 'tokens':
      return { background: `${searchable} Counting their tokens in the background${of}.` };
    case 'redaction':
      return { background: `${searchable} Checking their texts for secrets in the background${of}.` };
    case 'embed':
      return { background: `${searchable} Embedding them in the background${of}: search by meaning follows.` };
    default:
      return {};
  }
}
