import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { saveDistillBatch } from '../../src/core/store/distilledStore';
import { refreshRooms } from '../../src/core/store/roomStats';
import { Store } from '../../src/core/store/store';
import { api, eventually, fixture, labelOf, settledSummary, treeItems } from './helpers';

/** Exchange ids and files straight from the store, to compare what the UI shows against. */
async function withStore<T>(fn: (s: Store) => Promise<T>): Promise<T> {
  const file = (await api()).storeFile;
  assert.ok(file, 'the API names the store file');
  const store = await Store.open(file);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function exchangeIdByPrompt(text: string): Promise<string> {
  return withStore(async (s) => {
    const row = await s.db.get<{ id: string }>('SELECT id FROM exchanges WHERE prompt LIKE ?', [`%${text}%`]);
    assert.ok(row, `an exchange whose prompt contains "${text}"`);
    return row.id;
  });
}

async function touchCount(p: string): Promise<number> {
  return withStore(async (s) => (await s.db.get<{ c: number }>('SELECT count(*) AS c FROM files_touched WHERE path = ?', [p]))?.c ?? 0);
}

function hoverText(hovers: vscode.Hover[]): string {
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
}

describe('Exchange viewer', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it('opens the verbatim exchange as a read-only Markdown document', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    await vscode.commands.executeCommand('agentRecall.openExchange', id);
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.scheme, 'agent-recall');
    assert.equal(doc?.languageId, 'markdown');
    const text = doc!.getText();
    assert.match(text, /^## User\n\nMake the coupon check case-insensitive/m);
    assert.match(text, /^## Assistant\n\nDone: `checkoutSummary` now normalises/m);
    assert.match(text, /\[tool\] Edit .*src\/checkout\.js/);
    assert.match(text, /\*\*Agent:\*\* claude-code/);
    assert.match(text, /exchange 2 of 3 in this conversation/);
    assert.match(text, /^- src\/checkout\.js \(edit lines 4\)/m);
  });

  it('steps to the next and previous exchange of the conversation', async () => {
    const second = await exchangeIdByPrompt('case-insensitive');
    const third = await exchangeIdByPrompt('Run the unit tests');
    await vscode.commands.executeCommand('agentRecall.openExchange', second);
    await vscode.commands.executeCommand('agentRecall.nextExchange');
    assert.equal(vscode.window.activeTextEditor?.document.uri.path, `/exchange/${third}.md`);
    await vscode.commands.executeCommand('agentRecall.previousExchange');
    assert.equal(vscode.window.activeTextEditor?.document.uri.path, `/exchange/${second}.md`);
  });

  it('opens the raw transcript at the exchange lines', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    const { file, lineStart } = await withStore(async (s) => (await s.getExchange(id))!);
    await vscode.commands.executeCommand('agentRecall.openExchange', id);
    await vscode.commands.executeCommand('agentRecall.openTranscript');
    const ed = vscode.window.activeTextEditor!;
    assert.equal(ed.document.uri.fsPath, file);
    assert.equal(ed.selection.start.line, lineStart - 1);
    assert.match(ed.document.lineAt(lineStart - 1).text, /case-insensitive/);
  });

  it('opens a touched file at the touched lines', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    await vscode.commands.executeCommand('agentRecall.openTouchedFile', id, 'src/checkout.js');
    const ed = vscode.window.activeTextEditor!;
    assert.equal(ed.document.uri.fsPath, path.join(fixture().workspace, 'src/checkout.js'));
    assert.equal(ed.selection.start.line, 3);
  });

  it('opens no touched file outside the workspace', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    await withStore((s) => s.db.run("INSERT OR IGNORE INTO files_touched(exchange_n, path, how) SELECT n, '/etc/hostname', 'read' FROM exchanges WHERE id = ?", [id]));
    await vscode.commands.executeCommand('agentRecall.openExchange', id);
    const before = vscode.window.activeTextEditor?.document.uri.toString();
    await vscode.commands.executeCommand('agentRecall.openTouchedFile', id, '/etc/hostname');
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), before, 'nothing opened');
    await withStore((s) => s.db.run("DELETE FROM files_touched WHERE path = '/etc/hostname'"));
  });

  it('refuses a bad exchange id with a message instead of opening something', async () => {
    const before = vscode.window.activeTextEditor?.document.uri.toString();
    await vscode.commands.executeCommand('agentRecall.openExchange', '../../etc/passwd');
    await vscode.commands.executeCommand('agentRecall.openExchange', 'ffffffffffff');
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), before);
  });
});

