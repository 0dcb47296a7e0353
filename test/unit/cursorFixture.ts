import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Db } from '../../src/core/store/db';

/**
 * A Cursor user-data folder written the way Cursor writes it: `User/globalStorage/state.vscdb` in WAL mode
 * (checkpoints off, so the conversations live in the write-ahead log), its connection left open for the
 * test to keep writing through, and a workspace storage folder that names an older composer's workspace.
 */

export const COMPOSER_A = 'a1a1a1a1-0000-4000-8000-00000000000a';
export const COMPOSER_B = 'b2b2b2b2-0000-4000-8000-00000000000b';
export const COMPOSER_C = 'c3c3c3c3-0000-4000-8000-00000000000c';
export const COMPOSER_EMPTY = 'd4d4d4d4-0000-4000-8000-00000000000d';
export const SECRET = 'cursor-secret-never-read-1234';
const T = Date.parse('2025-11-04T09:00:00.000Z');

const fileUri = (p: string): Record<string, unknown> => ({ $mid: 1, fsPath: p, external: `file://${p}`, path: p, scheme: 'file' });
const header = (bubbleId: string, type: number): Record<string, unknown> => ({ bubbleId, type });
const tool = (name: string, args: Record<string, unknown>, result: string): Record<string, unknown> => ({
  tool: 7, name, toolCallId: `call_${name}_${String(args['target_file'] ?? args['file_path'])}`, status: 'completed',
  rawArgs: JSON.stringify(args), params: JSON.stringify({ relativeWorkspacePath: args['target_file'] ?? args['file_path'] }),
  result: JSON.stringify({ contents: result }), additionalData: { bulky: 'x'.repeat(5000) },
});

/** The bubbles of composer A, in order; position 6's value is damaged and position 8's row is missing. */
export const A_BUBBLES: Array<[string, Record<string, unknown> | string | undefined]> = [
  ['a-u1', { _v: 3, type: 1, bubbleId: 'a-u1', createdAt: new Date(T + 1000).toISOString(), text: "The tide chart's y-axis starts at zero, so small tides look flat; start it at the day's lowest tide.",
    context: { fileSelections: [{ uri: fileUri('/home/dev/tidepool/src/chart.ts') }] } }],
  ['a-think', { _v: 3, type: 2, bubbleId: 'a-think', text: '', thinking: { text: 'Look at the axis first.' } }],
  ['a-read', { _v: 3, type: 2, bubbleId: 'a-read', text: '', createdAt: new Date(T + 3000).toISOString(), toolFormerData: tool('read_file', { target_file: 'src/chart.ts' }, 'export const yAxis = { min: 0 };') }],
  ['a-edit', { _v: 3, type: 2, bubbleId: 'a-edit', text: '', toolFormerData: tool('edit_file', { target_file: 'src/chart.ts', instructions: 'start at the lowest tide' }, 'applied') }],
  ['a-r1', { _v: 3, type: 2, bubbleId: 'a-r1', createdAt: new Date(T + 5000).toISOString(), text: 'The axis minimum was hard-coded to 0; it now starts at the lowest tide of the day minus a 0.2 m margin.' }],
  ['a-bad', '{"_v":3,"type":2,"text":"cut off'],
  ['a-u2', { _v: 3, type: 1, bubbleId: 'a-u2', createdAt: new Date(T + 60000).toISOString(), text: 'Add a legend entry for spring tides, in a new legend module.' }],
  ['a-gone', undefined],
  ['a-write', { _v: 3, type: 2, bubbleId: 'a-write', text: '', toolFormerData: tool('write', { file_path: 'src/legend.ts', contents: 'export const legend = [];' }, 'created') }],
  ['a-r2', { _v: 3, type: 2, bubbleId: 'a-r2', createdAt: new Date(T + 64000).toISOString(), text: 'I created src/legend.ts with a spring tide entry drawn in the accent colour beside the curve.' }],
];

