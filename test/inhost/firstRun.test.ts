import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Store } from '../../src/core/store/store';
import { api, eventually, fixture, labelOf, settledSummary, treeItems } from './helpers';
import { AGENT_NAMES, type AgentKind } from '../../src/core/model';
import { semanticItem } from '../../src/host/statusView';

/** First run and everyday use (issue 15): semantic-search state, the Index view, file rooms, CodeLens. */

async function withStore<T>(fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await Store.open((await api()).storeFile!);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function touchCount(p: string): Promise<number> {
  return withStore(async (s) => (await s.db.get<{ c: number }>('SELECT count(*) AS c FROM files_touched WHERE path = ?', [p]))?.c ?? 0);
}

describe('First run: what the Index view says', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it('says semantic search is on with the built-in model, which nothing had to download', async () => {
    const a = await api();
    const configured = vscode.workspace.getConfiguration('agentRecall').get<string>('embed.model');
    assert.equal(configured, 'built-in', 'this test needs the default setting');
    const s = await eventually(async () => {
      const summary = await a.getIndexSummary();
      return summary?.semantic.on ? summary : undefined;
    });
    assert.ok(s?.semantic.on, 'semantic search turns on by itself');
    assert.equal(s.semantic.model, 'built-in:word-vectors-100d-200k@1');
    const rows = await treeItems(a.views.status);
    const semantic = rows.find((r) => labelOf(r.item) === 'Semantic search: on');
    assert.ok(semantic, rows.map((r) => labelOf(r.item)).join(' | '));
    assert.equal(String(semantic.item.description), 'built-in (100-d)');
    assert.match(String(semantic.item.tooltip), /shipped with the extension \(nothing downloaded\)/);
  });

  it('says the model is not checked yet before indexing starts, not that it failed', () => {
    const pending = semanticItem({ on: false, reason: 'checked when indexing starts', pending: true });
    assert.equal(labelOf(pending), 'Semantic search: not checked yet');
    assert.equal(pending.command, undefined);
    const failed = semanticItem({ on: false, reason: 'the model file is damaged', fix: 'choose-model' });
    assert.deepEqual([labelOf(failed), String(failed.description)], ['Semantic search: off', 'model failed']);
  });

  it('says semantic search is off and why when the model setting is emptied', async () => {
    const a = await api();
    const setModel = (value: string | undefined) => vscode.workspace.getConfiguration('agentRecall').update('embed.model', value, vscode.ConfigurationTarget.Global);
    await setModel('');
    try {
      const s = await eventually(async () => {
        const summary = await a.getIndexSummary();
        return summary?.semantic.reason && !/checked when/.test(summary.semantic.reason) ? summary : undefined;
      });
      assert.ok(s, 'the summary names the semantic-search state');
      assert.equal(s.semantic.on, false);
      assert.match(s.semantic.reason ?? '', /setting \(agentRecall\.embed\.model\) is empty/);
      assert.equal(s.semantic.fix, 'choose-model');
      const rows = await treeItems(a.views.status);
      const semantic = rows.find((r) => labelOf(r.item) === 'Semantic search: off');
      assert.ok(semantic, rows.map((r) => labelOf(r.item)).join(' | '));
      assert.equal(semantic.item.command?.command, 'agentRecall.turnOnSemanticSearch');
      assert.equal(String(semantic.item.description), 'no model set');
      assert.ok(String(semantic.item.tooltip).startsWith(s.semantic.reason ?? '?'), String(semantic.item.tooltip));
    } finally {
      await setModel(undefined);
      await new Promise((r) => setTimeout(r, 300));
      await settledSummary(1);
    }
  });

  it('shows the recall key and how much is distilled', async () => {
    const rows = await treeItems((await api()).views.status);
    const recall = rows.find((r) => labelOf(r.item) === 'Recall a past conversation');
    assert.ok(recall, rows.map((r) => labelOf(r.item)).join(' | '));
    assert.match(String(recall.item.description), /^(Ctrl\+Alt\+R|⌥⌘R)$/);
    assert.equal(recall.item.command?.command, 'agentRecall.recall');
    assert.ok(rows.some((r) => /^\d+ distilled$/.test(labelOf(r.item))), rows.map((r) => labelOf(r.item)).join(' | '));
  });

  it('names each agent as people do and counts its exchanges, in the singular for one', async () => {
    const status = (await api()).views.status;
    const top = await treeItems(status);
    // more agents than fit fold under the exchange count, folded
    const total = top.find((r) => /^\d+ exchanges?$/.test(labelOf(r.item)));
    assert.ok(total, top.map((r) => labelOf(r.item)).join(' | '));
    assert.equal(total.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.ok(!top.some((r) => r.item.iconPath instanceof vscode.ThemeIcon && r.item.iconPath.id === 'hubot'), 'no agent row at the top level');
    const rows = await treeItems(status, total.node);
    const byAgent = new Map(rows.filter((r) => r.item.iconPath instanceof vscode.ThemeIcon && r.item.iconPath.id === 'hubot').map((r) => [labelOf(r.item), String(r.item.description)]));
    // each agent by the name people call it, not its id: "Copilot Chat", "Gemini CLI"
    for (const [agent, n] of Object.entries(fixture().expected.byAgent)) {
      const name = AGENT_NAMES[agent as AgentKind];
      assert.equal(byAgent.get(name), `${n} exchange${n === 1 ? '' : 's'}`, `${name}: ${[...byAgent.keys()].join(', ')}`);
    }
  });
});

describe('File rooms agree with the File History and the explorer badge', () => {
  const file = 'src/checkout.js';
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
    // the distiller files an exchange under its main file only: fewer exchanges are in the room than touched the file
    await withStore(async (s) => {
      // a file room of the project its exchanges ran in (the fixture's: the workspace)
      await s.db.run(
        `INSERT OR IGNORE INTO rooms(id, type, key, label, project) SELECT 'file:test-checkout', 'file', ?1, ?1, c.project
         FROM files_touched f JOIN exchanges e ON e.n = f.exchange_n JOIN conversations c ON c.id = e.conversation_id WHERE f.path = ?1 LIMIT 1`,
        [file],
      );
      await s.db.run(
        `INSERT OR IGNORE INTO exchange_rooms(exchange_n, room_id, relevance)
         SELECT exchange_n, 'file:test-checkout', 0.9 FROM files_touched WHERE path = ? LIMIT 1`,
        [file],
      );
      // counted as the distill stage counts rooms, and big enough to be shown (3 exchanges, 2 conversations)
      await s.db.run("UPDATE rooms SET exchanges = 3, conversations = 2, last_at = '2026-10-01T00:00:00Z', dirty = 0 WHERE id = 'file:test-checkout'");
    });
    await (await api()).reloadFileHistory();
  });
  after(async () => {
    await withStore((s) => s.db.run("DELETE FROM rooms WHERE id = 'file:test-checkout'"));
  });

  it('counts and lists every exchange that touched the file', async () => {
    const a = await api();
    const expected = await touchCount(file);
    assert.ok(expected >= 2, 'several fixture exchanges touch the file');
    const types = await treeItems(a.views.rooms);
    const files = types.find((t) => labelOf(t.item) === 'Files');
    assert.ok(files, types.map((t) => labelOf(t.item)).join(' | '));
    const room = (await treeItems(a.views.rooms, files.node)).find((r) => labelOf(r.item) === file);
    assert.ok(room, 'the file room is shown');
    assert.match(String(room.item.description), new RegExp(`^${expected} · `));
    assert.equal((await treeItems(a.views.rooms, room.node)).length, expected);
    const deco = a.fileDecoration(vscode.Uri.file(path.join(fixture().workspace, file)));
    assert.match(String(deco?.tooltip), new RegExp(`^Touched in ${expected} agent exchanges`));
  });
});

