import * as vscode from 'vscode';

const SHOWN = 'agentRecall.walkthroughShown';
export const WALKTHROUGH = 'agent-recall.agent-recall#agentRecall.start';

/**
 * Opens "Get started with Agent Recall" once, the first time the extension runs for this user: VS Code opens
 * a walkthrough by itself only for an extension installed from the Extensions view, not from a VSIX or a
 * command line. Tests of the extension's own behaviour (extensionMode Test) are left an empty editor area.
 */
export async function openWalkthroughOnce(context: vscode.ExtensionContext): Promise<void> {
  if (context.globalState.get<boolean>(SHOWN) || context.extensionMode === vscode.ExtensionMode.Test) return;
  await context.globalState.update(SHOWN, true);
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
}