/** Writes the user-data folder under `root`; returns the database path and its open writer connection. */
export async function writeCursorUserData(root: string, options: { wal?: boolean } = {}): Promise<{ db: string; writer: Db }> {
  const global = path.join(root, 'User', 'globalStorage');
  await mkdir(global, { recursive: true });
  const file = path.join(global, 'state.vscdb');
  const writer = await Db.open(file);
  await writer.exec(`PRAGMA journal_mode = ${options.wal === false ? 'DELETE' : 'WAL'}; PRAGMA wal_autocheckpoint = 0;
    CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);`);
  const put = (key: string, value: unknown): Promise<unknown> =>
    writer.run('INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)', [key, typeof value === 'string' ? value : JSON.stringify(value)]);
  await writer.run('INSERT INTO ItemTable(key, value) VALUES (?, ?)', ['cursorAuth/accessToken', SECRET]);
  await put(`composerData:${COMPOSER_A}`, {
    _v: 10, composerId: COMPOSER_A, name: 'Tide chart axis', createdAt: T, lastUpdatedAt: T + 64000, status: 'completed',
    workspaceIdentifier: { id: 'f00d', uri: fileUri('/home/dev/tidepool') }, modelConfig: { modelName: 'claude-4.5-sonnet' },
    fullConversationHeadersOnly: A_BUBBLES.map(([id, b]) => header(id, typeof b === 'object' ? Number(b['type']) : 2)),
    blobEncryptionKey: SECRET, speculativeSummarizationEncryptionKey: SECRET, originalFileStates: { 'src/chart.ts': { content: 'y'.repeat(3000) } },
  });
  for (const [id, b] of A_BUBBLES) if (b !== undefined) await put(`bubbleId:${COMPOSER_A}:${id}`, b);
  // older layout: the bubbles inside the composer, the workspace only in the workspace's own storage
  await put(`composerData:${COMPOSER_B}`, {
    _v: 2, composerId: COMPOSER_B, createdAt: T - 86_400_000, modelConfig: { modelName: 'default' },
    conversation: [
      { bubbleId: 'b-u1', type: 1, text: 'Why does the harbour list sort Brest after Cherbourg when both start with a capital?' },
      { bubbleId: 'b-r1', type: 2, text: 'The sort compares code points after lower-casing only the first name; localeCompare with sensitivity base fixes it.' },
    ],
  });
  await put(`composerData:${COMPOSER_C}`, {
    _v: 10, composerId: COMPOSER_C, name: 'Other project', createdAt: T + 1, workspaceIdentifier: { id: 'beef', uri: fileUri('/home/dev/other') },
    fullConversationHeadersOnly: [header('c-u1', 1), header('c-r1', 2)],
  });
  await put(`bubbleId:${COMPOSER_C}:c-u1`, { type: 1, bubbleId: 'c-u1', text: 'Rename the gauge colour constants in the other project to match the design tokens.' });
  await put(`bubbleId:${COMPOSER_C}:c-r1`, { type: 2, bubbleId: 'c-r1', text: 'Renamed GAUGE_RED and GAUGE_GREEN to the design tokens danger and success in src/colours.ts.' });
  await put(`composerData:${COMPOSER_EMPTY}`, { _v: 10, composerId: COMPOSER_EMPTY, createdAt: T + 2, fullConversationHeadersOnly: [], text: '' });

  const ws = path.join(root, 'User', 'workspaceStorage', '0123abcd');
  await mkdir(ws, { recursive: true });
  await writeFile(path.join(ws, 'workspace.json'), JSON.stringify({ folder: 'file:///home/dev/tidepool' }));
  const wsDb = await Db.open(path.join(ws, 'state.vscdb'));
  await wsDb.exec('PRAGMA journal_mode = WAL; CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);');
  await wsDb.run('INSERT INTO ItemTable(key, value) VALUES (?, ?)', ['composer.composerData', JSON.stringify({ allComposers: [{ composerId: COMPOSER_B, name: 'Harbour sort' }], selectedComposerIds: [COMPOSER_B] })]);
  await wsDb.close();
  return { db: file, writer };
}

/** Appends a bubble to composer A the way Cursor does: the bubble row, then the composer's headers. */
export async function appendBubble(writer: Db, bubbleId: string, bubble: Record<string, unknown>): Promise<void> {
  await writer.transaction(async () => {
    await writer.run('INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)', [`bubbleId:${COMPOSER_A}:${bubbleId}`, JSON.stringify(bubble)]);
    await writer.run(
      `UPDATE cursorDiskKV SET value = json_insert(CAST(value AS TEXT), '$.fullConversationHeadersOnly[#]', json(?)) WHERE key = ?`,
      [JSON.stringify(header(bubbleId, Number(bubble['type']))), `composerData:${COMPOSER_A}`],
    );
  });
}
