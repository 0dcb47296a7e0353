import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import { codexAdapter } from '../../src/core/sources/codex';
import { type DiscoverOptions, discoverSources } from '../../src/core/sources/discover';
import { factoryDroidAdapter } from '../../src/core/sources/factory';
import { splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const LARDER = '/home/dev/larder';
const ID = 'a3c1f7e2-5b9d-4e60-8f21-7d4c2b9e6a10';
const REMINDER = '<system-reminder>\nCurrent folder: /home/dev/larder\nCurrent branch: main\n</system-reminder>';

const at = (s: number): string => new Date(Date.UTC(2026, 2, 3, 9, 0, s)).toISOString();
const msg = (id: string, s: number, role: string, content: unknown): string => JSON.stringify({ type: 'message', id, timestamp: at(s), parentId: null, message: { role, content } });

/** A Droid session: its start, a prompt with Droid's reminder, Read (offset from 0) / Edit / Create / Execute calls and results, its todo list. */
const LINES = [
  JSON.stringify({ type: 'session_start', id: ID, title: 'Shelf life per category', owner: 'dev', cwd: LARDER, version: 2 }),
  msg('u1', 0, 'user', [{ type: 'text', text: REMINDER }, { type: 'text', text: 'Give each pantry category its own shelf life in src/pantry/shelfLife.ts instead of the single 7-day default.' }]),
  msg('a1', 4, 'assistant', [{ type: 'thinking', thinking: 'Find the default first.', signature: 's' }, { type: 'text', text: 'Reading the current default.' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: `${LARDER}/src/pantry/shelfLife.ts`, offset: 0, limit: 40 } }]),
  msg('u2', 5, 'user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1\texport const SHELF_LIFE_DAYS = 7;' }]),
  JSON.stringify({ type: 'todo_state', todos: [{ id: '1', content: 'Per-category shelf life', status: 'in_progress' }] }),
  msg('a2', 8, 'assistant', [
    { type: 'tool_use', id: 'toolu_2', name: 'Edit', input: { file_path: `${LARDER}/src/pantry/shelfLife.ts`, old_str: 'export const SHELF_LIFE_DAYS = 7;', new_str: 'export const SHELF_LIFE_DAYS = { dairy: 7, tins: 730 };' } },
    { type: 'tool_use', id: 'toolu_3', name: 'Create', input: { file_path: `${LARDER}/src/pantry/categories.ts`, content: "export type Category = 'dairy' | 'tins';\n" } },
  ]),
  msg('u3', 9, 'user', [
    { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'Edited src/pantry/shelfLife.ts' }] },
    { type: 'tool_result', tool_use_id: 'toolu_3', content: 'EEXIST: src/pantry/categories.ts', is_error: true },
  ]),
  msg('a3', 12, 'assistant', [{ type: 'text', text: 'SHELF_LIFE_DAYS is now a map by category: dairy keeps 7 days and tins 730; categories.ts already existed, so I left it.' }]),
  JSON.stringify({ type: 'session_metrics', tokens: 3 }),
  msg('u4', 60, 'user', 'Run the pantry tests.'),
  msg('a4', 63, 'assistant', [{ type: 'tool_use', id: 'toolu_4', name: 'Execute', input: { command: 'npm test -- src/pantry/shelfLife.test.ts', riskLevel: { value: 'low', reason: 'runs tests' } } }]),
  msg('u5', 70, 'user', [{ type: 'tool_result', tool_use_id: 'toolu_4', content: 'PASS src/pantry/shelfLife.test.ts (4 tests)' }]),
  msg('a5', 72, 'assistant', [{ type: 'text', text: 'All four shelf-life tests pass with the per-category map, including the tins case at 730 days.' }]),
];

