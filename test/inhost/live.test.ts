import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { api, appendClaudeExchange, claudeSessionFile, eventually, fixture, labelOf, settledSummary, treeItems } from './helpers';

describe('Live indexing', () => {
  it('picks up an exchange appended to a watched transcript within about a second', async () => {
    const a = await api();
    const before = (await settledSummary(fixture().expected.exchanges))!.exchanges;
    const triggers = a.liveTriggers();
    const started = Date.now();
    appendClaudeExchange(
      claudeSessionFile(),
      'Rename the shipping zone table to delivery_zones and update the migration in db/migrate.sql.',
      'Renamed `shipping_zones` to `delivery_zones` in `db/migrate.sql` and updated the two queries that read it; the zanzibar-marker test passes.',
    );
    const s = await eventually(async () => {
      const now = await a.getIndexSummary();
      return now && now.exchanges > before ? now : undefined;
    }, 10_000, 50);
    const took = Date.now() - started;
    assert.equal(s?.exchanges, before + 1, 'the new exchange is indexed');
    assert.ok(a.liveTriggers() > triggers, 'the watcher triggered the index run');
    assert.ok(took < 3_000, `indexed ${took} ms after the write (target about a second)`);
    console.log(`[live] appended exchange indexed after ${took} ms`);
    // the run read the transcript written, and did not walk and sniff every other source again
    await a.waitForIndexIdle();
    const report = (await a.getIndexSummary())?.lastReport;
    assert.deepEqual([report?.parsed, report?.unchanged], [1, 0], 'the live run looked at the written transcript only');
    // and it is searchable: the memory tool finds its unique word
    const digest = await vscode.commands.executeCommand<{ text: string; included: number }>('agentRecall.showMemoryForAgent', 'zanzibar marker delivery zones');
    assert.match(digest.text, /delivery_zones|Rename the shipping zone/);
  });
});

/** The files touched by the Cline exchange whose prompt matches, as the extension's store holds them now. */
async function clineFiles(prompt: RegExp): Promise<string[]> {
  const store = await Store.openReadOnly((await api()).storeFile!);
  try {
    const listed = (await store.listExchanges({})).find((e) => e.agent === 'cline' && prompt.test(e.prompt));
    return listed ? (await store.getExchange(listed.exchangeId))!.filesTouched.map((f) => `${f.how} ${f.path}`) : [];
  } finally {
    await store.close();
  }
}

describe('Live indexing of a side file', () => {
  it("re-reads a Cline task when only its ui_messages.json is written: the exchange gains the file the tool edited", async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const prompt = /^Make it throw a RangeError/;
    assert.ok(!(await clineFiles(prompt)).includes('edit src/quantity.js'), 'not touched before');
    const triggers = a.liveTriggers();
    // Cline's UI record of an edit made while the history's last index was 4 (the reply after it is record 5)
    const ui = [{ ts: Date.now(), type: 'say', say: 'tool', text: JSON.stringify({ tool: 'editedExistingFile', path: 'src/quantity.js' }), conversationHistoryIndex: 4 }];
    fs.writeFileSync(path.join(path.dirname(fixture().clineTask), 'ui_messages.json'), JSON.stringify(ui));
    const files = await eventually(async () => {
      const now = await clineFiles(prompt);
      return now.includes('edit src/quantity.js') ? now : undefined;
    }, 10_000, 200);
    // on failure, say which half failed: the watcher never fired, or a run did not see the change
    const report = (await a.getIndexSummary())?.lastReport;
    const seen = `watcher fired ${a.liveTriggers() - triggers} time(s); last run: ${report ? `${report.parsed} parsed, ${report.unchanged} unchanged, ${report.failed.length} failed` : 'none'}`;
    assert.ok(files, `the history file is unchanged, yet the task was read again (${seen})`);
    assert.ok(a.liveTriggers() > triggers, `the watcher triggered the index run (${seen})`);
  });
});

