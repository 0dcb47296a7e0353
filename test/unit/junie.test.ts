import assert from 'node:assert/strict';
import { appendFile, cp, readFile, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { defaultJunieRoots } from '../../src/core/sources/agentRoots';
import { discoverSources } from '../../src/core/sources/discover';
import { junieAdapter } from '../../src/core/sources/junie';
import { splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';
import { watchesSubfolder } from '../../src/host/folderWatcher';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const HARBOUR = '/home/dev/harbour';
const ID = 'session-251118-093000-k3p9';

async function copyHome(): Promise<{ sessions: string; log: string }> {
  const sessions = path.join(tempDir('junie-'), '.junie', 'sessions');
  await cp(path.join(FIXTURES, 'junie', '.junie', 'sessions'), sessions, { recursive: true });
  return { sessions, log: path.join(sessions, ID, 'events.jsonl') };
}

test("Junie: the person's prompt as typed; blocks folded by step (the last update wins, in the step's place); files viewed with lines and changed; a dropped prompt left out; unknown events counted", async () => {
  const { log } = await copyHome();
  const out = junieAdapter.parse({ file: log, lines: splitLines(await readFile(log), 0, 1, { holdBackPartial: true }).lines });
  assert.deepEqual(out.skipped, [{ line: 17, reason: 'unknown-record' }, { line: 19, reason: 'unknown-record' }]);
  const [conv] = out.conversations;
  assert.deepEqual(conv!.meta, {
    agent: 'junie', sessionId: ID, line: 1, isSubagent: false, title: 'Hide decommissioned gauges', startedAt: '2025-11-18T09:30:01.000Z', model: 'claude-sonnet-4-5',
  });
  assert.deepEqual(conv!.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`), [
    'prompt 2-2', 'reply 5-5', 'reply 6-12', 'reply 7-7', 'reply 8-9', 'tool-results 8-9', 'reply 10-11', 'prompt 16-16', 'reply 18-18',
  ], 'the dropped prompt at 14 is not the conversation; the half-written last line waits');
  const [prompt, view, said, changed, terminal, output, result] = conv!.messages;
  assert.equal(prompt!.text, 'The gauge list still shows stations that were decommissioned last year; hide them in listGauges.', 'not what Junie added to it');
  assert.deepEqual(view!.touched, [{ path: `${HARBOUR}/src/gauges/list.ts`, how: 'read', lines: [{ start: 1, end: 60 }] }]);
  assert.match(said!.text, /^listGauges never reads decommissioned_at/);
  assert.deepEqual(changed!.touched, [{ path: `${HARBOUR}/src/gauges/list.ts`, how: 'edit' }, { path: `${HARBOUR}/test/gauges/list.test.ts`, how: 'write' }]);
  assert.deepEqual(terminal!.toolCalls, [{ id: 'step-4', name: 'terminal', input: { command: 'npm test -- gauges' } }]);
  assert.deepEqual(output!.toolResults, [{ toolUseId: 'step-4', text: 'PASS test/gauges/list.test.ts\n  hides decommissioned gauges', isError: false }]);
  assert.equal(terminal!.timestamp, '2025-11-18T09:30:07.000Z', 'a step is dated by its first update');
  assert.match(result!.text, /^listGauges now filters out rows/, 'the answer without its marker; the draft replaced');
});

test("Junie: found by layout (its task folders not walked), tied to its project by sessions/index.jsonl; files touched; an appended prompt read from the last exchange; JUNIE_HOME", async () => {
  const { sessions, log } = await copyHome();
  const found = await discoverSources({ workspaceRoots: [HARBOUR], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [sessions], includeSubagents: true });
  assert.deepEqual(found.map((s) => [s.path, s.adapter.agent, s.project]), [[log, 'junie', HARBOUR]]);
  const store = await Store.open(path.join(tempDir('junie-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]), [[2, 12, '2025-11-18T09:30:01.000Z', 'message'], [16, 18, '2025-11-18T09:32:00.000Z', 'message']]);
    assert.deepEqual((await store.getExchange(rows[0]!.exchangeId))!.filesTouched, [{ path: 'src/gauges/list.ts', how: 'edit' }, { path: 'test/gauges/list.test.ts', how: 'write' }]);
    await appendFile(log, `mpt":"Run the whole test suite once more.","delivery":"Delivered"}
{"kind":"SessionA2uxEvent","timestampMs":1763459010000,"event":{"state":"COMPLETED","agentEvent":{"kind":"ResultBlockUpdatedEvent","stepId":"step-8","result":"<!-- ANSWER -->The whole suite passes: 214 tests, including the two new gauge list cases."}}}
`);
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    assert.deepEqual((await store.listExchanges()).map((e) => [e.lineStart, e.lineEnd]), [[2, 12], [16, 18], [20, 21]]);
  } finally {
    await store.close();
  }
  assert.equal(watchesSubfolder(path.join(sessions, ID), ['events.jsonl', 'task-251118-093001-a1b2'], 'task-251118-093001-a1b2'), false);
  assert.deepEqual(defaultJunieRoots({}), [path.join(os.homedir(), '.junie', 'sessions')]);
  assert.deepEqual(defaultJunieRoots({ JUNIE_HOME: '/j' }), [path.join('/j', 'sessions')]);
});

test('Junie: a session indexed before sessions/index.jsonl named its project is read whole again once it does, its first exchange tied to the project too', async () => {
  const { sessions, log } = await copyHome();
  const index = path.join(sessions, 'index.jsonl');
  const named = await readFile(index, 'utf8');
  await writeFile(index, '');
  const store = await Store.open(path.join(tempDir('junie-store-'), 's.sqlite'));
  const root = { workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [sessions], includeSubagents: true };
  try {
    assert.deepEqual((await indexSources(store, await discoverSources(root), segment)).failed, []);
    const first = async (): Promise<unknown> => (await store.getExchange((await store.listExchanges())[0]!.exchangeId))!.filesTouched;
    assert.deepEqual(await first(), [{ path: `${HARBOUR}/src/gauges/list.ts`, how: 'edit' }, { path: `${HARBOUR}/test/gauges/list.test.ts`, how: 'write' }], 'no project yet: absolute paths');
    await writeFile(index, named);
    await appendFile(log, 'mpt":"Run the whole test suite once more.","delivery":"Delivered"}\n');
    const found = await discoverSources(root);
    assert.equal(found[0]!.project, HARBOUR);
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    assert.deepEqual(await first(), [{ path: 'src/gauges/list.ts', how: 'edit' }, { path: 'test/gauges/list.test.ts', how: 'write' }]);
  } finally {
    await store.close();
  }
});