async function session(dir: string, lines = LINES, settings: unknown = { model: 'claude-opus-4-5-20251101', reasoningEffort: 'medium', tokenUsage: { inputTokens: 1200 } }): Promise<string> {
  const file = path.join(dir, '.factory', 'sessions', '-home-dev-larder', `${ID}.jsonl`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${lines.join('\n')}\n`);
  if (settings !== undefined) await writeFile(path.join(path.dirname(file), `${ID}.settings.json`), JSON.stringify(settings));
  return file;
}

const parseFile = async (file: string, side?: ReadonlyMap<string, string>): Promise<ReturnType<typeof factoryDroidAdapter.parse>> => {
  const lines = splitLines(await readFile(file), 0, 1, { holdBackPartial: true }).lines;
  return factoryDroidAdapter.parse({ file, lines, ...(side ? { side } : {}) });
};

const discover = (roots: Partial<DiscoverOptions>): ReturnType<typeof discoverSources> =>
  discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [], includeSubagents: true, ...roots });

test('Factory Droid: session_start then Anthropic-shaped messages; Droid\'s reminder is context; the model from the settings beside it; an unknown line counted', async () => {
  const file = await session(tempDir('droid-'));
  const out = await parseFile(file, new Map([[`${ID}.settings.json`, JSON.stringify({ model: 'claude-opus-4-5-20251101' })]]));
  assert.deepEqual(out.skipped, [{ line: 9, reason: 'unknown-record' }], 'a line type of a later version; the todo list is silent');
  const [conv] = out.conversations;
  assert.deepEqual(conv!.meta, {
    agent: 'factory-droid', sessionId: ID, line: 1, isSubagent: false, project: LARDER, title: 'Shelf life per category', startedAt: '2026-03-03T09:00:00.000Z', model: 'claude-opus-4-5-20251101',
  });
  assert.deepEqual(conv!.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd} ${m.uuid}`), [
    'context 2-2 u1#context', 'prompt 2-2 u1', 'reply 3-3 a1', 'tool-results 4-4 u2#results', 'reply 6-6 a2', 'tool-results 7-7 u3#results', 'reply 8-8 a3',
    'prompt 10-10 u4', 'reply 11-11 a4', 'tool-results 12-12 u5#results', 'reply 13-13 a5',
  ]);
  const [context, prompt, read] = conv!.messages;
  assert.equal(context!.text, REMINDER);
  assert.equal(prompt!.text, 'Give each pantry category its own shelf life in src/pantry/shelfLife.ts instead of the single 7-day default.');
  assert.equal(read!.text, 'Reading the current default.', 'thinking is not the reply');
  assert.deepEqual(read!.toolCalls[0]!.lines, [{ start: 1, end: 40 }], "Read's offset counts from 0");
  assert.deepEqual(conv!.messages[5]!.toolResults, [
    { toolUseId: 'toolu_2', text: 'Edited src/pantry/shelfLife.ts', isError: false },
    { toolUseId: 'toolu_3', text: 'EEXIST: src/pantry/categories.ts', isError: true },
  ]);
  assert.equal(conv!.messages[7]!.text, 'Run the pantry tests.', 'a string content is the text');
});

test('Factory Droid: a line that is not JSON (cut short, damaged) is counted where it stands and the session read past it', async () => {
  const damaged = [...LINES.slice(0, 8), '{"type":"message","id":"a9","message":{"role":"assis', ...LINES.slice(9)];
  const out = await parseFile(await session(tempDir('droid-'), damaged));
  assert.deepEqual(out.skipped, [{ line: 9, reason: 'malformed-json' }]);
  assert.deepEqual(out.conversations[0]!.messages.map((m) => m.uuid), ['u1#context', 'u1', 'a1', 'u2#results', 'a2', 'u3#results', 'a3', 'u4', 'a4', 'u5#results', 'a5']);
});

