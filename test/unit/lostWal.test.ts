import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { FIXTURES, tempDir } from './helpers';

/**
 * A lost write-ahead log (issue 18, item 4): the `-wal` deleted while a reader held an old snapshot, so the
 * commits after that snapshot never reached the main file. The store left behind is whole and older; SQLite's
 * own checks call it ok. Real processes: the bundled CLI indexes, another process holds the snapshot and is
 * killed, as a crashed reader would be.
 */

const CLI = path.resolve(__dirname, '../../../dist/cli.js');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Another process reading the store, holding its snapshot open until killed. */
async function snapshotHolder(db: string): Promise<ChildProcess> {
  const sqlite = require.resolve('@vscode/sqlite3');
  const script = `
    const sqlite3 = require(${JSON.stringify(sqlite)});
    const db = new sqlite3.Database(${JSON.stringify(db)}, sqlite3.OPEN_READONLY);
    db.serialize(() => { db.run('BEGIN'); db.get('SELECT count(*) AS c FROM exchanges', (err) => console.log(err ? err.message : 'holding')); });
    setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => (d.toString().includes('holding') ? resolve() : reject(new Error(d.toString()))));
  });
  return child;
}

async function exchanges(db: string): Promise<number> {
  const memory = await Memory.open(db);
  try {
    return (await memory.stats()).exchanges;
  } finally {
    await memory.close();
  }
}

/** A store indexed from `first`, then from `first` and `second` while a reader holds the first state; then the WAL is lost. */
async function storeThatLostItsWal(): Promise<{ db: string; dir: string; before: number; after: number }> {
  const dir = tempDir();
  cpSync(path.join(FIXTURES, 'claude-code'), path.join(dir, 'first', 'claude-code'), { recursive: true });
  cpSync(path.join(FIXTURES, 'codex'), path.join(dir, 'second', 'codex'), { recursive: true });
  const db = path.join(dir, 'recall.sqlite');
  assert.equal(cli(['index', '--db', db, '--root', path.join(dir, 'first'), '--quiet']).code, 0);
  const before = await exchanges(db);
  const reader = await snapshotHolder(db);
  let after: number;
  try {
    assert.equal(cli(['index', '--db', db, '--root', path.join(dir, 'first'), '--root', path.join(dir, 'second'), '--quiet']).code, 0);
    after = await exchanges(db);
    assert.ok(after > before, 'the second run added exchanges');
    assert.ok(existsSync(`${db}-wal`), 'they are in the write-ahead log, held there by the reader');
    rmSync(`${db}-wal`);
  } finally {
    reader.kill('SIGKILL');
    await new Promise((r) => reader.once('exit', r));
  }
  return { db, dir, before, after };
}

test('a lost -wal: check says what is missing (not ok), and the next index run reads the transcripts again', { timeout: 120_000 }, async () => {
  const { db, before, after } = await storeThatLostItsWal();
  const checked = cli(['check', '--db', db]);
  assert.equal(checked.code, 1, checked.stdout);
  assert.match(checked.stdout, /holds less than it recorded after its last index run.*write-ahead log.*: \d+ exchanges of \d+ transcripts are missing/);
  assert.match(checked.stdout, /still exist and are read again/);
  assert.equal(await exchanges(db), before, 'the store went back to the reader\'s snapshot');
  assert.equal(cli(['index', '--db', db, '--root', path.dirname(db) + '/first', '--root', path.dirname(db) + '/second', '--quiet']).code, 0);
  assert.equal(await exchanges(db), after, 'every exchange is back');
  assert.equal(cli(['check', '--db', db]).code, 0);
});

test('a lost -wal whose transcripts were deleted since: the loss is counted and named, never silent', { timeout: 120_000 }, async () => {
  const { db, dir, before, after } = await storeThatLostItsWal();
  rmSync(path.join(dir, 'second'), { recursive: true });
  const memory = await Memory.open(db);
  try {
    const lost = await memory.lostWrites();
    assert.equal(lost.sources.reduce((n, s) => n + s.exchanges, 0), after - before);
    assert.ok(lost.sources.every((s) => !s.transcriptExists && s.path.includes(`${path.sep}second${path.sep}`)));
    assert.match(lost.message ?? '', /transcripts no longer exist: their \d+ exchanges are lost/);
    assert.equal((await memory.check()).ok, false);
  } finally {
    await memory.close();
  }
});