describe('File history', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
    await (await api()).reloadFileHistory();
  });

  it('badges files in the explorer with "AI" (not a count VS Code would join to the problem count), the count in the tooltip', async () => {
    const a = await api();
    const expected = await touchCount('src/checkout.js');
    assert.ok(expected >= 2, 'several fixture exchanges touch src/checkout.js');
    const deco = a.fileDecoration(vscode.Uri.file(path.join(fixture().workspace, 'src/checkout.js')));
    assert.equal(deco?.badge, 'AI');
    assert.match(String(deco?.tooltip), new RegExp(`^Touched in ${expected} agent exchanges, last .+ \\(2026-10-\\d\\d\\)$`));
    assert.equal(a.fileDecoration(vscode.Uri.file(path.join(fixture().workspace, 'README.md'))), undefined);
  });

  it('hovers on a file path with the exchanges that touched it, as command links', async () => {
    const doc = await vscode.workspace.openTextDocument({ content: 'We changed src/cart.js last week.\n', language: 'markdown' });
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, 14));
    const text = hoverText(hovers);
    assert.match(text, /Agent Recall:\*\* `src\/cart\.js` — Touched in \d+ agent exchanges/);
    assert.match(text, /\[Add a unit test for cartTotalCents.*\]\(command:agentRecall\.openExchange\?/);
    const none = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, 3));
    assert.doesNotMatch(hoverText(none), /Agent Recall/);
  });

  it('hovers on edited lines with the exchange that edited them', async () => {
    const doc = await vscode.workspace.openTextDocument(path.join(fixture().workspace, 'src/checkout.js'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(3, 2));
    assert.match(hoverText(hovers), /line 4 was edited in[\s\S]*Make the coupon check case\\-insensitive|line 4 was edited in[\s\S]*Make the coupon check case-insensitive/);
    const other = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, 2));
    assert.doesNotMatch(hoverText(other), /was edited in/);
  });

  it('follows the active editor in the File History view and the status bar', async () => {
    const a = await api();
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(fixture().workspace, 'src/cart.js')));
    assert.equal(await eventually(() => a.views.fileHistory.file === 'src/cart.js'), true);
    const items = await treeItems(a.views.fileHistory);
    assert.equal(items.length, await touchCount('src/cart.js'));
    assert.ok(items.some((i) => /cartTotalCents/.test(String(i.item.description))), items.map((i) => String(i.item.description)).join(' | '));
    // date and agent lead the row, so a narrow side bar cuts the headline, never them
    assert.ok(items.every((i) => / · [a-z][a-z-]*$/.test(labelOf(i.item))), items.map((i) => labelOf(i.item)).join(' | '));
    assert.equal(items[0]!.item.command?.command, 'agentRecall.openExchange');
    assert.equal(a.activeFileStatus(), `$(history) ${items.length} past exchanges`);
  });
});

describe('Rooms tree', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
    // distilled objects as the distiller writes them (the distiller itself is tested with core)
    await withStore(async (s) => {
      const rows = await s.db.all<{ n: number; prompt: string }>('SELECT n, prompt FROM exchanges ORDER BY n');
      const coupon = { id: 'concept:coupon', type: 'concept' as const, key: 'coupon', label: 'Coupon codes', relevance: 0.9 };
      const tests = { id: 'workflow:test', type: 'workflow' as const, key: 'test', label: 'Running tests', relevance: 0.8 };
      const base = { distiller: 'inhost', promptVersion: 't', contentHash: 'h', tokens: 12, cache: false, filesTouched: [] };
      await saveDistillBatch(s.db, rows.map((r) => ({
        ...base,
        n: r.n,
        value: { exchangeCore: `Core: ${r.prompt.slice(0, 40)}`, specificContext: 'detail', rooms: [] },
        rooms: [...(/coupon/i.test(r.prompt) ? [coupon] : []), ...(/test|cover|guard/i.test(r.prompt) ? [tests] : [])],
      })));
      // the tree shows rooms of 3+ exchanges from 2+ conversations, counted as the distill stage ends
      await refreshRooms(s.db);
    });
  });

  it('shows room types, rooms with counts and their exchanges', async () => {
    const rooms = (await api()).views.rooms;
    const types = await treeItems(rooms);
    assert.deepEqual(types.map((t) => labelOf(t.item)), ['Concepts', 'Workflows']);
    const concept = await treeItems(rooms, types[0]!.node);
    assert.equal(labelOf(concept[0]!.item), 'Coupon codes');
    const count = await withStore(async (s) => (await s.db.get<{ c: number }>("SELECT count(*) AS c FROM exchange_rooms WHERE room_id = 'concept:coupon'"))!.c);
    assert.match(String(concept[0]!.item.description), new RegExp(`^${count} · `));
    assert.equal(concept[0]!.item.contextValue, 'room');
    const exchanges = await treeItems(rooms, concept[0]!.node);
    assert.equal(exchanges.length, count);
    assert.ok(exchanges.every((e) => labelOf(e.item).startsWith('Core: ')));
    assert.equal(exchanges[0]!.item.command?.command, 'agentRecall.openExchange');
  });

  it('filters rooms and sorts them by size', async () => {
    const rooms = (await api()).views.rooms;
    rooms.setFilter('running');
    assert.deepEqual((await treeItems(rooms)).map((t) => labelOf(t.item)), ['Workflows']);
    rooms.setFilter('');
    rooms.setSort('size');
    const all = await treeItems(rooms);
    const counts = await Promise.all(all.map(async (t) => Number(String((await treeItems(rooms, t.node))[0]!.item.description).split(' ')[0])));
    assert.ok(counts.every((c) => c > 0));
    rooms.setSort('recency');
  });
});