test('Factory Droid: exchanges dated by their messages, with the files Read (its lines), Edit and Create touched', async () => {
  const [conv] = (await parseFile(await session(tempDir('droid-')))).conversations;
  const { exchanges, dropped } = segmentConversation(conv!, { ...segment, workspaceRoot: LARDER });
  assert.deepEqual(dropped, []);
  assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.endedAt]), [
    [2, 8, '2026-03-03T09:00:00.000Z', '2026-03-03T09:00:12.000Z'],
    [10, 13, '2026-03-03T09:01:00.000Z', '2026-03-03T09:01:12.000Z'],
  ]);
  assert.deepEqual(exchanges[0]!.filesTouched, [
    { path: 'src/pantry/categories.ts', how: 'write' },
    { path: 'src/pantry/shelfLife.ts', how: 'edit' },
  ]);
  assert.deepEqual(exchanges[1]!.filesTouched, [{ path: 'src/pantry/shelfLife.test.ts', how: 'mention' }]);
});

test('Factory Droid: discovered by its layout (never taken for a Codex rollout), the project from session_start; a half-written line waits; a missing settings file costs only the model', async () => {
  const dir = tempDir('droid-');
  const file = await session(dir, LINES.slice(0, 9), undefined);
  await appendFile(file, LINES[9]!.slice(0, 25));
  assert.equal(codexAdapter.sniff(splitLines(Buffer.from(LINES.slice(2, 4).join('\n') + '\n'), 0, 1, { holdBackPartial: true }).lines), true, "Droid's lines would pass for Codex's");
  const found = await discover({ workspaceRoots: [LARDER], agentRoots: [path.join(dir, '.factory', 'sessions')] });
  assert.deepEqual(found.map((s) => [s.path, s.adapter, s.project]), [[file, factoryDroidAdapter, LARDER]]);
  const store = await Store.open(path.join(tempDir('droid-store-'), 's.sqlite'));
  try {
    await indexSource(store, file, factoryDroidAdapter, segment);
    const spans = async (): Promise<number[][]> => (await store.listExchanges()).map((e) => [e.lineStart, e.lineEnd]).sort((a, b) => a[0]! - b[0]!);
    assert.deepEqual(await spans(), [[2, 8]]);
    const exchange = (await store.getExchange((await store.listExchanges())[0]!.exchangeId))!;
    assert.equal(exchange.agent, 'factory-droid');
    await writeFile(file, `${LINES.join('\n')}\n`);
    await writeFile(path.join(path.dirname(file), `${ID}.settings.json`), JSON.stringify({ model: 'gpt-5-codex' }));
    await indexSource(store, file, factoryDroidAdapter, segment);
    assert.deepEqual(await spans(), [[2, 8], [10, 13]], 'the line finished, the session read on from its last exchange');
    assert.equal((await store.db.get<{ model: string }>('SELECT model FROM conversations'))?.model, 'gpt-5-codex', 'the settings file read when it appears');
  } finally {
    await store.close();
  }
});

test('Factory Droid: a session without a cwd belongs to the workspace folder its folder name spells; a copy under a named root is sniffed; a Task subagent\'s session is marked', async () => {
  const dir = tempDir('droid-');
  const noCwd = [JSON.stringify({ type: 'session_start', id: ID, title: '# Task Tool Invocation\nSubagent type: test-runner' }), ...LINES.slice(1)];
  const file = await session(dir, noCwd);
  const found = await discover({ workspaceRoots: [LARDER, '/home/dev/orchard'], agentRoots: [path.join(dir, '.factory', 'sessions')] });
  assert.deepEqual(found.map((s) => [s.path, s.project]), [[file, LARDER]]);
  assert.deepEqual(await discover({ workspaceRoots: ['/home/dev/larder-2'], agentRoots: [path.join(dir, '.factory', 'sessions')] }), [], 'a name is never decoded');
  const [conv] = (await parseFile(file)).conversations;
  assert.equal(conv!.meta.isSubagent, true);
  const copy = path.join(tempDir('droid-copy-'), 'exported.jsonl');
  await writeFile(copy, `${LINES.join('\n')}\n`);
  assert.deepEqual((await discover({ extraRoots: [path.dirname(copy)] })).map((s) => [s.adapter, s.project]), [[factoryDroidAdapter, LARDER]]);
});
