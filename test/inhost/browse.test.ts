import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_NAMES } from '../../src/core/model';
import { saveDistillBatch } from '../../src/core/store/distilledStore';
import { refreshRooms } from '../../src/core/store/roomStats';
import { Store } from '../../src/core/store/store';
import type { ExchangeView } from '../../src/viewerProtocol';
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

/** The view the exchange viewer last showed (its webview renders exactly this). */
async function shownView(id: string): Promise<ExchangeView> {
  const a = await api();
  const m = await eventually(() => a.exchangeViewer().posted.filter((p) => p.type === 'show' && p.view.exchangeId === id).pop(), 10_000);
  assert.ok(m?.type === 'show', `the viewer showed ${id}`);
  return m.view;
}

function viewerTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('agentRecall.exchange'));
}

describe('Exchange viewer', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it('shows the exchange as a reading view: title, date, turns as a conversation, tool calls apart, a distilled card', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    await vscode.commands.executeCommand('agentRecall.openExchange', id);
    const v = await shownView(id);
    await eventually(() => viewerTabs().length > 0, 5_000);
    assert.equal(viewerTabs().length, 1);
    assert.ok(v.title.length > 5 && !/^[0-9a-f]{12}$/.test(v.title), v.title);
    assert.match(v.date, /^\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC$/);
    assert.equal(v.approximate, undefined, 'Claude Code messages carry their own time');
    assert.equal(v.agent, 'claude-code');
    assert.equal(v.position, 'exchange 2 of 3');
    assert.deepEqual(v.turns.map((t) => t.kind), ['user', 'tools', 'assistant'], 'the prompt, the tool calls, the answer');
    assert.match((v.turns[0] as { text: string }).text, /^Make the coupon check case-insensitive/);
    assert.ok(v.turns.some((t) => t.kind === 'tools' && t.lines.some((l) => /\[tool\] Edit .*src\/checkout\.js/.test(l))));
    assert.ok(v.card && v.card.distiller && v.card.core !== v.title, 'the distilled object as a card that does not repeat the title');
    assert.deepEqual(v.files.find((f) => f.path === 'src/checkout.js'), { path: 'src/checkout.js', label: 'src/checkout.js', how: 'edit', lines: '4', touched: 'edited line 4' });
  });

  it('steps to the next and previous exchange of the conversation in the same view, in the same group', async () => {
    const second = await exchangeIdByPrompt('case-insensitive');
    const third = await exchangeIdByPrompt('Run the unit tests');
    const a = await api();
    await vscode.commands.executeCommand('agentRecall.openExchange', second);
    const groups = vscode.window.tabGroups.all.length;
    await vscode.commands.executeCommand('agentRecall.nextExchange');
    assert.equal(a.exchangeViewer().shown, third);
    await shownView(third);
    await vscode.commands.executeCommand('agentRecall.previousExchange');
    assert.equal(a.exchangeViewer().shown, second);
    await vscode.commands.executeCommand('agentRecall.openExchange', third);
    assert.equal(viewerTabs().length, 1, 'one viewer, reused');
    assert.equal(vscode.window.tabGroups.all.length, groups, 'no new editor group');
  });

  it('opens the raw transcript at the exchange lines', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    const { file, lineStart } = await withStore(async (s) => (await s.getExchange(id))!);
    await vscode.commands.executeCommand('agentRecall.openExchange', id);
    await vscode.commands.executeCommand('agentRecall.openTranscript');
    const ed = vscode.window.activeTextEditor!;
    // a read-only view of the file's text in a language that links nothing, never the file itself
    assert.equal(ed.document.uri.scheme, 'agent-recall-raw');
    assert.equal(ed.document.uri.path, `${vscode.Uri.file(file).path} (raw transcript)`);
    assert.equal(ed.document.languageId, 'agent-recall-transcript');
    const editorConfig = vscode.workspace.getConfiguration('editor', ed.document);
    assert.deepEqual([editorConfig.get('links'), editorConfig.get('wordWrap')], [false, 'on'], 'the language detects no link and wraps long records');
    assert.equal(ed.document.getText(), readFileSync(file, 'utf8'), 'the file\'s text as it is on disk (it has no hidden characters)');
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

  it('opens a touched file whose lines are unknown with nothing selected (issue 39: Ctrl+Enter selected line 1)', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    await withStore((s) => s.db.run("INSERT OR IGNORE INTO files_touched(exchange_n, path, how) SELECT n, 'src/cart.js', 'mention' FROM exchanges WHERE id = ?", [id]));
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('agentRecall.openTouchedFile', id, 'src/cart.js');
      const ed = vscode.window.activeTextEditor!;
      assert.equal(ed.document.uri.fsPath, path.join(fixture().workspace, 'src/cart.js'));
      assert.ok(ed.selection.isEmpty, `no lines claimed: ${JSON.stringify(ed.selection)}`);
    } finally {
      await withStore((s) => s.db.run("DELETE FROM files_touched WHERE path = 'src/cart.js' AND how = 'mention' AND exchange_n = (SELECT n FROM exchanges WHERE id = ?)", [id]));
    }
  });

  it('opens the edited file before a mentioned one, and never a file that no longer exists', async () => {
    const id = await exchangeIdByPrompt('case-insensitive');
    // listed before src/checkout.js (edited, lines 4): a mention, and an edit with lines of a file deleted since
    const gone = 'src/a-deleted-since.js';
    await withStore(async (s) => {
      await s.db.run("INSERT OR IGNORE INTO files_touched(exchange_n, path, how) SELECT n, 'src/cart.js', 'mention' FROM exchanges WHERE id = ?", [id]);
      await s.db.run(`INSERT OR IGNORE INTO files_touched(exchange_n, path, how, lines) SELECT n, ?, 'edit', '[{"start":2,"end":3}]' FROM exchanges WHERE id = ?`, [gone, id]);
    });
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('agentRecall.openTouchedFile', id);
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, path.join(fixture().workspace, 'src/checkout.js'));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('agentRecall.openTouchedFile', id, gone);
      assert.equal(vscode.window.activeTextEditor, undefined, 'a file that no longer exists is not opened');
    } finally {
      await withStore((s) => s.db.run("DELETE FROM files_touched WHERE path = ? OR (path = 'src/cart.js' AND how = 'mention' AND exchange_n = (SELECT n FROM exchanges WHERE id = ?))", [gone, id]));
    }
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
    const a = await api();
    const before = a.exchangeViewer().shown;
    await vscode.commands.executeCommand('agentRecall.openExchange', '../../etc/passwd');
    await vscode.commands.executeCommand('agentRecall.openExchange', 'ffffffffffff');
    assert.equal(a.exchangeViewer().shown, before);
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
    const names = new Set(Object.values(AGENT_NAMES));
    assert.ok(items.every((i) => names.has(labelOf(i.item).split(' · ').pop()!)), items.map((i) => labelOf(i.item)).join(' | '));
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

