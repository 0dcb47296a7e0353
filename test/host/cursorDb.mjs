// Writes a Cursor user-data folder's chat database for the in-host and UI fixture, the way Cursor writes it
// (WAL mode, cursorDiskKV composerData / bubbleId rows): node test/host/cursorDb.mjs <state.vscdb> <workspace>
// A child process of fixture.mjs, whose materializeFixture is synchronous and SQLite here is not.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const sqlite3 = createRequire(import.meta.url)('@vscode/sqlite3');
const [file, workspace] = process.argv.slice(2);
const composerId = 'f1e2d3c4-0000-4000-8000-00000000c0de';
const T = Date.parse('2026-10-07T08:15:00.000Z');
const bubble = (id, type, text, extra = {}) => [`bubbleId:${composerId}:${id}`, { _v: 3, type, bubbleId: id, text, createdAt: new Date(T + Number(id.slice(1)) * 20_000).toISOString(), ...extra }];
const bubbles = [
  bubble('b1', 1, 'The checkout total ignores the shipping fee for orders under 20 euros; where is the free-shipping threshold decided?'),
  bubble('b2', 2, '', { toolFormerData: { tool: 5, name: 'read_file', toolCallId: 'call_r1', status: 'completed', rawArgs: JSON.stringify({ target_file: 'src/checkout.js' }), result: JSON.stringify({ contents: 'export function checkoutSummary(cart, coupon) { ... }' }) } }),
  bubble('b3', 2, 'The threshold is a hard-coded FREE_SHIPPING_CENTS of 0 in checkoutSummary, so every order ships free; it should be 2000 cents.'),
  bubble('b4', 1, 'Set the free-shipping threshold to 2000 cents and add the 4.90 euro fee below it.'),
  bubble('b5', 2, '', { toolFormerData: { tool: 7, name: 'edit_file', toolCallId: 'call_e1', status: 'completed', rawArgs: JSON.stringify({ target_file: 'src/checkout.js', instructions: 'threshold 2000, fee 490' }), result: '{}' } }),
  bubble('b6', 2, 'checkoutSummary now adds a 490-cent shipping fee when the discounted total is under FREE_SHIPPING_CENTS = 2000.'),
];
const composer = {
  _v: 10, composerId, name: 'Free-shipping threshold', createdAt: T, lastUpdatedAt: T + 200_000,
  workspaceIdentifier: { id: 'fixture', uri: { $mid: 1, fsPath: workspace, external: pathToFileURL(workspace).href, path: workspace, scheme: 'file' } },
  fullConversationHeadersOnly: bubbles.map(([, b]) => ({ bubbleId: b.bubbleId, type: b.type })),
};
const db = new sqlite3.Database(file);
db.serialize(() => {
  db.run('PRAGMA journal_mode = WAL');
  db.run('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  db.run('CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  for (const [key, value] of [[`composerData:${composerId}`, composer], ...bubbles]) db.run('INSERT INTO cursorDiskKV VALUES (?, ?)', [key, JSON.stringify(value)]);
});
db.close((err) => {
  if (err) throw err;
});
