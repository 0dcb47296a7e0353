import assert from 'node:assert/strict';
import { readFileSync, statSync, truncateSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { RecallError } from '../../src/core/errors';
import { Memory } from '../../src/core/memory';
import { Db } from '../../src/core/store/db';
import { SCHEMA_VERSION } from '../../src/core/store/schema';
import { Store } from '../../src/core/store/store';
import { msg, resetLines, storeConversation, tempDir } from './helpers';

/**
 * Issue 42: the host's language-model tools waited for opening's check of every page (2.0-2.3 s at 250,000
 * exchanges) before their first answer. With `check: 'background'` the store answers reads at once and checks its
 * pages aside; a damaged store is still refused (then), is never written to, and loses nothing.
 */

const EXCHANGES = 200;

/** A store of EXCHANGES exchanges, each with a marker that finds its row in the file; closed. */
async function storeWithMarkers(): Promise<string> {
  const file = path.join(tempDir('open-check-'), 'recall.sqlite');
  const store = await Store.open(file);
  resetLines();
  const messages = Array.from({ length: EXCHANGES }, (_, i) => [
    msg('prompt', `Question marker-${String(i).padStart(4, '0')}-q: why does step ${i} of the harbour tide import stall?`),
    msg('reply', `Step ${i} waits on the gauge lock; ${'the lock is held while the chart renders. '.repeat(4)}Released it earlier.`),
  ]).flat();
  await storeConversation(store, 's1', messages);
  await store.close();
  return file;
}

/** Overwrites with garbage the page of the store that holds `marker` (a row of the exchanges table). */
async function damagePageHolding(file: string, marker: string): Promise<void> {
  const bytes = readFileSync(file);
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const at = bytes.indexOf(marker);
  assert.ok(at > 0, `${marker} is in the store file`);
  const handle = await open(file, 'r+');
  await handle.write(Buffer.alloc(pageSize, 0xab), 0, pageSize, Math.floor(at / pageSize) * pageSize);
  await handle.close();
}

const isDamaged = (err: unknown): boolean => err instanceof RecallError && err.code === 'store-corrupt' && /is damaged [\s\S]*Rebuild it/.test(err.message);

test('a store damaged past its schema opens for reading, then is refused once its pages are checked, and nothing is written to it', async () => {
  const file = await storeWithMarkers();
  await damagePageHolding(file, 'marker-0150-q');
  const damaged = readFileSync(file);

  const memory = await Memory.open(file, { check: 'background' });
  try {
    // issued before the check ends: a write waits for it and fails with it
    const write = memory.markAllSourcesStale();
    await assert.rejects(memory.verified(), isDamaged);
    await assert.rejects(write, isDamaged);
    await assert.rejects(memory.search({ text: 'harbour tide import', mode: 'verbatim/bm25' }), isDamaged);
    await assert.rejects(memory.stats(), isDamaged);
  } finally {
    await memory.close();
  }
  assert.ok(readFileSync(file).equals(damaged), 'the damaged file is as it was');

  // what the full check on opening says of the same file, and what a rebuild keeps of it
  await assert.rejects(Store.open(file), isDamaged);
  const { memory: rebuilt, salvaged } = await Memory.rebuild(file);
  try {
    const exchanges = salvaged?.find((t) => t.table === 'exchanges');
    assert.ok(exchanges && exchanges.copied >= EXCHANGES - 10 && exchanges.copied + (exchanges.lost ?? 0) === EXCHANGES, JSON.stringify(exchanges));
  } finally {
    await rebuilt.close();
  }
});

test('a sound store opened with the check aside answers, and takes writes once its pages are checked', async () => {
  const file = await storeWithMarkers();
  const memory = await Memory.open(file, { check: 'background' });
  try {
    const write = memory.markAllSourcesStale();
    const hits = await memory.search({ text: 'marker-0042-q harbour', mode: 'verbatim/bm25', limit: 3 });
    assert.ok(hits.hits.length > 0);
    await memory.verified();
    await write;
    assert.equal((await memory.stats()).exchanges, EXCHANGES);
  } finally {
    await memory.close();
  }
});

test('with the check aside, a store whose schema is damaged or that was cut short is still refused on opening', async () => {
  const headerHit = await storeWithMarkers();
  const handle = await open(headerHit, 'r+');
  await handle.write(Buffer.alloc(8192, 0xab), 0, 8192, 100);
  await handle.close();
  await assert.rejects(Store.open(headerHit, { check: 'background' }), isDamaged);

  const cut = await storeWithMarkers();
  const pageSize = readFileSync(cut).readUInt16BE(16);
  truncateSync(cut, statSync(cut).size - pageSize);
  await assert.rejects(Store.open(cut, { check: 'background' }), isDamaged);
});

test('a store due for a migration is checked whole before the migration writes to it', async () => {
  const file = await storeWithMarkers();
  const db = await Db.open(file);
  await db.exec(`PRAGMA user_version = ${SCHEMA_VERSION - 1}`);
  await db.close();
  await damagePageHolding(file, 'marker-0150-q');
  const damaged = readFileSync(file);
  await assert.rejects(Store.open(file, { check: 'background' }), isDamaged);
  assert.ok(readFileSync(file).equals(damaged), 'nothing migrated into the damaged file');
});

test('a store closed while its pages are being checked closes cleanly', async () => {
  const file = await storeWithMarkers();
  const store = await Store.open(file, { check: 'background' });
  await store.close();
  // whether the check had ended or was stopped, it found nothing
  await store.verified;
});
