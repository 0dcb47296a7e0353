import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HostMessage } from '../../src/protocol';
import { api, eventually, fixture, settledSummary } from './helpers';

type Results = Extract<HostMessage, { type: 'results' }>;

/** Runs the recall command with `text` and waits for the panel's answer holding a candidate of `agent`. */
async function recallFinds(text: string, agent: string): Promise<Results['candidates'][number] | undefined> {
  const a = await api();
  await vscode.commands.executeCommand('agentRecall.recall', text);
  const results = await eventually(
    // the panel first lists the most recent exchanges (empty query): only an answer to the query counts
    () => a.recallPanel().posted.find((m): m is Results => m.type === 'results' && !m.recent && m.candidates.some((c) => c.agent === agent)),
    30_000,
  );
  return results?.candidates.find((c) => c.agent === agent);
}

describe('Editor agents: Copilot Chat, Gemini CLI and Cline sessions', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it("reads Copilot Chat's session log from this editor's own workspace storage and finds it through the recall command", async () => {
    const found = await recallFinds('why cartTotalCents rounds only once after the coupon', 'copilot');
    assert.ok(found, 'a Copilot Chat candidate');
    assert.match(found.headline + found.snippet.map((p) => p.text).join(''), /round/i);
    // the files are workspace-relative: the session was attributed to this workspace by its workspace.json
    assert.ok(found.files.some((f) => f.path === 'src/cart.js'), JSON.stringify(found.files));
  });

  it('reads the Gemini CLI session whose projectHash is this workspace and finds it through the recall command', async () => {
    const found = await recallFinds('currency of the checkout total hard-coded EUR', 'gemini');
    assert.ok(found, 'a Gemini CLI candidate');
    assert.ok(found.files.some((f) => f.path === 'src/checkout.js'), JSON.stringify(found.files));
  });

  it("reads a Cline task from this editor's global storage (its workspace from the environment details) and finds it through the recall command", async () => {
    const found = await recallFinds('negative quantity cartTotalCents RangeError', 'cline');
    assert.ok(found, 'a Cline candidate');
    assert.ok(found.files.some((f) => f.path === 'src/cart.js'), JSON.stringify(found.files));
  });
});
