import * as vscode from 'vscode';
import type { RawView } from '../core/memory';
import { visible } from '../core/visible';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

/** The scheme of the read-only raw views of transcripts. */
export const RAW_SCHEME = 'agent-recall-raw';
/**
 * Their language (package.json): no grammar, no language features, and `editor.links` off, so no link in a
 * transcript (`command:`, `vscode:`, `file:`, http) is ever detected, underlined or followed on Ctrl+click.
 * The document's name ends in `(raw transcript)`, which that language claims, so it opens in it from the
 * start (also when VS Code restores the editor after a reload).
 */
export const RAW_LANGUAGE = 'agent-recall-transcript';
const NAME_SUFFIX = ' (raw transcript)';

/**
 * "Open Raw Transcript at This Exchange": a read-only virtual document of the exchange's source as text
 * (core's rawView: the file's text, or its records pretty-printed where lines do not place the exchange),
 * opened with the exchange's lines selected. It never opens the transcript itself in an editor: Markdown
 * support would make a transcript's `command:` links run on Ctrl+click, and VS Code would offer to rewrite
 * its unusual line terminators. The document depends only on its URI (the exchange id is its query).
 */
export class RawDocuments extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  /** The view `open` just read, which the provider is about to be asked for (a large file is read once). */
  private opening: { readonly exchangeId: string; readonly view: RawView } | undefined;

  constructor(private readonly index: IndexService) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(RAW_SCHEME, {
      onDidChange: this.changed.event,
      provideTextDocumentContent: async (uri) => {
        const read = this.opening?.exchangeId === uri.query ? this.opening.view : await (await this.index.memory()).rawView(uri.query);
        this.opening = undefined;
        return read?.text ?? '';
      },
    }));
    // a transcript grows while its agent works: an open raw view follows once the index has caught up
    this.register(index.onDidChange(() => {
      if (index.currentState !== 'idle') return;
      for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === RAW_SCHEME) this.changed.fire(doc.uri);
    }));
  }

  /** Opens the exchange's raw view with its lines selected. */
  async open(exchangeId: string, file: string, viewColumn: vscode.ViewColumn): Promise<vscode.TextEditor> {
    const view = await (await this.index.memory()).rawView(exchangeId);
    if (!view) throw new Error(`The exchange ${exchangeId} is not in the index.`);
    this.opening = { exchangeId, view };
    // the path says where the transcript is (tab title and tooltip, breadcrumbs) and what this is; only the
    // query (the exchange) chooses the content
    const uri = vscode.Uri.from({ scheme: RAW_SCHEME, path: `${visible(vscode.Uri.file(file).path)}${NAME_SUFFIX}`, query: exchangeId });
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== RAW_LANGUAGE) doc = await vscode.languages.setTextDocumentLanguage(doc, RAW_LANGUAGE);
    const last = Math.max(0, Math.min(doc.lineCount, view.lineEnd) - 1);
    const range = new vscode.Range(Math.min(last, view.lineStart - 1), 0, last, doc.lineAt(last).text.length);
    const editor = await vscode.window.showTextDocument(doc, { selection: range, preview: true, viewColumn });
    editor.revealRange(range, vscode.TextEditorRevealType.AtTop);
    return editor;
  }

  /** The exchange a raw view shows, when `uri` is one. */
  static exchangeOf(uri: vscode.Uri | undefined): string | undefined {
    return uri?.scheme === RAW_SCHEME && uri.query ? uri.query : undefined;
  }
}

/**
 * "Reveal Transcript File": the file itself, for those who want it, shown where it lives rather than opened
 * in an editor: in the Explorer when it is in the workspace (a SpecStory export), else in the system's file
 * manager; on a remote or web host, where neither can show it, its path to copy.
 */
export async function revealTranscript(file: string): Promise<void> {
  const uri = vscode.Uri.file(file);
  if (vscode.workspace.getWorkspaceFolder(uri)) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
  } else if (vscode.env.remoteName === undefined && vscode.env.uiKind === vscode.UIKind.Desktop) {
    await vscode.commands.executeCommand('revealFileInOS', uri);
  } else {
    const choice = await vscode.window.showInformationMessage(`The transcript is outside this workspace, on the machine Agent Recall runs on: ${visible(file)}`, 'Copy Path');
    if (choice) await vscode.env.clipboard.writeText(file);
  }
}
