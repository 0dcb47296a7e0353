import * as vscode from 'vscode';

/** Set in the extension's global state once the walkthrough was opened for this user (profile). */
export const WALKTHROUGH_SHOWN = 'agentRecall.walkthroughShown';
/** `<publisher>.<name>#<walkthrough id>` of package.json's `contributes.walkthroughs`. */
export const WALKTHROUGH = 'agent-recall.agent-recall#agentRecall.start';

/**
 * Opens "Get started with Agent Recall" on the first activation after install, once: VS Code opens a walkthrough
 * by itself only for an extension installed from the Extensions view, not from a VSIX or a command line. The flag is
 * set first, so a window that fails to open it does not open it again on every start.
 */
export async function openWalkthroughOnce(state: vscode.Memento): Promise<void> {
  if (state.get<boolean>(WALKTHROUGH_SHOWN)) return;
  await state.update(WALKTHROUGH_SHOWN, true);
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
}