/** No run under way and none to come from an earlier test's writes: only the write under test can start one. */
async function quiet(a: Awaited<ReturnType<typeof api>>): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await a.waitForIndexIdle();
    const triggers = a.liveTriggers();
    await new Promise((r) => setTimeout(r, 1_000));
    if (a.liveTriggers() === triggers) return;
  }
}

describe("Live indexing of VS Code's workspaceStorage", () => {
  it("picks up a Copilot Chat session saved in the workspace's chatSessions folder", async () => {
    const a = await api();
    await quiet(a);
    const triggers = a.liveTriggers();
    const request = {
      requestId: 'request_live_1',
      timestamp: Date.now(),
      modelId: 'copilot/gpt-5',
      message: { text: 'Why does the wombat-marker discount banner flicker when the cart reloads?' },
      response: [{ value: 'The banner re-renders before the coupon is read back from storage, so it shows the full price for one frame; render it after the coupon has loaded.' }],
    };
    const session = { kind: 0, v: { version: 3, sessionId: 'live-copilot-session', creationDate: request.timestamp, requesterUsername: 'dev', responderUsername: 'GitHub Copilot', requests: [request] } };
    fs.writeFileSync(path.join(path.dirname(fixture().copilotSession), 'live-copilot-session.jsonl'), `${JSON.stringify(session)}\n`);
    const found = await eventually(async () => (await a.search({ text: 'wombat marker banner', mode: 'verbatim/bm25' })).hits.some((h) => h.agent === 'copilot'), 10_000, 200);
    assert.ok(found, 'the new session is indexed');
    assert.ok(a.liveTriggers() > triggers, 'the watcher started the run');
  });
});

describe('Live indexing of a transcript folder that appears later', () => {
  it('indexes a Roo Code task whose tasks folder did not exist at activation, without another write', async () => {
    const a = await api();
    await quiet(a);
    // the fixture has Cline's tasks folder, not Roo Code's: the watcher looks for it again every 30 s
    const tasks = path.join(path.dirname(path.dirname(fixture().clineTask)).replace('saoudrizwan.claude-dev', 'rooveterinaryinc.roo-cline'));
    assert.ok(!fs.existsSync(tasks), `${tasks} is missing at the start`);
    const env = `<environment_details>\n# Current Working Directory (${fixture().workspace}) Files\nsrc/\n</environment_details>`;
    const history = JSON.stringify([
      { role: 'user', content: [{ type: 'text', text: '<task>\nWhy does the quokka-marker retry loop in src/sync.js give up after three attempts?\n</task>' }, { type: 'text', text: env }] },
      { role: 'assistant', content: [{ type: 'text', text: 'It gives up after three attempts because MAX_RETRIES is 3 in src/sync.js and the backoff never grows; raise the limit or double the delay each time.' }] },
    ]);
    fs.mkdirSync(path.join(tasks, '1791190900000'), { recursive: true });
    fs.writeFileSync(path.join(tasks, '1791190900000', 'api_conversation_history.json'), history);
    const triggers = a.liveTriggers();
    try {
      const found = await eventually(async () => (await a.search({ text: 'quokka marker', mode: 'verbatim/bm25' })).hits.some((h) => h.agent === 'roo-code'), 45_000, 500);
      assert.ok(found, `the task in ${tasks}, a folder made after activation, is indexed with no later write`);
      assert.ok(a.liveTriggers() > triggers, 'the watcher started the run when it found the folder');
    } finally {
      fs.rmSync(path.dirname(tasks), { recursive: true, force: true });
    }
  });
});

