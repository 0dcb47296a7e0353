import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RecallError } from '../../src/core/errors';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

/**
 * Several processes on one store, as the extension, the CLI and the MCP server share it: real processes of
 * the bundled CLI started together on a store that does not exist yet (issue 18: 12 of 20 pairs failed).
 */

const CLI = path.resolve(__dirname, '../../../dist/cli.js');
const TRIALS = 4;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const indexArgs = (db: string): string[] => ['index', '--root', FIXTURES, '--db', db, '--quiet'];

/** What a store holds, comparable across stores: every exchange's identity and place. */
async function contents(db: string): Promise<string[]> {
  const listed = await cli(['list', '--db', db, '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  return listed.stdout.trim().split('\n').sort();
}

let clean: string[] | undefined;
async function cleanIndex(): Promise<string[]> {
  if (!clean) {
    const db = path.join(tempDir(), 'clean.sqlite');
    assert.equal((await cli(indexArgs(db))).code, 0);
    clean = await contents(db);
    assert.ok(clean.length > 5);
  }
  return clean;
}

function assertNothingMovedAside(dir: string): void {
  assert.deepEqual(readdirSync(dir).filter((f) => /corrupt|\.new-/.test(f)), [], 'no store moved aside, no creation left over');
}

test(`two index runs started together on a new store: both succeed, the store equals a clean index (${TRIALS} trials)`, { timeout: 180_000 }, async () => {
  const expected = await cleanIndex();
  for (let i = 0; i < TRIALS; i++) {
    const dir = tempDir();
    const db = path.join(dir, 'shared.sqlite');
    const [a, b] = await Promise.all([cli(indexArgs(db)), cli(indexArgs(db))]);
    assert.equal(a.code, 0, `trial ${i}: ${a.stderr}`);
    assert.equal(b.code, 0, `trial ${i}: ${b.stderr}`);
    assert.deepEqual(await contents(db), expected, `trial ${i}`);
    assertNothingMovedAside(dir);
  }
});

test(`index and check --repair started together: the repair never moves the live store aside (${TRIALS} trials)`, { timeout: 180_000 }, async () => {
  const expected = await cleanIndex();
  for (let i = 0; i < TRIALS; i++) {
    const dir = tempDir();
    const db = path.join(dir, 'shared.sqlite');
    const [indexed, checked] = await Promise.all([cli(indexArgs(db)), cli(['check', '--db', db, '--repair'])]);
    assert.equal(indexed.code, 0, `trial ${i}: ${indexed.stderr}`);
    assert.equal(checked.code, 0, `trial ${i}: ${checked.stderr}${checked.stdout}`);
    assert.doesNotMatch(checked.stdout, /moved|new empty store/);
    assert.deepEqual(await contents(db), expected, `trial ${i}`);
    assertNothingMovedAside(dir);
  }
});

test(`index and search started together on a new store: both succeed (${TRIALS} trials)`, { timeout: 180_000 }, async () => {
  const expected = await cleanIndex();
  for (let i = 0; i < TRIALS; i++) {
    const dir = tempDir();
    const db = path.join(dir, 'shared.sqlite');
    const [indexed, searched] = await Promise.all([cli(indexArgs(db)), cli(['search', '--db', db, '--json', 'login bug'])]);
    assert.equal(indexed.code, 0, `trial ${i}: ${indexed.stderr}`);
    assert.equal(searched.code, 0, `trial ${i}: ${searched.stderr}`);
    assert.ok(Array.isArray((JSON.parse(searched.stdout) as { hits: unknown[] }).hits));
    assert.deepEqual(await contents(db), expected, `trial ${i}`);
    assertNothingMovedAside(dir);
  }
});

test('a store truncated to 0 bytes is damaged, not silently a new store', async () => {
  const db = path.join(tempDir(), 'truncated.sqlite');
  writeFileSync(db, '');
  await assert.rejects(Store.open(db), (err: unknown) => err instanceof RecallError && err.code === 'store-corrupt' && /empty \(0 bytes\)/.test(err.message));
  const { store, movedTo } = await Store.rebuild(db);
  await store.close();
  assert.ok(movedTo && statSync(movedTo).size === 0, 'the truncated file is kept beside the new store');
});

test('a store is never moved aside while another connection has it open; once it is closed, it is', async () => {
  const dir = tempDir();
  const db = path.join(dir, 'busy.sqlite');
  const other = await Store.open(db);
  try {
    await assert.rejects(Store.rebuild(db), (err: unknown) => err instanceof RecallError && err.code === 'store-locked');
    assertNothingMovedAside(dir);
    assert.ok((await other.stats()).exchanges === 0, 'the other connection still works on the same file');
  } finally {
    await other.close();
  }
  const { store, movedTo } = await Store.rebuild(db);
  await store.close();
  assert.ok(movedTo);
});

/**
 * Another process holding the store's exclusive lock for `holdMs` (what a repair does while it moves the file:
 * rollback journal, BEGIN EXCLUSIVE); resolves once the lock is held, with a promise of the process's end.
 */
async function holdExclusiveLock(db: string, holdMs: number): Promise<{ done: Promise<void> }> {
  const sqlite = require.resolve('@vscode/sqlite3');
  const script = `
    const sqlite3 = require(${JSON.stringify(sqlite)});
    const db = new sqlite3.Database(${JSON.stringify(db)});
    db.exec('PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE', (err) => {
      if (err) { console.error(err.message); process.exit(1); }
      console.log('held');
      setTimeout(() => db.exec('COMMIT', () => db.close()), ${holdMs});
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    child.on('close', (code) => reject(new Error(`the lock holder exited (${code}) before holding the lock`)));
  });
  return { done };
}

async function indexedStore(): Promise<string> {
  const db = path.join(tempDir(), 'indexed.sqlite');
  assert.equal((await cli(indexArgs(db))).code, 0);
  return db;
}

test('a read-only open (the MCP server) waits for another process that holds the store locked, then reads it', { timeout: 60_000 }, async () => {
  const db = await indexedStore();
  const holdMs = 7_000; // longer than the 5 s the read-only open used to wait before calling the store damaged
  const holder = await holdExclusiveLock(db, holdMs);
  const started = Date.now();
  const store = await Store.openReadOnly(db);
  try {
    assert.ok(Date.now() - started >= holdMs - 1_000, 'it waited for the lock');
    assert.ok((await store.stats()).exchanges > 5);
  } finally {
    await store.close();
    await holder.done;
  }
});

test('a read-only open that waits longer than its limit reports the store as in use, never as damaged', { timeout: 60_000 }, async () => {
  const db = await indexedStore();
  const holder = await holdExclusiveLock(db, 4_000);
  try {
    await assert.rejects(
      Store.openReadOnly(db, { busyTimeoutMs: 500 }),
      (err: unknown) => err instanceof RecallError && err.code === 'store-locked' && /in use by another process/.test(err.message),
    );
  } finally {
    await holder.done;
  }
  const store = await Store.openReadOnly(db);
  assert.ok((await store.stats()).exchanges > 5, 'nothing was lost');
  await store.close();
});
