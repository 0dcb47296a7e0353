import assert from 'node:assert/strict';
import { appendFile, cp, readFile, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import { sideFileNames } from '../../src/core/sources/adapter';
import { defaultAntigravityRoots } from '../../src/core/sources/agentRoots';
import { antigravityAdapter } from '../../src/core/sources/antigravity';
import { discoverSources } from '../../src/core/sources/discover';
import { splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const HARBOUR = '/home/dev/harbour';
const A = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const B = 'ad2e3f40-5b6c-4d7e-9f80-1b2c3d4e5f60';
const C = 'be3f4051-6c7d-4e8f-a091-2c3d4e5f6071';

async function copyGemini(): Promise<string> {
  const gemini = path.join(tempDir('antigravity-'), '.gemini');
  await cp(path.join(FIXTURES, 'antigravity', '.gemini'), gemini, { recursive: true });
  return gemini;
}
const log = (gemini: string, root: string, id: string): string => path.join(gemini, root, 'brain', id, '.system_generated', 'logs', 'transcript.jsonl');

async function sideOf(file: string): Promise<Map<string, string>> {
  const side = new Map<string, string>();
  for (const name of sideFileNames(antigravityAdapter, file) ?? []) {
    const text = await readFile(path.join(path.dirname(file), name), 'utf8').catch(() => undefined);
    if (text !== undefined) side.set(name, text);
  }
  return side;
}

test("Antigravity: the text log's steps: the request without its wrapper (its cwd the project), prose as replies, tool steps as calls and outputs with the file they name; the notes beside it as context; unknown sources counted", async () => {
  const file = log(await copyGemini(), 'antigravity', A);
  const out = antigravityAdapter.parse({ file, lines: splitLines(await readFile(file), 0, 1, { holdBackPartial: true }).lines, side: await sideOf(file) });
  assert.deepEqual(out.skipped, [{ line: 9, reason: 'unknown-record' }], 'a source of a later version; SYSTEM steps are silent');
  const [conv] = out.conversations;
  assert.deepEqual(conv!.meta, { agent: 'antigravity', sessionId: A, line: 1, isSubagent: false, project: HARBOUR, startedAt: '2025-11-16T14:00:00Z' });
  assert.deepEqual(conv!.messages.map((m) => `${m.kind} ${m.line}`), [
    'prompt 1', 'reply 3', 'reply 4', 'tool-results 4', 'reply 5', 'tool-results 5', 'reply 6', 'tool-results 6', 'reply 7', 'reply 8', 'prompt 10', 'reply 11', 'context 11', 'context 11',
  ], 'the half-written last step waits');
  const [prompt, , view, viewed, edit, , run] = conv!.messages;
  assert.equal(prompt!.text, 'The tide alerts fire twice when two gauges report the same high water; deduplicate them by gauge and hour.');
  assert.deepEqual(view!.toolCalls, [{ id: `${A}#3`, name: 'VIEW_FILE', input: { path: `${HARBOUR}/src/alerts/tideAlerts.ts` } }]);
  assert.deepEqual(view!.touched, [{ path: `${HARBOUR}/src/alerts/tideAlerts.ts`, how: 'read' }]);
  assert.match(viewed!.toolResults[0]!.text, /^File Path: .*\nTotal Lines: 88\nexport function buildAlerts/, 'the output without its timestamps');
  assert.deepEqual(edit!.touched, [{ path: `${HARBOUR}/src/alerts/tideAlerts.ts`, how: 'edit' }]);
  assert.deepEqual(run!.toolCalls[0]!.input, { command: 'npm test -- alerts' });
  assert.match(conv!.messages[12]!.text, /^task\.md\n\n# Deduplicate tide alerts/);
  assert.match(conv!.messages[13]!.text, /^walkthrough\.md\n\n# Walkthrough/);
});

test('Antigravity: found by layout under both folders (not its protobuf files); a conversation without a cwd by the IDE\'s or the CLI\'s cache; a grown log read from its last exchange; a changed note read again', async () => {
  const gemini = await copyGemini();
  const found = await discoverSources({ workspaceRoots: [HARBOUR], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [gemini], includeSubagents: true });
  assert.deepEqual(found.map((s) => [path.relative(gemini, s.path), s.adapter.agent, s.project]), [
    [path.relative(gemini, log(gemini, 'antigravity-cli', C)), 'antigravity', HARBOUR],
    [path.relative(gemini, log(gemini, 'antigravity', A)), 'antigravity', HARBOUR],
    [path.relative(gemini, log(gemini, 'antigravity', B)), 'antigravity', HARBOUR],
  ]);
  const store = await Store.open(path.join(tempDir('antigravity-store-'), 's.sqlite'));
  try {
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    const ofA = async (): Promise<Array<[number, number, string | undefined]>> =>
      (await store.listExchanges()).filter((e) => e.sessionId === A).map((e) => [e.lineStart, e.lineEnd, e.startedAt]);
    assert.deepEqual(await ofA(), [[1, 8, '2025-11-16T14:00:00Z'], [10, 11, '2025-11-16T14:05:00Z']]);
    const first = (await store.listExchanges()).find((e) => e.sessionId === A)!;
    assert.deepEqual((await store.getExchange(first.exchangeId))!.filesTouched, [{ path: 'src/alerts/tideAlerts.ts', how: 'edit' }]);

    const file = log(gemini, 'antigravity', A);
    await appendFile(file, ` now keeps the higher reading."}
{"step_index":12,"source":"USER_EXPLICIT","created_at":"2025-11-16T14:10:00Z","content":"<USER_REQUEST>Add a test where two gauges disagree by 3 cm at the same hour.</USER_REQUEST>"}
{"step_index":13,"source":"MODEL","type":"PLANNER_RESPONSE","created_at":"2025-11-16T14:10:40Z","content":"Added a case to test/alerts/tideAlerts.test.ts: gauges at 4.12 m and 4.15 m in the same hour raise one alert, for 4.15 m."}
`);
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    assert.deepEqual(await ofA(), [[1, 8, '2025-11-16T14:00:00Z'], [10, 12, '2025-11-16T14:05:00Z'], [13, 14, '2025-11-16T14:10:00Z']]);
    const last = async (): Promise<string> => (await store.getExchange((await store.listExchanges()).filter((e) => e.sessionId === A).pop()!.exchangeId))!.verbatim;
    assert.match(await last(), /Keep the higher reading/, 'the notes are with the last exchange');

    await writeFile(path.join(path.dirname(file), '..', '..', 'task.md'), '# Deduplicate tide alerts\n\n- [x] Test two gauges that disagree by 3 cm\n');
    await rm(path.join(path.dirname(file), '..', '..', 'walkthrough.md'));
    assert.deepEqual((await indexSources(store, found, segment)).failed, []);
    assert.match(await last(), /disagree by 3 cm/);
    assert.ok(!(await last()).includes('# Walkthrough'), 'a note removed is gone from the memory too');
  } finally {
    await store.close();
  }
});

test("Antigravity's folders, under the home folder", () => {
  const home = os.homedir();
  assert.deepEqual(defaultAntigravityRoots(), [path.join(home, '.gemini', 'antigravity', 'brain'), path.join(home, '.gemini', 'antigravity-cli', 'brain')]);
});
