// Writes OpenCode's database for the in-host and UI fixture, the way current OpenCode writes it (WAL mode,
// tables session / message / part, `data` the JSON object without its ids): one session in the workspace,
// one in another project (left out). node test/host/opencodeDb.mjs <opencode.db> <workspace>
// A child process of fixture.mjs, whose materializeFixture is synchronous and SQLite here is not.
import { createRequire } from 'node:module';

const sqlite3 = createRequire(import.meta.url)('@vscode/sqlite3');
const [file, workspace] = process.argv.slice(2);
const T = Date.parse('2026-10-08T10:00:00.000Z');
const sessions = [
  ['ses_7c3e9a1b2d4fFixtureCoupon', workspace, 'Coupon percent as a whole number'],
  ['ses_7c3e9a1b2d4fOtherProject', '/elsewhere/project', 'Another project'],
];
const messages = [
  ['msg_oc1', sessions[0][0], { role: 'user', time: { created: T + 1000 } }],
  ['msg_oc2', sessions[0][0], { role: 'assistant', modelID: 'claude-sonnet-4', providerID: 'anthropic', time: { created: T + 5000 } }],
  ['msg_ox1', sessions[1][0], { role: 'user', time: { created: T + 9000 } }],
  ['msg_ox2', sessions[1][0], { role: 'assistant', modelID: 'claude-sonnet-4', providerID: 'anthropic', time: { created: T + 9500 } }],
];
const parts = [
  ['prt_oc1a', 'msg_oc1', sessions[0][0], { type: 'text', text: 'Why does cartTotalCents take couponPercent as a whole number like 10 instead of a fraction like 0.1?' }],
  ['prt_oc2a', 'msg_oc2', sessions[0][0], { type: 'tool', callID: 'toolu_oc1', tool: 'read',
    state: { status: 'completed', input: { filePath: `${workspace}/src/cart.js` }, output: 'export function cartTotalCents(lines, couponPercent = 0) {', title: 'src/cart.js', metadata: {}, time: { start: T + 5100, end: T + 5200 } } }],
  ['prt_oc2b', 'msg_oc2', sessions[0][0], { type: 'text', text: 'cartTotalCents divides couponPercent by 100 itself, so callers pass whole percentages; checkoutSummary maps WELCOME10 to 10 for that reason.' }],
  ['prt_ox1a', 'msg_ox1', sessions[1][0], { type: 'text', text: 'A question about couponPercent in a project that is not this workspace, which must not be indexed here at all.' }],
  ['prt_ox2a', 'msg_ox2', sessions[1][0], { type: 'text', text: 'An answer in that other project: its couponPercent is a fraction, and this exchange belongs to no workspace opened here.' }],
];
const db = new sqlite3.Database(file);
db.serialize(() => {
  db.run('PRAGMA journal_mode = WAL');
  db.run(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
    title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)`);
  db.run('CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)');
  db.run(`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL, data TEXT NOT NULL)`);
  for (const [id, directory, title] of sessions) db.run('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)', [id, 'global', id, directory, title, '1.0.0', T, T + 60_000]);
  for (const [id, session, data] of messages) db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?)', [id, session, data.time.created, data.time.created, JSON.stringify(data)]);
  for (const [id, message, session, data] of parts) db.run('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)', [id, message, session, T, T, JSON.stringify(data)]);
});
db.close((err) => {
  if (err) {
    console.error(err.message);
    process.exit(1);
  }
});
