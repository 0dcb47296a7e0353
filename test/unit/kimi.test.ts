import assert from 'node:assert/strict';
import { appendFile, cp, readFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { defaultKimiRoots } from '../../src/core/sources/agentRoots';
import { discoverSources } from '../../src/core/sources/discover';
import { kimiAdapter } from '../../src/core/sources/kimi';
import { splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';
import { watchesSubfolder } from '../../src/host/folderWatcher';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const HARBOUR = '/home/dev/harbour';
const S1 = 'session_7d2e9f40-1a3b-4c5d-8e6f-0a1b2c3d4e5f';
const S2 = 'session_8e3fa051-2b4c-4d6e-9f70-1b2c3d4e5f60';
const WD = 'wd_harbour_0a1b2c3d4e5f';

async function copyHome(): Promise<string> {
  const home = path.join(tempDir('kimi-'), '.kimi-code');
  await cp(path.join(FIXTURES, 'kimi', '.kimi-code'), home, { recursive: true });
  return home;
}
const wire = (home: string, session: string, agent = 'main'): string => path.join(home, 'sessions', WD, session, 'agents', agent, 'wire.jsonl');

test("Kimi Code: the main agent's wire log: prompts from the context (turn.prompt is their echo), a streamed reply joined from its parts, tool calls and results; injected text is context; a half-written last line waits", async () => {
  const file = wire(await copyHome(), S1);
  const side = new Map([[path.join('..', '..', 'state.json'), await readFile(path.join(path.dirname(file), '..', '..', 'state.json'), 'utf8')]]);
  const out = kimiAdapter.parse({ file, lines: splitLines(await readFile(file), 0, 1, { holdBackPartial: true }).lines, side });
  assert.deepEqual(out.skipped, [{ line: 29, reason: 'unknown-record' }], 'a record type of a later version');
  const [conv] = out.conversations;
  assert.deepEqual(conv!.meta, {
    agent: 'kimi', sessionId: S1, line: 1, isSubagent: false, project: HARBOUR, title: 'Chart gaps for null heights', startedAt: '2025-11-14T08:30:00.000Z', model: 'kimi-code/kimi-for-coding',
  });
  assert.deepEqual(conv!.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`), [
    'prompt 5-5', 'reply 6-10', 'tool-results 12-12', 'reply 13-15', 'tool-results 16-17', 'reply 19-20', 'context 23-23',
    'prompt 25-25', 'reply 26-27', 'tool-results 28-28', 'reply 30-31',
  ]);
  const [prompt, read, , edit, results] = conv!.messages;
  assert.equal(prompt!.timestamp, '2025-11-14T08:30:01.001Z');
  assert.equal(read!.text, 'Let me read the chart module.', 'the text parts joined, the thinking left out');
  assert.deepEqual(read!.toolCalls, [{ id: 'Read:0', name: 'Read', input: { path: `${HARBOUR}/src/tides/chart.ts`, line_offset: 10, n_lines: 30 }, lines: [{ start: 10, end: 39 }] }]);
  assert.deepEqual(edit!.toolCalls.map((c) => [c.name, c.input]), [
    ['Edit', { path: `${HARBOUR}/src/tides/chart.ts`, old_string: 'y: x.metres ?? 0', new_string: 'y: x.metres' }], ['Bash', { command: 'npm test -- chart' }],
  ], 'arguments as an object or a JSON string');
  assert.deepEqual(results!.toolResults, [
    { toolUseId: 'Edit:1', text: `Replaced 1 occurrence in ${HARBOUR}/src/tides/chart.ts`, isError: false },
    { toolUseId: 'Bash:2', text: '1 failing: expected gap, got 0', isError: true },
  ]);
});

test('Kimi Code: discovered by layout (main and sub-agent logs, not the session\'s tasks), its folder from the log, else from session_index.jsonl; dated by the records; files with lines; an appended line read from the last exchange', async () => {
  const home = await copyHome();
  const found = await discoverSources({ workspaceRoots: [HARBOUR], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [home], includeSubagents: true });
  assert.deepEqual(found.map((s) => [path.relative(home, s.path), s.adapter.agent, s.project]), [
    [path.relative(home, wire(home, S1, 'agent-0')), 'kimi', HARBOUR],
    [path.relative(home, wire(home, S1)), 'kimi', HARBOUR],
    [path.relative(home, wire(home, S2)), 'kimi', HARBOUR],
  ]);
  const withoutSubagents = await discoverSources({ workspaceRoots: [HARBOUR], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [home], includeSubagents: false });
  assert.equal(withoutSubagents.length, 2);
  const store = await Store.open(path.join(tempDir('kimi-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.sessionId, e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]).sort((a, b) => String(a[3]).localeCompare(String(b[3]))), [
      [S2, 2, 4, '2025-11-13T16:00:05.000Z', 'message'],
      [S1, 5, 23, '2025-11-14T08:30:01.001Z', 'message'],
      [`${S1}/agent-0`, 3, 5, '2025-11-14T08:30:02.052Z', 'message'],
      [S1, 25, 31, '2025-11-14T08:31:00.001Z', 'message'],
    ]);
    const sub = rows.find((e) => e.sessionId === `${S1}/agent-0`)!;
    assert.equal((await store.getExchange(sub.exchangeId))!.isSubagent, true, "a sub-agent's log is its session's child");
    const main = rows.filter((e) => e.sessionId === S1);
    const files = await Promise.all(main.map(async (e) => (await store.getExchange(e.exchangeId))!.filesTouched));
    assert.deepEqual(files, [[{ path: 'src/tides/chart.ts', how: 'edit' }], [{ path: 'test/tides/chart.test.ts', how: 'write' }]]);

    // the half-written prompt is finished and answered
    await appendFile(wire(home, S1), `xt","text":"And does the sparkline use the same points, so it gets the gap too?"}],"toolCalls":[],"origin":{"kind":"user"}},"time":1763109120000}
{"type":"context.append_loop_event","event":{"type":"step.begin","uuid":"step-6","turnId":"2","step":1},"time":1763109121000}
{"type":"context.append_loop_event","event":{"type":"content.part","uuid":"part-6","turnId":"2","step":1,"stepUuid":"step-6","part":{"type":"text","text":"Yes: the sparkline calls toChartPoints too, so its line now breaks at a null height as the chart does."}},"time":1763109122000}
`);
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    assert.deepEqual((await store.listExchanges()).filter((e) => e.sessionId === S1).map((e) => [e.lineStart, e.lineEnd]), [[5, 23], [25, 31], [33, 35]]);
  } finally {
    await store.close();
  }
});

test("Kimi Code: a session folder's agents/ only is watched; its home per KIMI_CODE_HOME", () => {
  assert.equal(watchesSubfolder('/x/sessions/wd/s', ['state.json', 'agents', 'tasks', 'logs'], 'agents'), true);
  assert.equal(watchesSubfolder('/x/sessions/wd/s', ['state.json', 'agents', 'tasks', 'logs'], 'tasks'), false);
  assert.deepEqual(defaultKimiRoots({}), [path.join(os.homedir(), '.kimi-code', 'sessions')]);
  assert.deepEqual(defaultKimiRoots({ KIMI_CODE_HOME: '/k' }), [path.join('/k', 'sessions')]);
});