describe('Rooms tree of several projects and many rooms (issue 39)', () => {
  const elsewhere = '/elsewhere/other-repo';
  type Saved = { n: number; core: string; context: string; rooms: Array<{ id: string; type: 'concept' | 'file' | 'workflow'; key: string; label: string; relevance: number; project?: string }> };
  const saved: Saved[] = [];
  const save = (s: Store, r: Saved, extra: Saved['rooms']) =>
    saveDistillBatch(s.db, [{
      n: r.n, distiller: 'inhost', promptVersion: 't', contentHash: `tree${r.n}`, tokens: 12, cache: false, filesTouched: [],
      value: { exchangeCore: r.core, specificContext: r.context, rooms: [] }, rooms: [...r.rooms, ...extra],
    }]);
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
    // twelve concept rooms of the workspace and one of another project, each on three exchanges of two conversations
    await withStore(async (s) => {
      const rows = await s.db.all<{ n: number; c: string }>('SELECT e.n, e.conversation_id AS c FROM exchanges e JOIN distilled d ON d.exchange_n = e.n ORDER BY e.n');
      const conversations = [...new Set(rows.map((r) => r.c))].slice(0, 2);
      const three = [...rows.filter((r) => r.c === conversations[0]).slice(0, 2), ...rows.filter((r) => r.c === conversations[1]).slice(0, 1)];
      assert.equal(three.length, 3);
      const room = (i: number, project: string) => ({ id: `tree:${project}:${i}`, type: 'concept' as const, key: `topic${i}`, label: `Topic ${String(i).padStart(2, '0')}`, relevance: 0.5, project });
      for (const { n } of three) {
        const d = (await s.db.get<{ core: string; context: string }>('SELECT core, context FROM distilled WHERE exchange_n = ?', [n]))!;
        const rooms = await s.db.all<Saved['rooms'][number] & { project: string | null }>(
          'SELECT r.id, r.type, r.key, coalesce(x.label, r.label) AS label, x.relevance, r.project FROM exchange_rooms x JOIN rooms r ON r.id = x.room_id WHERE x.exchange_n = ?',
          [n],
        );
        const own = { n, ...d, rooms: rooms.map(({ project, ...r }) => ({ ...r, ...(project !== null ? { project } : {}) })) };
        saved.push(own);
        await save(s, own, [...Array.from({ length: 12 }, (_, k) => room(k, fixture().workspace)), room(99, elsewhere)]);
      }
      await refreshRooms(s.db);
    });
  });
  after(async () => {
    // the exchanges as they were: their objects, rooms and full-text facets
    await withStore(async (s) => {
      for (const r of saved) await save(s, r, []);
      await refreshRooms(s.db);
    });
  });

  it("shows the workspace's project first, then the other; a type's long tail under \"N more…\"", async () => {
    const rooms = (await api()).views.rooms;
    rooms.setSort('size');
    const projects = await treeItems(rooms);
    assert.deepEqual(projects.slice(0, 2).map((p) => labelOf(p.item)), [path.basename(fixture().workspace), 'other-repo']);
    assert.equal(projects[0]!.item.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    assert.equal(projects[1]!.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const concepts = (await treeItems(rooms, projects[0]!.node)).find((t) => labelOf(t.item) === 'Concepts');
    assert.ok(concepts);
    const shown = await treeItems(rooms, concepts.node);
    const more = shown[shown.length - 1]!;
    const total = Number(/^(\d+) rooms$/.exec(String(concepts.item.description))?.[1]);
    assert.equal(labelOf(more.item), `${total - (shown.length - 1)} more…`);
    assert.ok(shown.length - 1 < total && total >= 12, `${shown.length - 1} of ${total} shown`);
    const folded = await treeItems(rooms, more.node);
    assert.equal(folded.length, total - (shown.length - 1));
    assert.ok(folded.every((r) => r.item.contextValue === 'room'));
    // largest first: no folded room is larger than the last shown one
    const count = (t: { item: vscode.TreeItem }) => Number(String(t.item.description).split(' ')[0]);
    assert.ok(folded.every((r) => count(r) <= count(shown[shown.length - 2]!)));
    // the other project holds its own room only
    const other = await treeItems(rooms, projects[1]!.node);
    const otherRooms = await treeItems(rooms, other[0]!.node);
    assert.deepEqual(otherRooms.map((r) => labelOf(r.item)), ['Topic 99']);
    rooms.setSort('recency');
  });
});
