import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api } from './helpers';

const KEY = 'sk-ant-inhost-test-0123456789abcdef';

async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('agentRecall').update(key, value, vscode.ConfigurationTarget.Global);
}

describe('LLM distillation settings, key and consent in the extension host', () => {
  after(async () => {
    await vscode.commands.executeCommand('agentRecall.clearAnthropicApiKey');
    await setSetting('distill.distiller', undefined);
    await setSetting('distill.allowRemote', undefined);
  });

  it('stores the Anthropic key in SecretStorage (agentRecall.setAnthropicApiKey) and clears it', async () => {
    const a = await api();
    assert.equal((await a.getDistillerStatus()).hasAnthropicKey, false, 'no key in a fresh profile');
    assert.equal(await vscode.commands.executeCommand('agentRecall.setAnthropicApiKey', KEY), true);
    assert.equal((await a.getDistillerStatus()).hasAnthropicKey, true);
    // a blank key is refused with a message, and the stored one stays
    assert.equal(await vscode.commands.executeCommand('agentRecall.setAnthropicApiKey', '   '), false);
    assert.equal((await a.getDistillerStatus()).hasAnthropicKey, true);
    await vscode.commands.executeCommand('agentRecall.clearAnthropicApiKey');
    assert.equal((await a.getDistillerStatus()).hasAnthropicKey, false);
  });

  it('reads the distiller setting back and sends nothing before every gate is passed', async () => {
    const a = await api();
    const initial = await a.getDistillerStatus();
    assert.deepEqual([initial.configured, initial.active, initial.promptFound], ['offline', 'offline', true], 'offline by default; the bundle finds prompts/');

    await setSetting('distill.distiller', 'anthropic');
    let s = await a.getDistillerStatus();
    assert.equal(s.configured, 'anthropic');
    assert.equal(s.active, 'offline');
    assert.match(s.reason ?? '', /No Anthropic API key/);

    await vscode.commands.executeCommand('agentRecall.setAnthropicApiKey', KEY);
    s = await a.getDistillerStatus();
    assert.equal(s.active, 'offline');
    assert.match(s.reason ?? '', /agentRecall\.distill\.allowRemote/, 'opt-in setting is off by default');

    await setSetting('distill.allowRemote', true);
    s = await a.getDistillerStatus();
    assert.equal(s.active, 'offline', 'still nothing is sent: the one-time confirmation has not been given');
    assert.match(s.reason ?? '', /not been confirmed/);

    await setSetting('distill.distiller', 'vscode-lm');
    s = await a.getDistillerStatus();
    assert.equal(s.configured, 'vscode-lm');
    assert.equal(s.active, 'offline');
  });

  it('an indexing run waits for an unusable LLM distiller instead of distilling offline', async () => {
    type Summary = { message?: string; lastReport?: { distill?: { distilled: number } } };
    const a = await api();
    await vscode.commands.executeCommand('agentRecall.clearAnthropicApiKey');
    await setSetting('distill.distiller', 'anthropic');
    await vscode.commands.executeCommand('agentRecall.indexNow');
    await a.waitForIndexIdle();
    let s = (await a.getIndexSummary()) as Summary;
    assert.match(s.message ?? '', /^Distillation waits: No Anthropic API key/);
    assert.equal(s.lastReport?.distill, undefined, 'no distill stage ran, offline or otherwise');

    await setSetting('distill.distiller', 'offline');
    await vscode.commands.executeCommand('agentRecall.indexNow');
    await a.waitForIndexIdle();
    s = (await a.getIndexSummary()) as Summary;
    assert.equal(s.message, undefined);
    assert.ok(s.lastReport?.distill, 'the offline stage ran again');
  });
});
