import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { Db } from '../../src/core/store/db';
import { indexExchanges } from '../../src/core/store/exchangeFts';
import { migrate, SCHEMA_VERSION } from '../../src/core/store/schema';
import { tempDir } from './helpers';

/**
 * A migration cut short (the editor closed, the machine off, the process killed while it updates a store an older
 * version wrote: at 250,000 exchanges the migrations to v32 take ~1 minute of CPU, schema 31's a page of 100 exchanges
 * at a time): each migration is one transaction, so the store is left at the last version it reached, nothing lost,
 * and the next opening migrates from there to the store an uninterrupted migration writes.
 */

const EXCHANGES = 250;

/** A store as schema 30 left it, with more exchanges than one page of schema 31's hashing (100). */
async function storeAt30(file: string): Promise<void> {
  const db = await Db.open(file);
  try {
    await db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON');
    await migrate(db, 30);
    await db.run(`INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (1, '/t/s.jsonl', 'claude-code', 90000, 5, 90000, 999)`);
    await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, project, title, started_at, line)
      VALUES ('c1', 1, 'claude-code', 'sess-1', '/home/dev/shop', 'Checkout', '2026-01-02T03:04:05Z', 1)`);
    const rows = Array.from({ length: EXCHANGES }, (_, i) => ({
      n: i + 1,
      prompt: `Why does coupon ${i} round the total wrong?`,
      verbatim: `User: Why does coupon ${i} round the total wrong?\n\nAssistant: The rounding rule ${i} ran per line in src/cart${i % 7}.ts.`,
    }));
    for (const r of rows) {
      await db.run(
        `INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, started_at, prompt, verbatim, verbatim_tokens)
         VALUES (?, ?, 'c1', 1, 0, ?, ?, ?, ?, ?, '2026-01-02T03:04:05Z', ?, ?, 20)`,
        [r.n, `ex-${String(r.n).padStart(4, '0')}`, 2 * r.n, 2 * r.n + 1, 4 * r.n, 4 * r.n + 3, 300 * r.n, r.prompt, r.verbatim],
      );
      if (r.n % 3 === 0) await db.run(`INSERT INTO files_touched(exchange_n, path, how, lines) VALUES (?, ?, 'edit', '[{"start":3,"end":7}]')`, [r.n, `src/cart${r.n % 7}.ts`]);
    }
    await indexExchanges(db, rows);
  } finally {
    await db.close();
  }
}

/** Every row of every table (virtual tables through their own tables), in order: what a store holds. */
async function dump(file: string): Promise<Record<string, unknown[]>> {
  const db = await Db.open(file, { readonly: true });
  try {
    const out: Record<string, unknown[]> = {};
    const tables = await db.all<{ name: string }>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
    );
    for (const { name } of tables) {
      out[name] = (await db.all<Record<string, unknown>>(`SELECT * FROM "${name}"`))
        .map((r) => [JSON.stringify(r), r] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, r]) => r);
    }
    out['version'] = [await db.get('PRAGMA user_version')];
    return out;
  } finally {
    await db.close();
  }
}

/** Opens `file` (migrating it) in a process of its own, killed once schema 31's migration reported its first page. */
async function openKilledMidway(file: string): Promise<{ signal: string | null; reports: string[] }> {
  const memory = require.resolve('../../src/core/memory');
  const script = `
    const { Memory } = require(${JSON.stringify(memory)});
    Memory.open(${JSON.stringify(file)}, { onMigration: (p) => {
      console.log(p.version + ' ' + p.done + '/' + p.total);
      if (p.version === 31 && p.done < p.total) process.kill(process.pid, 'SIGKILL');
    } }).then(() => console.log('opened'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const signal = await new Promise<string | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
  return { signal, reports: out.split('\n').filter(Boolean) };
}

test('a migration killed midway leaves the store at the last version it reached, and the next opening ends it: nothing lost', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const killed = path.join(dir, 'killed.sqlite');
  const whole = path.join(dir, 'whole.sqlite');
  await storeAt30(killed);
  copyFileSync(killed, whole);
  const before = await dump(killed);

  const { signal, reports } = await openKilledMidway(killed);
  assert.equal(signal, 'SIGKILL');
  assert.deepEqual(reports, [`31 100/${EXCHANGES}`], 'killed within schema 31, after its first page was written');

  // the killed transaction left nothing: the store is schema 30's, every row as it was (its -wal is read at this opening)
  assert.deepEqual(await dump(killed), before);

  const reopened = await Memory.open(killed);
  try {
    assert.deepEqual((await reopened.check()).problems, []);
    assert.equal((await reopened.stats()).exchanges, EXCHANGES);
  } finally {
    await reopened.close();
  }
  await (await Memory.open(whole)).close();
  const migrated = await dump(killed);
  assert.equal((migrated['version']![0] as { user_version: number }).user_version, SCHEMA_VERSION);
  assert.equal((migrated['exchanges'] as Array<{ content_hash: string | null }>).filter((e) => e.content_hash === null).length, 0);
  assert.deepEqual(migrated, await dump(whole), 'the same store as a migration never interrupted');
});
