import assert from 'node:assert/strict';
import { copyFile, cp, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import { clineAdapter } from '../../src/core/sources/cline';
import { sideTouches } from '../../src/core/sources/clineSide';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20, workspaceRoot: '/home/dev/tidepool' };
const TASK = path.join(FIXTURES, 'cline-side', 'saoudrizwan.claude-dev', 'tasks', '1762084800000');

async function filesOfExchanges(taskDir: string): Promise<unknown[]> {
  const store = await Store.open(path.join(tempDir('cline-side-'), 's.sqlite'));
  try {
    await indexSource(store, path.join(taskDir, 'api_conversation_history.json'), clineAdapter, segment, '/home/dev/tidepool');
    const list = await store.listExchanges({});
    const out: unknown[] = [];
    for (const e of list) out.push((await store.getExchange(e.exchangeId))!.filesTouched);
    return out;
  } finally {
    await store.close();
  }
}

test('Cline side files: tool messages of ui_messages.json and files_in_context of task_metadata.json are the files touched, each on its exchange', async () => {
  // the history writes its tools as XML in the reply text (older Cline): without the side files nothing is touched
  assert.deepEqual(await filesOfExchanges(TASK), [
    [{ path: 'src/chart.ts', how: 'edit' }],
    // newFileCreated (ui) outranks cline_edited (metadata); the @-mention is a mention; user_edited README.md is
    // the human's, a partial tool message and a folder listing are not files touched
    [{ path: 'src/legend.ts', how: 'write' }, { path: 'src/tides.ts', how: 'mention' }],
  ]);
});

test('Cline side files missing: the history alone (no files from XML tool text that names no file on disk)', async () => {
  const dir = path.join(tempDir('cline-side-'), '1762084800000');
  await cp(TASK, dir, { recursive: true });
  await rm(path.join(dir, 'ui_messages.json'));
  await rm(path.join(dir, 'task_metadata.json'));
  assert.deepEqual(await filesOfExchanges(dir), [[], []]);
});

test('Cline side files written after the history: the next run reads the task again and gains their files touched', async () => {
  const dir = path.join(tempDir('cline-side-'), '1762084800000');
  await cp(TASK, dir, { recursive: true });
  const held = tempDir('cline-side-held-');
  for (const name of ['ui_messages.json', 'task_metadata.json']) await rename(path.join(dir, name), path.join(held, name));
  const history = path.join(dir, 'api_conversation_history.json');
  const store = await Store.open(path.join(tempDir('cline-side-'), 's.sqlite'));
  const files = async (): Promise<unknown[]> => Promise.all((await store.listExchanges({})).map(async (e) => (await store.getExchange(e.exchangeId))!.filesTouched));
  const run = (): ReturnType<typeof indexSource> => indexSource(store, history, clineAdapter, segment, '/home/dev/tidepool');
  try {
    assert.notEqual(await run(), 'unchanged');
    assert.deepEqual(await files(), [[], []]);
    // Cline rewrites its side files as the task runs; the history file is untouched
    await copyFile(path.join(held, 'ui_messages.json'), path.join(dir, 'ui_messages.json'));
    assert.notEqual(await run(), 'unchanged', 'a new ui_messages.json is a change of the task');
    assert.deepEqual(await files(), [[{ path: 'src/chart.ts', how: 'edit' }], [{ path: 'src/legend.ts', how: 'write' }]]);
    await copyFile(path.join(held, 'task_metadata.json'), path.join(dir, 'task_metadata.json'));
    assert.notEqual(await run(), 'unchanged', 'a new task_metadata.json is a change of the task');
    assert.deepEqual(await files(), [[{ path: 'src/chart.ts', how: 'edit' }], [{ path: 'src/legend.ts', how: 'write' }, { path: 'src/tides.ts', how: 'mention' }]]);
    assert.equal(await run(), 'unchanged', 'nothing changed since');
  } finally {
    await store.close();
  }
});

test("Roo Code side files: no history index in the UI messages, the history records' own times place each touch", () => {
  const T = 1762088400000;
  const records = [
    { role: 'user', ts: T, content: 'a' },
    { role: 'assistant', ts: T + 4000, content: 'b' },
    { role: 'user', ts: T + 6000, content: 'c' },
    { role: 'assistant', ts: T + 9000, content: 'd' },
  ];
  const side = new Map([
    ['ui_messages.json', JSON.stringify([
      { ts: T + 3000, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'readFile', path: 'src/gauge.ts' }) },
      { ts: T + 8000, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'appliedDiff', path: 'src/gauge.ts' }) },
      { ts: T + 8500, type: 'say', say: 'tool', text: 'not json' },
    ])],
    ['task_metadata.json', JSON.stringify({ files_in_context: [
      { path: 'src/units.ts', record_source: 'roo_edited', roo_read_date: null, roo_edit_date: T + 8200 },
      { path: 'src/late.ts', record_source: 'read_tool', roo_read_date: T + 99000 },
      { path: 'src/undated.ts', record_source: 'read_tool' },
    ] })],
  ]);
  assert.deepEqual([...sideTouches(side, records)].sort(([a], [b]) => a - b), [
    [1, [{ path: 'src/gauge.ts', how: 'read' }]],
    // an event after the last record's time is the last record's (its turn is still being written)
    [3, [{ path: 'src/gauge.ts', how: 'edit' }, { path: 'src/units.ts', how: 'edit' }, { path: 'src/late.ts', how: 'read' }]],
  ]);
  assert.deepEqual(sideTouches(new Map([['ui_messages.json', '[{"ts":1,'], ['task_metadata.json', '{']]), records).size, 0, 'half-written side files add nothing');
});
