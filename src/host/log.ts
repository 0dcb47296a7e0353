import * as vscode from 'vscode';
import { visible } from '../core/visible';

/** One log channel for the extension; errors shown to the user offer to open it. */
export const log: vscode.LogOutputChannel = vscode.window.createOutputChannel('Agent Recall', { log: true });

/** An error for the user; its message may quote transcript text (a path), shown with its hidden characters. */
export async function showError(message: string, err?: unknown): Promise<void> {
  if (err !== undefined) log.error(message, err);
  const choice = await vscode.window.showErrorMessage(visible(message), 'Show Log');
  if (choice === 'Show Log') log.show();
}