describe('Live indexing after a settings change', () => {
  it('watches a transcript folder added to the roots setting without a reload', async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-recall-new-root-'));
    const config = vscode.workspace.getConfiguration('agentRecall');
    await config.update('sources.extraRoots', [root], vscode.ConfigurationTarget.Global);
    try {
      await a.waitForIndexIdle();
      const triggers = a.liveTriggers();
      const file = path.join(root, 'later.jsonl');
      // any .jsonl write wakes the watcher; this one is no transcript, so the store is left as it was
      fs.writeFileSync(file, '{"note":"not a transcript"}\n');
      // the watchers restart on the change event: keep writing until one sees it (or the time is up)
      const seen = await eventually(() => {
        if (a.liveTriggers() > triggers) return true;
        fs.appendFileSync(file, '\n');
        return false;
      }, 8_000, 400);
      assert.ok(seen, `a write in ${root}, named in the setting after activation, starts an index run`);
    } finally {
      await config.update('sources.extraRoots', undefined, vscode.ConfigurationTarget.Global);
      await a.waitForIndexIdle();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  // issue 44, item 12: a mistyped folder in the setting was read as "nothing there", without a word
  it('names a folder of the roots setting that does not exist in the Index view, and clears it once the setting is fixed', async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const missing = path.join(os.tmpdir(), 'agent-recall-no-such-root');
    const config = vscode.workspace.getConfiguration('agentRecall');
    const said = async (): Promise<vscode.TreeItem | undefined> =>
      (await treeItems(a.views.status)).map((t) => t.item).find((i) => /^Not searched \(agentRecall\.sources\.extraRoots\)/.test(labelOf(i)));
    await config.update('sources.extraRoots', [missing], vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('agentRecall.indexNow');
      await a.waitForIndexIdle();
      const shown = await eventually(said, 8_000, 200);
      assert.ok(shown, 'the Index view names the folder');
      assert.equal(labelOf(shown), `Not searched (agentRecall.sources.extraRoots): ${missing}: no such folder.`);
    } finally {
      await config.update('sources.extraRoots', undefined, vscode.ConfigurationTarget.Global);
    }
    await vscode.commands.executeCommand('agentRecall.indexNow');
    await a.waitForIndexIdle();
    assert.equal(await said(), undefined, 'a run with the setting fixed says nothing more');
  });
});

/**
 * Runs the recall command with `text` until its answer holds a candidate of `agent` matching `marker` (a word
 * only the new exchange has, so no earlier answer can match).
 */
async function recallFindsNew(text: string, agent: string, marker: RegExp, timeoutMs: number): Promise<boolean> {
  const a = await api();
  const until = Date.now() + timeoutMs;
  for (;;) {
    await vscode.commands.executeCommand('agentRecall.recall', text);
    const found = await eventually(
      () => a.recallPanel().posted.some((m) => m.type === 'results' && !m.recent && m.candidates.some((c) => c.agent === agent && marker.test(JSON.stringify(c)))),
      1_000,
      50,
    );
    if (found || Date.now() > until) return found;
  }
}

describe("Live indexing of the agents' databases", () => {
  it('indexes a conversation Cursor writes into its WAL database, from a connection of its own, without an index command', async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const triggers = a.liveTriggers();
    const workspace = fixture().workspace;
    const composerId = 'f1e2d3c4-0000-4000-8000-00000000live';
    const bubbles = [
      { bubbleId: 'l1', type: 1, text: 'The quokka-marker coupon stacks with the loyalty discount; should the cart refuse a second percentage coupon?' },
      { bubbleId: 'l2', type: 2, text: 'Yes: cartTotalCents now throws when a second percentage coupon is applied, and the quokka-marker test covers the stacked case.' },
    ];
    // Cursor holds its database open and writes in WAL mode: its writes land in state.vscdb-wal
    const cursor = await Db.open(fixture().cursorDb);
    try {
      const started = Date.now();
      await cursor.transaction(async () => {
        for (const b of bubbles) await cursor.run('INSERT INTO cursorDiskKV VALUES (?, ?)', [`bubbleId:${composerId}:${b.bubbleId}`, JSON.stringify({ _v: 3, ...b, createdAt: new Date().toISOString() })]);
        await cursor.run('INSERT INTO cursorDiskKV VALUES (?, ?)', [`composerData:${composerId}`, JSON.stringify({
          _v: 10, composerId, name: 'Stacked coupons', createdAt: Date.now(), lastUpdatedAt: Date.now(),
          workspaceIdentifier: { id: 'fixture', uri: { $mid: 1, fsPath: workspace, path: workspace, scheme: 'file' } },
          fullConversationHeadersOnly: bubbles.map((b) => ({ bubbleId: b.bubbleId, type: b.type })),
        })]);
      });
      assert.ok(await recallFindsNew('quokka-marker stacked percentage coupon', 'cursor', /quokka-marker/, 8_000), 'the recall command finds the new Cursor exchange');
      const took = Date.now() - started;
      assert.ok(a.liveTriggers() > triggers, 'the watcher triggered the index run');
      assert.ok(took < 5_000, `found ${took} ms after the write (target about a second)`);
      console.log(`[live] Cursor exchange written into the WAL found by the recall command after ${took} ms`);
    } finally {
      await cursor.close();
    }
  });

  it('indexes a session OpenCode writes into its WAL database, from a connection of its own, without an index command', async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const triggers = a.liveTriggers();
    const session = 'ses_7c3e9a1b2d4fLiveWombat';
    const t = Date.now();
    const opencode = await Db.open(fixture().openCodeDb);
    try {
      const started = Date.now();
      await opencode.transaction(async () => {
        await opencode.run('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)', [session, 'global', session, fixture().workspace, 'Wombat rounding', '1.0.0', t, t]);
        const turns: Array<[string, string, string]> = [
          ['msg_lw1', 'user', 'Why does the wombat-marker order total round half-cents down instead of to the nearest cent in checkoutSummary?'],
          ['msg_lw2', 'assistant', 'checkoutSummary truncated with Math.floor; it now rounds with Math.round so the wombat-marker half-cent case goes up.'],
        ];
        for (const [id, role, text] of turns) {
          await opencode.run('INSERT INTO message VALUES (?, ?, ?, ?, ?)', [id, session, t, t, JSON.stringify({ role, time: { created: t } })]);
          await opencode.run('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)', [`prt_${id}`, id, session, t, t, JSON.stringify({ type: 'text', text })]);
        }
      });
      assert.ok(await recallFindsNew('wombat-marker half-cent rounding', 'opencode', /wombat-marker/, 8_000), 'the recall command finds the new OpenCode exchange');
      const took = Date.now() - started;
      assert.ok(a.liveTriggers() > triggers, 'the watcher triggered the index run');
      assert.ok(took < 5_000, `found ${took} ms after the write (target about a second)`);
      console.log(`[live] OpenCode exchange written into the WAL found by the recall command after ${took} ms`);
    } finally {
      await opencode.close();
    }
  });

  it("says in the Index view why an agent's database in rollback-journal mode is not read, and reads it once it is in WAL mode", async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const file = path.join(path.dirname(fixture().openCodeDb), 'opencode-beta.db');
    const db = await Db.open(file); // a new database is in rollback-journal mode
    try {
      await db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);`);
      const unreadable = async (): Promise<vscode.TreeItem | undefined> => {
        await a.waitForIndexIdle();
        return (await treeItems(a.views.status)).map((t) => t.item).find((i) => /could not be read/.test(labelOf(i)));
      };
      const shown = await eventually(unreadable, 8_000, 200);
      assert.ok(shown, 'the Index view counts the database as unreadable');
      assert.equal(labelOf(shown), '1 transcript could not be read');
      assert.equal(shown.description, 'opencode-beta.db');
      assert.match(String(shown.tooltip), /opencode-beta\.db: OpenCode's database .* is not in WAL mode \(it uses a rollback journal\), so it is not read/);
      // OpenCode opens it in WAL mode: read, and nothing is unreadable any more
      await db.exec('PRAGMA journal_mode = WAL');
      await db.run("INSERT INTO session VALUES ('ses_beta', 'p', NULL, '/elsewhere', 'Beta', 1, 1)");
      assert.equal(await eventually(async () => !(await unreadable()), 8_000, 200), true, 'the error clears once the database is read');
    } finally {
      await db.close();
    }
  });
});

describe("Live indexing of the terminal agents' own folders (Copilot CLI, Qwen Code, Amp)", () => {
  it('indexes a session each writes into its folder under COPILOT_HOME, QWEN_RUNTIME_DIR and XDG_DATA_HOME; an Amp thread caught half-written is read once whole', async () => {
    const a = await api();
    await a.waitForIndexIdle();
    const triggers = a.liveTriggers();
    const { workspace, copilotHome, qwenHome, ampThreads } = fixture();
    const now = (): string => new Date().toISOString();

    // Copilot CLI appends events to session-state/<id>/events.jsonl, the title in workspace.yaml beside it
    const copilotDir = path.join(copilotHome, 'session-state', '9e1f2a3b-live-copilot');
    fs.mkdirSync(copilotDir, { recursive: true });
    fs.writeFileSync(path.join(copilotDir, 'workspace.yaml'), `cwd: ${workspace}\nname: Wallaby refund rounding\n`);
    const events = [
      { type: 'session.start', data: { sessionId: '9e1f2a3b-live-copilot', startTime: now(), context: { cwd: workspace } } },
      { type: 'user.message', data: { content: 'Why does the wallaby-marker refund lose a cent on a 3-item cart?' } },
      { type: 'assistant.message', data: { content: 'The wallaby-marker refund divides the total by the item count before rounding; rounding each share first loses the cent, so refunds now round once at the end.' } },
    ];
    fs.appendFileSync(path.join(copilotDir, 'events.jsonl'), events.map((e, i) => JSON.stringify({ ...e, id: `live-${i}`, timestamp: now() })).join('\n') + '\n');

    // Qwen Code appends records to projects/<cwd as dashes>/chats/<id>.jsonl, each naming its cwd
    const qwenChats = path.join(qwenHome, 'projects', workspace.replace(/[^A-Za-z0-9]/g, '-'), 'chats');
    fs.mkdirSync(qwenChats, { recursive: true });
    const records = [
      { type: 'user', message: { role: 'user', parts: [{ text: 'Does the numbat-marker discount apply before or after VAT?' }] } },
      { type: 'assistant', message: { role: 'model', parts: [{ text: 'Before: the numbat-marker discount is taken off the net price in checkoutSummary, and VAT is computed on what remains.' }] } },
    ];
    fs.appendFileSync(path.join(qwenChats, 'live-qwen.jsonl'), records.map((r, i) => JSON.stringify({ ...r, uuid: `q-live-${i}`, sessionId: 'live-qwen', timestamp: now(), cwd: workspace })).join('\n') + '\n');

    // Amp rewrites its thread whole: a read can catch the write half done
    const thread = JSON.stringify({
      v: 3, id: 'T-5b6c7d8e-live-4a00-8000-000000000amp', created: Date.now(),
      env: { initial: { trees: [{ displayName: 'workspace', uri: `file://${workspace}` }] } },
      messages: [
        { role: 'user', messageId: 0, content: [{ type: 'text', text: 'Can the bilby-marker basket keep its coupon after a reload?' }] },
        { role: 'assistant', messageId: 1, content: [{ type: 'text', text: 'Yes: the bilby-marker basket now stores the coupon code in the session, so a reload restores it and checkoutSummary applies it again.' }] },
      ],
    }, null, 2);
    const ampFile = path.join(ampThreads, 'T-5b6c7d8e-live-4a00-8000-000000000amp.json');
    fs.writeFileSync(ampFile, thread.slice(0, Math.floor(thread.length / 2)));
    await new Promise((r) => setTimeout(r, 600));
    fs.writeFileSync(ampFile, thread);

    try {
      assert.ok(await recallFindsNew('wallaby-marker refund cent', 'copilot-cli', /wallaby-marker/, 15_000), 'the Copilot CLI exchange is found');
      assert.ok(await recallFindsNew('numbat-marker discount VAT', 'qwen-code', /numbat-marker/, 15_000), 'the Qwen Code exchange is found');
      assert.ok(await recallFindsNew('bilby-marker basket coupon reload', 'amp', /bilby-marker/, 15_000), 'the Amp exchange is found once its thread is whole');
      assert.ok(a.liveTriggers() > triggers, 'the watcher started the runs');
      const names = a.recallPanel().posted.flatMap((m) => (m.type === 'results' ? m.candidates.map((c) => c.agentName) : []));
      assert.ok(['Copilot CLI', 'Qwen Code', 'Amp'].every((n) => names.includes(n)), `each shown by its name: ${[...new Set(names)].join(', ')}`);
    } finally {
      for (const p of [copilotDir, qwenChats, ampFile]) fs.rmSync(p, { recursive: true, force: true });
    }
  });
});

