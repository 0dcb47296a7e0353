import * as vscode from 'vscode';

/** The SecretStorage key of the Anthropic API key (never written to settings or logs). */
export const ANTHROPIC_KEY_SECRET = 'agentRecall.anthropicApiKey';

/**
 * "Agent Recall: Set Anthropic API Key". The key comes from a password input box, or from the command
 * argument (tests, other extensions). Returns true when a key was stored.
 */
export async function setAnthropicApiKey(secrets: vscode.SecretStorage, given?: unknown): Promise<boolean> {
  const key =
    typeof given === 'string'
      ? given
      : await vscode.window.showInputBox({
          title: 'Anthropic API Key',
          prompt: 'Stored in VS Code secret storage; used only when the Anthropic distiller is on and you allowed sending.',
          placeHolder: 'sk-ant-…',
          password: true,
          ignoreFocusOut: true,
          validateInput: keyProblem,
        });
  if (key === undefined) return false;
  const problem = keyProblem(key);
  if (problem) {
    // Not awaited: the command must not hang until the message is dismissed.
    void vscode.window.showErrorMessage(`Agent Recall: ${problem} Nothing was stored.`);
    return false;
  }
  await secrets.store(ANTHROPIC_KEY_SECRET, key.trim());
  void vscode.window.showInformationMessage('Agent Recall: Anthropic API key stored in secret storage.');
  return true;
}

export async function clearAnthropicApiKey(secrets: vscode.SecretStorage): Promise<void> {
  await secrets.delete(ANTHROPIC_KEY_SECRET);
  void vscode.window.showInformationMessage('Agent Recall: Anthropic API key removed.');
}

/**
 * Keeps the `agentRecall.hasAnthropicKey` context key in step with secret storage, so "Clear Anthropic API
 * Key" is offered in the command palette only when there is a key to clear.
 */
export function trackAnthropicKey(secrets: vscode.SecretStorage): vscode.Disposable {
  const update = async (): Promise<void> => {
    const has = (await readAnthropicApiKey(secrets)) !== undefined;
    await vscode.commands.executeCommand('setContext', 'agentRecall.hasAnthropicKey', has);
  };
  void update();
  return secrets.onDidChange((e) => {
    if (e.key === ANTHROPIC_KEY_SECRET) void update();
  });
}

export async function readAnthropicApiKey(secrets: vscode.SecretStorage): Promise<string | undefined> {
  return (await secrets.get(ANTHROPIC_KEY_SECRET)) || undefined;
}

function keyProblem(value: string): string | undefined {
  const v = value.trim();
  if (!v) return 'The key is empty.';
  if (/\s/.test(v)) return 'The key must not contain spaces.';
  return undefined;
}
