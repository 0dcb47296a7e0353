// Writes Trae's chats into a workspace's storage database for the in-host fixture, the way Trae (a VS Code fork) keeps
// them: VS Code's state.vscdb (ItemTable, rollback journal), key memento/icube-ai-agent-storage:
// node test/host/traeDb.mjs <state.vscdb>
// A child process of fixture.mjs, whose materializeFixture is synchronous and SQLite here is not.
import { createRequire } from 'node:module';

const sqlite3 = createRequire(import.meta.url)('@vscode/sqlite3');
const [file] = process.argv.slice(2);
const T = Date.parse('2026-10-09T10:00:00.000Z');
const value = {
  list: [{
    sessionId: '7c8d9e0f-trae-4a1b-8c2d-3e4f5a6b7c8d',
    createdAt: T,
    updatedAt: T + 40_000,
    model: 'doubao-seed-code',
    messages: [
      { role: 'user', content: 'Does checkoutSummary round the VAT per line or once on the whole cart? A customer got a total one cent off.', timestamp: T, turnIndex: 0 },
      { role: 'assistant', content: '', timestamp: T + 30_000, turnIndex: 1, agentTaskContent: { content: 'checkoutSummary in src/checkout.js rounds the VAT once, on the discounted cart total, so per-line rounding cannot make it a cent off; the cent comes from the coupon, which cartTotalCents rounds half up.' } },
    ],
  }],
};
const db = new sqlite3.Database(file);
db.serialize(() => {
  db.run('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  db.run('INSERT INTO ItemTable VALUES (?, ?)', ['workbench.explorer.treeViewState', '{}']);
  db.run('INSERT INTO ItemTable VALUES (?, ?)', ['memento/icube-ai-agent-storage', JSON.stringify(value)]);
});
db.close((err) => {
  if (err) throw err;
});
