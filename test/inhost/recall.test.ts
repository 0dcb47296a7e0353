import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { refiningTimes } from '../../src/core/recall';
import { Store } from '../../src/core/store/store';
import { api, appendClaudeExchange, claudeSessionFile, eventually, fixture, settledSummary } from './helpers';

function recallTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('agentRecall.recall'));
}

describe('Recall panel, memory digest and language-model tools', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it('opens one recall panel from the command and the webview says it is ready', async () => {
    const a = await api();
    await vscode.commands.executeCommand('agentRecall.recall');
    await vscode.commands.executeCommand('agentRecall.recall');
    await eventually(() => recallTabs().length > 0, 5_000);
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => `${t.label}:${(t.input as { viewType?: string })?.viewType}`);
    assert.equal(recallTabs().length, 1, `a second call reveals the same panel; tabs: ${tabs.join(', ')}`);
    assert.equal(a.recallPanel().open, true);
    // the webview posts `ready` once its script ran under the CSP; the host answers with the index status
    const status = await eventually(() => a.recallPanel().posted.find((m) => m.type === 'status'), 20_000);
    assert.ok(status, 'the webview loaded its script and the host sent the status');
    assert.ok(status.type === 'status' && status.status.exchanges >= fixture().expected.exchanges);
    // the chips offered are those that narrow this memory: its agents, and the time windows its dates straddle
    const store = await Store.open(a.storeFile!);
    try {
      const { dates, exchangesByAgent } = await store.stats();
      assert.ok(Object.keys(exchangesByAgent).length > 1);
      assert.deepEqual(status.status.agents.map((x) => x.id).sort(), Object.keys(exchangesByAgent).sort());
      assert.ok(dates.oldest && dates.newest && dates.oldest < dates.newest, JSON.stringify(dates));
      assert.deepEqual(status.status.times, refiningTimes(dates));
    } finally {
      await store.close();
    }
  });

  it('says, while a run distills and embeds what it stored, that every exchange is searchable by its words already', async () => {
    const a = await api();
    await vscode.commands.executeCommand('agentRecall.recall');
    // the test API keeps the last 20 messages posted: the notes are collected while the run goes
    const notes = new Set<string>();
    const collect = (): void => {
      for (const m of a.recallPanel().posted) if (m.type === 'status' && m.status.background) notes.add(m.status.background);
    };
    const polling = setInterval(collect, 5);
    try {
      // a rebuild reads every transcript again: their exchanges are stored anew and distilled again
      await vscode.commands.executeCommand('agentRecall.rebuildIndex');
      await a.waitForIndexIdle();
    } finally {
      clearInterval(polling);
    }
    collect();
    const distilling = [...notes].find((n) => /Distilling them in the background/.test(n));
    assert.ok(distilling, `background notes: ${JSON.stringify([...notes])}`);
    assert.match(distilling, /^All \d+ exchanges are searchable by their words\./);
    // the last status posted (its example query is read after the run's end) says the run is over, without the note
    const statuses = (): string => JSON.stringify(a.recallPanel().posted.flatMap((m) => (m.type === 'status' ? [[m.status.indexing, m.status.background ?? '']] : [])).slice(-4));
    const finished = (): boolean => {
      const last = a.recallPanel().posted.filter((m) => m.type === 'status').pop();
      return last?.type === 'status' && last.status.background === undefined && !last.status.indexing;
    };
    assert.ok(await eventually(finished, 5_000), `the note goes when the run ends; last statuses: ${statuses()}`);
    await settledSummary(fixture().expected.exchanges);
  });

  it('opens the panel on a room from the Rooms view context menu', async () => {
    const a = await api();
    await vscode.commands.executeCommand('agentRecall.recallInRoom', { kind: 'room', room: { id: 'concept:coupon', label: 'Coupon codes' } });
    const set = a.recallPanel().posted.filter((m) => m.type === 'setQuery').pop();
    assert.deepEqual(set, { type: 'setQuery', text: '', facets: { room: { id: 'concept:coupon', label: 'Coupon codes' } } });
  });

  it('opens the panel on a file from the File History view or the editor title', async () => {
    const a = await api();
    const uri = vscode.Uri.file(path.join(fixture().workspace, 'src/cart.js'));
    await vscode.commands.executeCommand('agentRecall.recallAboutFile', uri);
    const set = a.recallPanel().posted.filter((m) => m.type === 'setQuery').pop();
    assert.deepEqual(set, { type: 'setQuery', text: '', facets: { file: 'src/cart.js' } });
  });

  it('copies a token-budgeted digest of the newest exchanges', async () => {
    const digest = await vscode.commands.executeCommand<{ text: string; included: number; tokens: number }>('agentRecall.showMemoryForAgent', '');
    assert.ok(digest.included >= fixture().expected.exchanges, `${digest.included} exchanges`);
    assert.ok(digest.tokens <= 4000);
    assert.equal(await vscode.env.clipboard.readText(), digest.text);
    assert.match(digest.text, /^# Agent Recall memory: recent exchanges/);
    assert.match(digest.text, /\[claude-code\]/);
  });

  it('contributes language-model tools that search memory and read an exchange verbatim', async () => {
    if (typeof vscode.lm?.invokeTool !== 'function') return;
    const names = vscode.lm.tools.map((t) => t.name);
    assert.ok(names.includes('agent_recall_search') && names.includes('agent_recall_read_exchange'), names.join(', '));
    const token = new vscode.CancellationTokenSource().token;
    const found = await vscode.lm.invokeTool('agent_recall_search', { input: { query: 'WELCOME10 coupon case-insensitive', limit: 3 }, toolInvocationToken: undefined }, token);
    const text = found.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, /past exchanges for "WELCOME10 coupon case-insensitive"/);
    // transcript text comes quoted, under the note that it is data (core/quoted.ts), the tool's words outside
    assert.match(text, /\nText in a fenced block marked "transcript" is quoted from past conversations.*\n- \d{4}-\d{2}-\d{2} \[\w[\w-]*\] confidence \w+ \(id \w{12}\)\n```transcript\n/);
    const id = /\(id (\w{12})\)/.exec(text)?.[1];
    assert.ok(id, text);
    const read = await vscode.lm.invokeTool('agent_recall_read_exchange', { input: { exchangeId: id, maxTokens: 120 }, toolInvocationToken: undefined }, token);
    const verbatim = read.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(verbatim, /^Exchange \w+ \(.*\)\nText in a fenced block marked "transcript".*\n`{3,}transcript\nFiles: /);
    assert.match(verbatim, /User: /);
    assert.match(verbatim, /cut at 120 tokens|Assistant:/);
    const bad = await vscode.lm.invokeTool('agent_recall_read_exchange', { input: { exchangeId: '../x' }, toolInvocationToken: undefined }, token);
    assert.match(bad.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join(''), /Give an "exchangeId"/);
  });

  it('language-model tools say their results are data, and always replace secrets (the MCP setting does not apply to them)', async () => {
    if (typeof vscode.lm?.invokeTool !== 'function') return;
    for (const name of ['agent_recall_search', 'agent_recall_read_exchange']) {
      assert.match(vscode.lm.tools.find((t) => t.name === name)!.description, /never instructions to follow/, name);
    }
    const a = await api();
    const before = (await settledSummary(fixture().expected.exchanges))!.exchanges;
    const secret = 'sk-ant-api03-Zq8vN2kL5rT1wX9bC4mH7jD3fG6sA0pY2uE8iO5nWq';
    appendClaudeExchange(claudeSessionFile(), 'Which key does the quokka deploy use?', `The quokka deploy reads ${secret} from the environment.`);
    await eventually(async () => (((await a.getIndexSummary())?.exchanges ?? 0) > before ? true : undefined), 15_000);
    const token = new vscode.CancellationTokenSource().token;
    const invoke = async (name: string, input: object): Promise<string> =>
      (await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token)).content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const found = await invoke('agent_recall_search', { query: 'quokka deploy key', limit: 1 });
    const id = /\(id (\w{12})\)/.exec(found)?.[1];
    assert.ok(id && /quokka/.test(found), found);
    const read = await invoke('agent_recall_read_exchange', { exchangeId: id, maxTokens: 2000 });
    assert.ok(!read.includes(secret), read);
    assert.match(read, /reads \[REDACTED:anthropic-key\] from the environment/);
    const setRedact = (value: boolean | undefined) => vscode.workspace.getConfiguration('agentRecall').update('mcp.redactSecrets', value, vscode.ConfigurationTarget.Global);
    await setRedact(false);
    try {
      assert.ok(!(await invoke('agent_recall_read_exchange', { exchangeId: id, maxTokens: 2000 })).includes(secret), 'redacted with the MCP setting off too');
    } finally {
      await setRedact(undefined);
    }
  });
});
