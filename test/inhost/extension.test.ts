import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, extension, fixture, settledSummary } from './helpers';

describe('Agent Recall in the extension host', () => {
  it('activates and returns its API', async () => {
    const a = await api();
    assert.ok(extension().isActive, 'extension is active');
    assert.equal(typeof a.waitForIndexIdle, 'function');
    assert.equal(typeof a.getIndexSummary, 'function');
  });

  it('opens the fixture workspace', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(folders.map((f) => f.uri.fsPath), [fixture().workspace]);
  });

  it('registers every command of package.json', async () => {
    await api();
    const declared = (extension().packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    assert.ok(declared.length > 0, 'package.json declares commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(declared.filter((c) => !registered.has(c)), [], 'commands declared but not registered');
  });

  it("indexes the fixture's transcripts of every agent", async () => {
    const { expected } = fixture();
    const s = await settledSummary(expected.exchanges);
    assert.ok(s, 'the API returns a summary');
    assert.deepEqual({ conversations: s.conversations, exchanges: s.exchanges, byAgent: s.byAgent }, expected);
  });

  it('distills every indexed exchange offline (the distill stage runs inside indexing)', async () => {
    const { expected } = fixture();
    await settledSummary(expected.exchanges);
    const until = Date.now() + 30_000;
    const recall = await api();
    let s = await recall.getIndexSummary();
    while (s && s.distilledExchanges < expected.exchanges && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      s = await recall.getIndexSummary();
    }
    assert.equal(s?.distilledExchanges, expected.exchanges);
  });

  it('rebuilds the index to the same counts (agentRecall.rebuildIndex)', async () => {
    const { expected } = fixture();
    await vscode.commands.executeCommand('agentRecall.rebuildIndex');
    const s = await settledSummary(expected.exchanges);
    assert.equal(s?.exchanges, expected.exchanges);
    assert.equal(s?.conversations, expected.conversations);
  });
});
