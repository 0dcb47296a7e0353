import * as vscode from 'vscode';
import type { Config } from './config';
import { type FileHistoryIndex, storedPathOf, touchedText } from './fileHistoryIndex';
import { Disposable } from './lifecycle';

/**
 * Explorer badges: "AI" on files past agent exchanges touched, the count and date in the tooltip. VS Code joins
 * the badges of all providers with ", ", so a bare count would read as one more problem count ("6, 4").
 */
export const HISTORY_BADGE = 'AI';

export class FileDecorations extends Disposable implements vscode.FileDecorationProvider {
  private readonly changed = this.register(new vscode.EventEmitter<undefined>());
  readonly onDidChangeFileDecorations = this.changed.event;

  constructor(private readonly files: FileHistoryIndex, private readonly config: Config) {
    super();
    this.register(files.onDidChange(() => this.changed.fire(undefined)));
    this.register(vscode.window.registerFileDecorationProvider(this));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (!this.config.fileDecorations) return undefined;
    const p = storedPathOf(uri);
    const c = p ? this.files.countOf(p) : undefined;
    if (!c) return undefined;
    return new vscode.FileDecoration(HISTORY_BADGE, touchedText(c));
  }
}