/** A WAL database made elsewhere and moved into place whole: the agent's folder never sees it half made. */
async function placeDatabase(file: string, schema: string): Promise<void> {
  const made = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-db-')), path.basename(file));
  const db = await Db.open(made);
  await db.exec(`PRAGMA journal_mode = WAL; ${schema}`);
  await db.close();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.renameSync(made, file);
  fs.rmSync(path.dirname(made), { recursive: true, force: true });
}

/** Whether the recall panel has shown a candidate under the agent name `name`. */
async function shownAs(name: string): Promise<boolean> {
  return (await api()).recallPanel().posted.some((m) => m.type === 'results' && m.candidates.some((c) => c.agentName === name));
}

describe("Live indexing of Goose's database, Crush's in the workspace and Factory Droid's sessions", () => {
  const now = Math.floor(Date.now() / 1000);

  it("indexes a session Goose writes into its WAL database in its sessions folder, from a connection of its own", async () => {
    const a = await api();
    await quiet(a); // only the write under test starts a run
    const triggers = a.liveTriggers();
    const file = path.join(process.env['XDG_DATA_HOME']!, 'goose', 'sessions', 'sessions.db');
    await placeDatabase(file, `CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
        session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content_json TEXT NOT NULL,
        created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, metadata_json TEXT)`);
    const goose = await Db.open(file);
    try {
      await goose.transaction(async () => {
        await goose.run("INSERT INTO sessions (id, name, working_dir) VALUES ('20991231_1', 'Platypus pantry', ?)", [fixture().workspace]);
        const turns: Array<[string, string]> = [
          ['user', 'Why does the platypus-marker pantry count tins twice when the same barcode is scanned from two shelves?'],
          ['assistant', 'The platypus-marker pantry keyed items by shelf and barcode; it now keys them by barcode alone and sums the shelves.'],
        ];
        for (const [i, [role, t]] of turns.entries()) {
          await goose.run('INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)', ['20991231_1', role, JSON.stringify([{ type: 'text', text: t }]), now + i]);
        }
      });
      assert.ok(await recallFindsNew('platypus-marker pantry barcode tins', 'goose', /platypus-marker/, 15_000), 'the Goose exchange is found');
      assert.ok(a.liveTriggers() > triggers, "the watcher of Goose's folder started the run");
      assert.equal(await shownAs('Goose'), true);
    } finally {
      await goose.close();
    }
  });

  it("indexes a session Crush writes into the database in the workspace's .crush folder", async () => {
    const a = await api();
    await quiet(a); // only the write under test starts a run
    const triggers = a.liveTriggers();
    const dir = path.join(fixture().workspace, '.crush');
    await placeDatabase(path.join(dir, 'crush.db'), `CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL DEFAULT '[]', model TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER)`);
    const crush = await Db.open(path.join(dir, 'crush.db'));
    try {
      await crush.transaction(async () => {
        await crush.run("INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('c-live', 'Echidna expiry', ?, ?)", [now, now]);
        const turns: Array<[string, string]> = [
          ['user', 'Should the echidna-marker expiry warning count the day of expiry as expired or as still fresh?'],
          ['assistant', 'As still fresh: the echidna-marker warning now compares whole days, so an item expiring today shows amber, not red.'],
        ];
        for (const [i, [role, t]] of turns.entries()) {
          await crush.run('INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [`c-live-${i}`, 'c-live', role, JSON.stringify([{ type: 'text', data: { text: t } }]), now + i, now + i]);
        }
      });
      assert.ok(await recallFindsNew('echidna-marker expiry warning day', 'crush', /echidna-marker/, 15_000), 'the Crush exchange is found');
      assert.ok(a.liveTriggers() > triggers, 'the workspace watcher started the run');
      assert.equal(await shownAs('Crush'), true);
    } finally {
      await crush.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('indexes a session Factory Droid appends under ~/.factory/sessions/<cwd with dashes>/', async () => {
    const a = await api();
    await quiet(a); // only the write under test starts a run
    const triggers = a.liveTriggers();
    const { workspace } = fixture();
    const dir = path.join(os.homedir(), '.factory', 'sessions', workspace.replace(/[\\/]/g, '-'));
    const stamp = (s: number): string => new Date((now + s) * 1000).toISOString();
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.appendFileSync(path.join(dir, 'd1f2e3a4-live-droid.jsonl'), [
        { type: 'session_start', id: 'd1f2e3a4-live-droid', title: 'Wombat receipts', cwd: workspace },
        { type: 'message', id: 'dm1', timestamp: stamp(0), message: { role: 'user', content: [{ type: 'text', text: 'Can the wombat-marker receipt list the deposit on bottles as its own line?' }] } },
        { type: 'message', id: 'dm2', timestamp: stamp(1), message: { role: 'assistant', content: [{ type: 'text', text: 'Yes: the wombat-marker receipt now prints the bottle deposit on a line of its own, after the items and before VAT.' }] } },
      ].map((r) => JSON.stringify(r)).join('\n') + '\n');
      assert.ok(await recallFindsNew('wombat-marker receipt bottle deposit', 'factory-droid', /wombat-marker/, 15_000), 'the Factory Droid exchange is found');
      assert.ok(a.liveTriggers() > triggers, "the watcher of Droid's folder started the run");
      assert.equal(await shownAs('Factory Droid'), true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Live indexing of Trae's chats in a workspace's storage database", () => {
  it('indexes a session Trae adds to the workspace database (a rollback-journal write, read from a copy)', async () => {
    const a = await api();
    await quiet(a);
    const triggers = a.liveTriggers();
    const db = await Db.open(fixture().traeDb);
    try {
      const row = await db.get<{ v: string }>("SELECT CAST(value AS TEXT) AS v FROM ItemTable WHERE key = 'memento/icube-ai-agent-storage'");
      const value = JSON.parse(row!.v) as { list: unknown[] };
      const t = Date.now();
      value.list.push({
        sessionId: 'live-trae-session', createdAt: t, updatedAt: t, messages: [
          { role: 'user', content: 'Why does the platypus-marker gift card lose its balance after a refund?', timestamp: t },
          { role: 'assistant', content: 'The platypus-marker refund credits the card and then voids it in the same transaction; refunds now credit the card only, so the balance stays.', timestamp: t + 1000 },
        ],
      });
      await db.run("UPDATE ItemTable SET value = ? WHERE key = 'memento/icube-ai-agent-storage'", [JSON.stringify(value)]);
    } finally {
      await db.close();
    }
    assert.ok(await recallFindsNew('platypus-marker gift card refund balance', 'trae', /platypus-marker/, 15_000), 'the new Trae session is found');
    assert.ok(a.liveTriggers() > triggers, 'the watcher started the run');
  });
});

describe("Live indexing of OpenHands, Kimi Code and Junie's folders", () => {
  it('indexes a conversation each writes under OPENHANDS_CONVERSATIONS_DIR, KIMI_CODE_HOME and JUNIE_HOME, in folders made after activation', async () => {
    const a = await api();
    await quiet(a);
    const triggers = a.liveTriggers();
    const { workspace, openHandsHome, kimiHome, junieHome } = fixture();
    const iso = new Date().toISOString();

    // OpenHands: a conversation folder, its state, then one file per event
    const conversation = path.join(openHandsHome, '5e6f7a8b9c0d4e1f8a2b3c4d5e6f7a8b');
    fs.mkdirSync(path.join(conversation, 'events'), { recursive: true });
    fs.writeFileSync(path.join(conversation, 'base_state.json'), JSON.stringify({ id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b', workspace: { kind: 'LocalWorkspace', working_dir: workspace } }));
    const event = (i: number, body: Record<string, unknown>): void =>
      fs.writeFileSync(path.join(conversation, 'events', `event-0000${i}-1a2b3c4d-0000-4000-8000-00000000000${i}.json`), JSON.stringify({ id: `oh-live-${i}`, timestamp: iso.slice(0, -1), ...body }));
    event(0, { kind: 'MessageEvent', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'Why does the echidna-marker invoice number skip a value after a failed payment?' }] } });
    event(1, { kind: 'MessageEvent', source: 'agent', llm_message: { role: 'assistant', content: [{ type: 'text', text: 'The echidna-marker invoice number is taken from the sequence before the payment runs, so a failed payment burns it; it is now assigned after the payment succeeds.' }] } });

    // Kimi Code: the session's main agent log, its folder named in config.update
    const kimi = path.join(kimiHome, 'sessions', 'wd_workspace_0123456789ab', 'session_live-kimi', 'agents', 'main');
    fs.mkdirSync(kimi, { recursive: true });
    const t = Date.now();
    fs.writeFileSync(path.join(kimi, 'wire.jsonl'), [
      { type: 'metadata', protocol_version: '1.4', created_at: t },
      { type: 'config.update', cwd: workspace, time: t },
      { type: 'context.append_message', message: { role: 'user', content: [{ type: 'text', text: 'Can the dingo-marker voucher be combined with the WELCOME10 coupon?' }], toolCalls: [], origin: { kind: 'user' } }, time: t },
      { type: 'context.append_loop_event', event: { type: 'step.begin', uuid: 'k-live-1', turnId: '0', step: 1 }, time: t },
      { type: 'context.append_loop_event', event: { type: 'content.part', uuid: 'k-live-2', turnId: '0', step: 1, stepUuid: 'k-live-1', part: { type: 'text', text: 'No: checkoutSummary applies one code, and a dingo-marker voucher replaces WELCOME10 rather than stacking with it.' } }, time: t },
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');

    // Junie: its index names the project; the session's event log
    const junie = path.join(junieHome, 'sessions', 'session-261009-101500-live');
    fs.mkdirSync(junie, { recursive: true });
    fs.writeFileSync(path.join(junieHome, 'sessions', 'index.jsonl'), `${JSON.stringify({ sessionId: 'session-261009-101500-live', createdAt: t, updatedAt: t, projectDir: workspace, taskName: 'live' })}\n`);
    fs.writeFileSync(path.join(junie, 'events.jsonl'), [
      { kind: 'UserPromptEvent', timestampMs: t, requestId: 'j-live-1', presentablePrompt: 'Where is the quoll-marker loyalty bonus added to the cart total?' },
      { kind: 'SessionA2uxEvent', timestampMs: t + 1, event: { state: 'COMPLETED', agentEvent: { kind: 'ResultBlockUpdatedEvent', stepId: 'j-live-s1', result: '<!-- ANSWER -->The quoll-marker loyalty bonus is subtracted in cartTotalCents in src/cart.js, after the coupon and before rounding.' } } },
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');

    try {
      assert.ok(await recallFindsNew('echidna-marker invoice number failed payment', 'openhands', /echidna-marker/, 15_000), 'the OpenHands exchange is found');
      assert.ok(await recallFindsNew('dingo-marker voucher WELCOME10 coupon', 'kimi', /dingo-marker/, 15_000), 'the Kimi Code exchange is found');
      assert.ok(await recallFindsNew('quoll-marker loyalty bonus cart total', 'junie', /quoll-marker/, 15_000), 'the Junie exchange is found');
      assert.ok(a.liveTriggers() > triggers, 'the watcher started the runs');
      const names = a.recallPanel().posted.flatMap((m) => (m.type === 'results' ? m.candidates.map((c) => c.agentName) : []));
      assert.ok(['OpenHands', 'Kimi Code', 'Junie'].every((n) => names.includes(n)), `each shown by its name: ${[...new Set(names)].join(', ')}`);
    } finally {
      for (const p of [conversation, path.join(kimiHome, 'sessions', 'wd_workspace_0123456789ab'), junie]) fs.rmSync(p, { recursive: true, force: true });
    }
  });
});
