import assert from 'node:assert/strict';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import type { ParseOutput, SourceAdapter } from '../../src/core/sources/adapter';
import { clineAdapter, rooCodeAdapter } from '../../src/core/sources/cline';
import { discoverSources } from '../../src/core/sources/discover';
import { splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const CLINE_TASK = path.join(FIXTURES, 'cline', 'saoudrizwan.claude-dev', 'tasks', '1762077600000');
const ROO_TASK = path.join(FIXTURES, 'roo', 'rooveterinaryinc.roo-cline', 'tasks', '0d9e7f3a-2b1c-4e5f-8a9b-7c6d5e4f3a2b');
const HISTORY = 'api_conversation_history.json';

async function parse(adapter: SourceAdapter, file: string): Promise<ParseOutput> {
  return adapter.parse({ file, lines: splitLines(await readFile(file), 0, 1, { holdBackPartial: false }).lines });
}

test('Cline: the human words from <task> and <feedback>, environment details dropped, tool results apart; exchanges by byte offset', async () => {
  const file = path.join(CLINE_TASK, HISTORY);
  const out = await parse(clineAdapter, file);
  assert.deepEqual(out.skipped, [{ line: 1, reason: 'unknown-record' }], 'a role of a later version');
  const conv = out.conversations[0]!;
  assert.deepEqual(conv.meta, { agent: 'cline', sessionId: '1762077600000', line: 1, isSubagent: false, startedAt: '2025-11-02T10:00:00.000Z' });
  assert.deepEqual(conv.messages.map((m) => `${m.kind} @${m.offset}`), [
    'prompt @1', 'reply @345', 'tool-results @581', 'reply @944', 'tool-results @1441', 'prompt @1441', 'reply @1898',
  ]);
  assert.equal(conv.messages[0]!.text, "The tide table shows times in UTC; show them in the harbour's local time zone instead.");
  assert.equal(conv.messages[1]!.text, "I'll read the formatter first.", 'no <thinking>');
  assert.ok(!conv.messages.some((m) => m.text.includes('environment_details') || m.text.includes('VSCode Visible Files')));
  assert.equal(conv.messages[5]!.text, 'Also show the zone abbreviation next to each time, like 14:05 CET.');
  const { exchanges } = segmentConversation({ ...conv, meta: { ...conv.meta, project: '/home/dev/tidepool' } }, segment);
  assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.byteStart]), [[1, 1, 1], [1, 1, 1441]]);
  assert.notEqual(exchanges[0]!.id, exchanges[1]!.id, 'one line, two exchanges: told apart by offset');
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/format.ts', how: 'edit' }]);
});

test('Roo Code: <user_message> is the human, a resumption notice is context', async () => {
  const conv = (await parse(rooCodeAdapter, path.join(ROO_TASK, HISTORY))).conversations[0]!;
  assert.equal(conv.meta.agent, 'roo-code');
  assert.deepEqual(conv.messages.map((m) => m.kind), ['prompt', 'reply', 'context', 'prompt', 'reply']);
  assert.equal(conv.messages[3]!.text, "Keep the skip when the first cell is the word 'timestamp'.");
  assert.equal(conv.messages[0]!.timestamp, '2025-11-02T11:00:00.000Z', "Roo stamps each message with 'ts'");
});

test("discovery: each task's agent by its extension folder, its project from the task history, Roo's history item, or the environment details", async () => {
  const root = tempDir('cline-');
  await cp(path.join(FIXTURES, 'cline'), root, { recursive: true });
  await cp(path.join(FIXTURES, 'roo'), root, { recursive: true });
  const agentRoots = [path.join(root, 'saoudrizwan.claude-dev', 'tasks'), path.join(root, 'rooveterinaryinc.roo-cline', 'tasks')];
  const base = { claudeRoots: [], codexRoots: [], agentRoots, extraRoots: [], includeSubagents: true };
  const found = await discoverSources({ ...base, workspaceRoots: [] });
  assert.deepEqual(found.map((s) => [s.adapter.agent, s.project]), [['roo-code', '/home/dev/gauges'], ['cline', '/home/dev/tidepool']]);
  // without the task history, the cwd the extension wrote into the first environment details
  await rm(path.join(root, 'saoudrizwan.claude-dev', 'state'), { recursive: true });
  const mine = await discoverSources({ ...base, workspaceRoots: ['/home/dev/tidepool'] });
  assert.deepEqual(mine.map((s) => [s.adapter.agent, s.project]), [['cline', '/home/dev/tidepool']]);
});

