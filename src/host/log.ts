import * as vscode from 'vscode';

/** One log channel for the extension; errors shown to the user offer to open it. */
export const log: vscode.LogOutputChannel = vscode.window.createOutputChannel('Agent Recall', { log: true });

export async function showError(message: string, err?: unknown): Promise<void> {
  if (err !== undefined) log.error(message, err);
  const choice = await vscode.window.showErrorMessage(message, 'Show Log');
  if (choice === 'Show Log') log.show();
}
