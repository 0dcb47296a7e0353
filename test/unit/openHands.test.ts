import assert from 'node:assert/strict';
import { cp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { rawView } from '../../src/core/rawView';
import { defaultOpenHandsRoots } from '../../src/core/sources/agentRoots';
import { discoverSources } from '../../src/core/sources/discover';
import { openHandsAdapter } from '../../src/core/sources/openHands';
import { Store } from '../../src/core/store/store';
import { watchesSubfolder } from '../../src/host/folderWatcher';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const ID = '3f9c2a7e-5b1d-4c8e-9a0b-6d2f4e8c1a5b';
const HEX = '3f9c2a7e5b1d4c8e9a0b6d2f4e8c1a5b';
const HARBOUR = '/home/dev/harbour';

async function copyFixture(): Promise<{ root: string; state: string }> {
  const root = path.join(tempDir('openhands-'), '.openhands');
  await cp(path.join(FIXTURES, 'openhands'), root, { recursive: true });
  return { root, state: path.join(root, 'conversations', HEX, 'base_state.json') };
}

test('OpenHands: a conversation folder (state and event files in index order): prompts, the calls of one response as one reply, results, errors; bookkeeping silent, an unknown and a half-written event counted', async () => {
  const { state } = await copyFixture();
  const out = openHandsAdapter.parse({ file: state, lines: await openHandsAdapter.readRecords!(state) });
  assert.deepEqual(out.skipped, [{ line: 16, reason: 'unknown-record' }, { line: 17, reason: 'malformed-json' }]);
  const [conv] = out.conversations;
  assert.deepEqual(conv!.meta, {
    agent: 'openhands', sessionId: ID, line: 1, isSubagent: false, project: HARBOUR, startedAt: '2025-11-12T10:00:07.123463', model: 'litellm_proxy/claude-sonnet-4-5-20250929',
  }, "the state's id, working_dir and model; dated by its first event as written (local time, no zone)");
  assert.deepEqual(conv!.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`), [
    'prompt 3-3', 'context 3-3', 'reply 4-4', 'tool-results 5-5', 'reply 6-7', 'tool-results 8-9', 'reply 10-10', 'prompt 12-12', 'reply 13-13', 'tool-results 14-14', 'reply 15-15',
  ], 'positions in the conversation (1 is the state)');
  const [prompt, added, read, , edit, results, , , create, failed] = conv!.messages;
  assert.match(prompt!.text, /^The tide table in src\/tides\/table\.ts prints heights with three decimals/);
  assert.match(added!.text, /^<REPOSITORY_INSTRUCTIONS>/, "the agent's context added to the prompt is not the human's words");
  assert.equal(read!.text, 'Let me look at the table formatter first.');
  assert.deepEqual(read!.touched, [{ path: `${HARBOUR}/src/tides/table.ts`, how: 'read', lines: [{ start: 1, end: 40 }] }]);
  assert.deepEqual(edit!.toolCalls.map((c) => [c.id, c.name]), [['toolu_02', 'file_editor'], ['toolu_03', 'terminal']], 'two calls of one model response');
  assert.deepEqual(edit!.toolCalls[1]!.input, { command: 'npm test -- tides', is_input: false }, 'the action as the tool received it');
  assert.deepEqual(results!.toolResults.map((r) => [r.toolUseId, r.isError]), [['toolu_02', false], ['toolu_03', false]]);
  assert.deepEqual(create!.touched, [{ path: `${HARBOUR}/src/tides/heightClass.ts`, how: 'write' }]);
  assert.deepEqual(failed!.toolResults.map((r) => [r.toolUseId, r.isError]), [['toolu_04', true]], "the agent's error answers the call");
  assert.match(failed!.toolResults[0]!.text, /^File already exists/);
});

test("OpenHands: discovered by its layout under a root (not its event files), kept by the state's working_dir; a new event file is read on the next run; open raw at the exchange's events", async () => {
  const { root, state } = await copyFixture();
  const found = await discoverSources({ workspaceRoots: [HARBOUR], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [root], includeSubagents: true });
  assert.deepEqual(found.map((s) => [s.path, s.adapter.agent, s.project]), [[state, 'openhands', HARBOUR]], 'its events, TASKS.json and the files below events/ are not sources');
  assert.deepEqual(await discoverSources({ workspaceRoots: ['/home/dev/gauges'], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [root], includeSubagents: true }), []);
  const store = await Store.open(path.join(tempDir('openhands-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]), [
      [3, 10, '2025-11-12T10:00:07.123463', 'message'], [12, 15, '2025-11-12T10:01:10.123526', 'message'],
    ]);
    const files = await Promise.all(rows.map(async (e) => (await store.getExchange(e.exchangeId))!.filesTouched));
    assert.deepEqual(files, [[{ path: 'src/tides/table.ts', how: 'edit' }], [{ path: 'src/tides/heightClass.ts', how: 'write' }]], "the file editor's commands: view reads, str_replace edits, create writes");

    // the half-written event is finished, and the agent answers a third prompt
    const events = path.join(path.dirname(state), 'events');
    const at = '2025-11-12T10:02:00.000001';
    await writeFile(path.join(events, 'event-00015-6b1e0015-2c3d-4e5f-8a9b-0c1d2e3f4a5b.json'), JSON.stringify({ id: '6b1e0015-2c3d-4e5f-8a9b-0c1d2e3f4a5b', timestamp: at, kind: 'MessageEvent', source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text: 'Does the CSV export still print three decimals, or did it change with the table?' }] } }));
    await writeFile(path.join(events, 'event-00016-6b1e0016-2c3d-4e5f-8a9b-0c1d2e3f4a5b.json'), JSON.stringify({ id: '6b1e0016-2c3d-4e5f-8a9b-0c1d2e3f4a5b', timestamp: at, kind: 'MessageEvent', source: 'agent',
      llm_message: { role: 'assistant', content: [{ type: 'text', text: 'The CSV export has its own formatter in src/tides/csv.ts and still writes three decimals without a unit; only the table changed.' }] } }));
    const again = await indexSources(store, found, segment);
    assert.deepEqual([again.failed, again.parsed], [[], 1]);
    assert.equal((await store.listExchanges()).length, 3);

    const view = (await rawView({ agent: 'openhands', file: state, sessionId: ID, lineStart: 12, lineEnd: 15, byteStart: 0 }))!;
    const chosen = view.text.split('\n').slice(view.lineStart - 1, view.lineEnd).join('\n');
    assert.match(view.text.split('\n')[0]!, /^\/\/ OpenHands conversation 3f9c2a7e-.*its state and its events/);
    assert.match(chosen, /below chart datum[\s\S]*File already exists[\s\S]*height--below-datum/);
    assert.ok(!chosen.includes('three decimals;'), 'not the first exchange');
    await rm(path.dirname(state), { recursive: true });
    await assert.rejects(rawView({ agent: 'openhands', file: state, sessionId: ID, lineStart: 12, lineEnd: 15, byteStart: 0 }), /no longer in/);
  } finally {
    await store.close();
  }
});

test("OpenHands: the live watcher watches a conversation's events/ only; its folder per the CLI's environment variables", () => {
  assert.equal(watchesSubfolder('/x/conversations/abc', ['base_state.json', 'events', 'TASKS.json'], 'events'), true);
  assert.equal(watchesSubfolder('/x/conversations/abc', ['base_state.json', 'events', 'workspace'], 'workspace'), false);
  assert.deepEqual(defaultOpenHandsRoots({}), [path.join(os.homedir(), '.openhands', 'conversations')]);
  assert.deepEqual(defaultOpenHandsRoots({ OPENHANDS_PERSISTENCE_DIR: '/p' }), [path.join('/p', 'conversations')]);
  assert.deepEqual(defaultOpenHandsRoots({ OPENHANDS_PERSISTENCE_DIR: '/p', OPENHANDS_CONVERSATIONS_DIR: '/c' }), ['/c']);
});