describe('CodeLens on files with agent history', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
    await (await api()).reloadFileHistory();
  });

  it('above the first line counts the exchanges; above edited lines names the one that edited them', async () => {
    const uri = vscode.Uri.file(path.join(fixture().workspace, 'src/checkout.js'));
    await vscode.window.showTextDocument(uri);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const ours = lenses.filter((l) => l.command?.command === 'agentRecall.openExchanges');
    const n = await touchCount('src/checkout.js');
    const top = ours.find((l) => l.range.start.line === 0);
    assert.equal(top?.command?.title, `$(history) ${n} agent exchanges touched this file`);
    assert.equal((top?.command?.arguments?.[0] as string[]).length, n);
    // the fixture's coupon exchange edited line 4
    const edited = ours.find((l) => l.range.start.line === 3);
    assert.match(edited?.command?.title ?? '', /^1 agent exchange edited this: .*coupon check case-insensitive/i);
    const [ids] = edited!.command!.arguments as [string[]];
    const id = await withStore(async (s) => (await s.db.get<{ id: string }>("SELECT id FROM exchanges WHERE prompt LIKE '%case-insensitive%'"))!.id);
    assert.deepEqual(ids, [id]);
  });

  it('shows no lens on a file without history, nor when turned off', async () => {
    const readme = vscode.Uri.file(path.join(fixture().workspace, 'README.md'));
    await vscode.workspace.openTextDocument(readme);
    const none = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', readme);
    assert.equal(none.filter((l) => l.command?.command === 'agentRecall.openExchanges').length, 0);
    const checkout = vscode.Uri.file(path.join(fixture().workspace, 'src/checkout.js'));
    await vscode.workspace.getConfiguration('agentRecall').update('fileHistory.codeLens', false, vscode.ConfigurationTarget.Global);
    try {
      const off = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', checkout);
      assert.equal(off.filter((l) => l.command?.command === 'agentRecall.openExchanges').length, 0);
    } finally {
      await vscode.workspace.getConfiguration('agentRecall').update('fileHistory.codeLens', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
