import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { databaseState, readSnapshot } from '../../src/core/sources/walDatabase';
import { Db } from '../../src/core/store/db';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-recall-wal-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** An agent's WAL database as it is left when the agent is not running: its last connection closed, no -wal. */
async function agentDatabase(name: string): Promise<string> {
  const file = path.join(dir, name);
  const db = await Db.open(file);
  await db.exec("PRAGMA journal_mode = WAL; CREATE TABLE chats (id TEXT, body TEXT); INSERT INTO chats VALUES ('a', 'first');");
  await db.close();
  return file;
}

describe("an agent's database state (did the agent write it?)", () => {
  test('our read-only read leaves it as it was, though the read makes an empty -wal', async () => {
    const file = await agentDatabase('read.db');
    assert.ok(!fs.existsSync(`${file}-wal`));
    const before = await databaseState(file);
    await new Promise((r) => setTimeout(r, 20)); // a later time, were the read to count
    const rows = await readSnapshot(file, 'Cursor', (db) => db.all<{ id: string }>('SELECT id FROM chats'));
    assert.deepEqual(rows, [{ id: 'a' }]);
    assert.equal(fs.statSync(`${file}-wal`).size, 0, 'the read made an empty write-ahead log');
    assert.deepEqual(await databaseState(file), before);
  });

  test("the agent's write changes it, while it sits in the -wal and after a checkpoint", async () => {
    const file = await agentDatabase('write.db');
    const before = await databaseState(file);
    const agent = await Db.open(file);
    try {
      await agent.exec('PRAGMA wal_autocheckpoint = 0');
      await agent.run("INSERT INTO chats VALUES ('b', 'second')");
      assert.ok(fs.statSync(`${file}-wal`).size > 0);
      const written = await databaseState(file);
      assert.notDeepEqual(written, before);
      await new Promise((r) => setTimeout(r, 20));
      await agent.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      assert.equal(fs.statSync(`${file}-wal`).size, 0, 'the checkpoint emptied the log');
      assert.notDeepEqual(await databaseState(file), before, 'the writes are in the database now');
    } finally {
      await agent.close();
    }
  });
});
