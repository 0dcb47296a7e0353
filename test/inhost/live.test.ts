import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, eventually, fixture, settledSummary } from './helpers';

/** The fixture's Claude Code session file. */
function claudeSessionFile(): string {
  const projects = path.join(fixture().claudeConfigDir, 'projects');
  for (const dir of fs.readdirSync(projects)) {
    const f = fs.readdirSync(path.join(projects, dir)).find((n) => n.endsWith('.jsonl'));
    if (f) return path.join(projects, dir, f);
  }
  throw new Error(`no Claude session under ${projects}`);
}

/** Appends a new prompt and reply as Claude Code writes them (same session, cwd, chained uuids). */
function appendClaudeExchange(file: string, prompt: string, reply: string): void {
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = [...lines].reverse().find((r) => typeof r['uuid'] === 'string')!;
  const base = { isSidechain: false, userType: 'external', cwd: last['cwd'], sessionId: last['sessionId'], version: last['version'], gitBranch: 'main' };
  const now = new Date().toISOString();
  const u1 = `${Date.now().toString(16).padStart(8, '0').slice(-8)}-aaaa-4aaa-aaaa-000000000001`;
  const u2 = `${Date.now().toString(16).padStart(8, '0').slice(-8)}-aaaa-4aaa-aaaa-000000000002`;
  const user = { ...base, parentUuid: last['uuid'], type: 'user', message: { role: 'user', content: prompt }, timestamp: now, uuid: u1 };
  const assistant = {
    ...base, parentUuid: u1, type: 'assistant', timestamp: now, uuid: u2, requestId: 'req_live',
    message: { model: 'claude-sonnet-4-5', id: 'msg_live', type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }], stop_reason: null, stop_sequence: null },
  };
  fs.appendFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(assistant)}\n`);
}

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
    // and it is searchable: the memory tool finds its unique word
    const digest = await vscode.commands.executeCommand<{ text: string; included: number }>('agentRecall.showMemoryForAgent', 'zanzibar marker delivery zones');
    assert.match(digest.text, /delivery_zones|Rename the shipping zone/);
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
});
