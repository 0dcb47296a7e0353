import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, eventually, fixture, labelOf, settledSummary, treeItems } from './helpers';

/** Words of the fixture's OpenCode session of another project (/elsewhere/project: test/host/opencodeDb.mjs). */
const OTHER_PROJECT = 'couponPercent fraction belongs to no workspace opened here';

async function setScope(value: 'workspace' | 'allHistory' | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('agentRecall').update('scope', value, vscode.ConfigurationTarget.Global);
}

/** Whether a search finds the other project's exchange, once the run the change started has ended. */
async function findsOtherProject(): Promise<boolean> {
  const a = await api();
  await a.waitForIndexIdle();
  const { hits } = await a.search({ text: OTHER_PROJECT, limit: 5 });
  return hits.some((h) => h.prompt.includes('a project that is not this workspace'));
}

describe('agentRecall.scope: this workspace or all history (issue 39)', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  after(async () => {
    await setScope(undefined);
    await (await api()).waitForIndexIdle();
  });

  it("switching to all history indexes another project's session without a reload, and switching back hides it at once", async () => {
    const a = await api();
    const workspaceStore = a.storeFile!;
    const before = (await a.getIndexSummary())!;
    assert.equal((before as { scope?: string }).scope, 'workspace');
    assert.equal(await findsOtherProject(), false, "the workspace's memory holds no other project's session");
    const scopeRow = async (): Promise<string | undefined> => (await treeItems(a.views.status)).map((t) => labelOf(t.item)).find((l) => l.startsWith('Scope:'));
    assert.equal(await scopeRow(), 'Scope: this workspace');

    await setScope('allHistory');
    await eventually(async () => ((await a.getIndexSummary()) as { scope?: string } | undefined)?.scope === 'allHistory', 15_000);
    await a.waitForIndexIdle();
    const all = (await a.getIndexSummary())!;
    assert.notEqual(a.storeFile, workspaceStore, 'all history has its own store');
    assert.equal(path.dirname(a.storeFile!), path.dirname(workspaceStore), 'beside the workspace store');
    // (not compared with the workspace's count: the tests before this one wrote rows into the workspace store)
    assert.ok(all.exchanges > 0 && all.byAgent['opencode']! >= 2, JSON.stringify(all.byAgent));
    assert.equal(await findsOtherProject(), true, "all history finds the other project's exchange");
    assert.equal(await scopeRow(), 'Scope: all history');
    assert.ok(!a.mcp.launch()?.args.includes('--workspace'), 'the MCP server serves the whole all-history store');

    await setScope('workspace');
    await eventually(async () => ((await a.getIndexSummary()) as { scope?: string } | undefined)?.scope === 'workspace', 15_000);
    await a.waitForIndexIdle();
    const back = (await a.getIndexSummary())!;
    assert.equal(a.storeFile, workspaceStore);
    assert.equal(back.exchanges, before.exchanges, 'the workspace store is as it was');
    assert.equal(await findsOtherProject(), false);
    assert.equal(await scopeRow(), 'Scope: this workspace');
    assert.ok(a.mcp.launch()?.args.includes('--workspace'));
  });
});
