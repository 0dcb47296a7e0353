import * as vscode from 'vscode';
import { type FileHistoryIndex, storedPathOf, touchedText } from './fileHistoryIndex';
import { Disposable } from './lifecycle';

/** "N past exchanges" for the active editor's file; a click shows the File History view. */
export class ActiveFileStatus extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentRecall.fileHistory', vscode.StatusBarAlignment.Right, 100));

  constructor(private readonly files: FileHistoryIndex) {
    super();
    this.item.name = 'Agent Recall: file history';
    this.item.command = 'agentRecall.showFileHistory';
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.register(files.onDidChange(() => this.update()));
    this.update();
  }

  get text(): string | undefined {
    return this.item.text || undefined;
  }

  private update(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const p = uri ? storedPathOf(uri) : undefined;
    const c = p ? this.files.countOf(p) : undefined;
    if (!c) {
      this.item.text = '';
      this.item.hide();
      return;
    }
    this.item.text = `$(history) ${c.count} past exchange${c.count === 1 ? '' : 's'}`;
    this.item.tooltip = `${touchedText(c)}. Click to list them.`;
    this.item.show();
  }
}
