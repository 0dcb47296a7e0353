import * as path from 'node:path';
import * as vscode from 'vscode';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';

/** The scheme of the read-only raw views (a one-line JSON transcript's records, Cursor's database rows). */
export const RAW_SCHEME = 'agent-recall-raw';

/**
 * "Open Raw Transcript at This Exchange" where the file's lines do not place the exchange: a read-only
 * virtual document of the source's records, pretty-printed, that depends only on its URI (the exchange id
 * is its query), opened with the exchange's records selected.
 */
export class RawDocuments extends Disposable {
  constructor(private readonly index: IndexService) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(RAW_SCHEME, {
      provideTextDocumentContent: async (uri) => (await (await this.index.memory()).rawView(uri.query))?.text ?? '',
    }));
  }

  /** Opens the exchange's raw view, or returns undefined when its file's own lines place it. */
  async open(exchangeId: string, file: string, viewColumn: vscode.ViewColumn): Promise<vscode.TextEditor | undefined> {
    const view = await (await this.index.memory()).rawView(exchangeId);
    if (!view) return undefined;
    // the name says what it is; `.jsonc` gives JSON colouring to a document that starts with a comment line
    const uri = vscode.Uri.from({ scheme: RAW_SCHEME, path: `/${path.basename(file)} (records).jsonc`, query: exchangeId });
    const doc = await vscode.workspace.openTextDocument(uri);
    const last = Math.min(doc.lineCount, view.lineEnd) - 1;
    const range = new vscode.Range(view.lineStart - 1, 0, last, doc.lineAt(last).text.length);
    const editor = await vscode.window.showTextDocument(doc, { selection: range, preview: true, viewColumn });
    editor.revealRange(range, vscode.TextEditorRevealType.AtTop);
    return editor;
  }
}