test('a history file caught half-rewritten is retried on the next run; the stored exchanges stay', async () => {
  const root = tempDir('cline-');
  await cp(path.join(FIXTURES, 'cline'), root, { recursive: true });
  const file = path.join(root, 'saoudrizwan.claude-dev', 'tasks', '1762077600000', HISTORY);
  const store = await Store.open(path.join(root, 's.sqlite'));
  try {
    await indexSource(store, file, clineAdapter, segment);
    assert.equal((await store.stats()).exchanges, 2);
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, 900));
    const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [path.join(root, 'saoudrizwan.claude-dev', 'tasks')], extraRoots: [], includeSubagents: true });
    const report = await indexSources(store, sources, segment);
    assert.equal(report.failed.length, 1);
    assert.match(report.failed[0]!.error, /read again on the next run/);
    assert.equal((await store.stats()).exchanges, 2, 'nothing lost');
    await writeFile(file, bytes);
    const again = await indexSources(store, sources, segment);
    assert.deepEqual([again.failed.length, again.parsed], [0, 1], 'the recorded error makes the next run read it again');
  } finally {
    await store.close();
  }
});

test('a one-line history over 32 MB is read with its long strings cut short; one still over 32 MB says it is too large', async () => {
  const root = tempDir('cline-');
  await cp(path.join(FIXTURES, 'cline'), root, { recursive: true });
  const file = path.join(root, 'saoudrizwan.claude-dev', 'tasks', '1762077600000', HISTORY);
  const messages = JSON.parse(await readFile(file, 'utf8')) as unknown[];
  const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [path.join(root, 'saoudrizwan.claude-dev', 'tasks')], extraRoots: [], includeSubagents: true });
  const store = await Store.open(path.join(root, 's.sqlite'));
  try {
    // a 33 MB screenshot in the last request: Cline writes the whole history on one line
    const shot = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K'.repeat((33 * 1024 * 1024) / 8) } };
    const asked = { role: 'user', content: [shot, { type: 'text', text: '<feedback>\nThe tide chart on this screenshot still shows the harbour times in UTC, not local time; please fix the formatter once more.\n</feedback>' }] };
    const answered = { role: 'assistant', content: [{ type: 'text', text: 'The chart used the raw timestamp; it now goes through formatHarbourTime, so the screenshot shows local times.' }] };
    await writeFile(file, JSON.stringify([...messages, asked, answered]));
    const report = await indexSources(store, sources, segment);
    assert.deepEqual(report.failed, []);
    const last = (await store.listExchanges({})).find((e) => e.prompt.includes('tide chart on this screenshot'));
    assert.ok(last, 'the request after the screenshot is indexed');
    const e = (await store.getExchange(last.exchangeId))!;
    assert.match(e.verbatim, /formatHarbourTime/);
    const raw = await rawView({ ...e, ...(await store.recordRange(e.exchangeId))! });
    assert.ok(raw && / \[\d+\.\d MB more not read\]"/.test(raw.text) && raw.text.length < 1024 * 1024, 'the raw view shows the records with the screenshot cut short');

    // the same size in ordinary strings: nothing to cut, too large to read (not "being written")
    await writeFile(file, JSON.stringify([...messages, ...Array.from({ length: 34 * 1024 }, () => ({ role: 'user', content: 'w'.repeat(1024) }))]));
    const again = await indexSources(store, sources, segment);
    assert.equal(again.failed.length, 1);
    assert.match(again.failed[0]!.error, /has a line over 32 MB even with its long strings cut short: too large to read/);
  } finally {
    await store.close();
  }
});
