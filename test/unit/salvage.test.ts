import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { RecallError } from '../../src/core/errors';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

/**
 * Issue 18: one garbage page in the exchanges table made the store unusable, and repair then started empty:
 * with the transcripts deleted, 1,524 of 1,524 exchanges were gone. Repair must copy every readable row.
 */

const EXCHANGES = 300;

/** A Claude Code session of EXCHANGES exchanges, each with a marker that finds its row in the file. */
function session(): string {
  const lines: string[] = [];
  for (let i = 0; i < EXCHANGES; i++) {
    const base = { sessionId: 's1', cwd: '/home/dev/shop', timestamp: `2025-02-01T10:${String(i % 60).padStart(2, '0')}:00Z` };
    lines.push(JSON.stringify({ ...base, type: 'user', uuid: `u${i}`, message: { role: 'user', content: `Question marker-${String(i).padStart(4, '0')}-q: why does step ${i} of the checkout pipeline stall?` } }));
    lines.push(JSON.stringify({ ...base, type: 'assistant', uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text: `Step ${i} waits on the payment lock; ${'the lock is held while the receipt renders. '.repeat(4)}Released it earlier.` }] } }));
  }
  return lines.join('\n') + '\n';
}

async function run(args: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: () => undefined });
  return { code, out };
}

/** Overwrites with garbage the page of the store that holds `marker` (a row of the exchanges table). */
async function damagePageHolding(file: string, marker: string): Promise<void> {
  const bytes = readFileSync(file);
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const at = bytes.indexOf(marker);
  assert.ok(at > 0, `${marker} is in the store file`);
  const page = Math.floor(at / pageSize);
  const handle = await open(file, 'r+');
  await handle.write(Buffer.alloc(pageSize, 0xab), 0, pageSize, page * pageSize);
  await handle.close();
}

interface Listed {
  readonly exchangeId: string;
  readonly prompt: string;
}

async function list(db: string): Promise<Listed[]> {
  return (await run(['list', '--db', db, '--json'])).out.map((l) => JSON.parse(l) as Listed);
}

/** A store of the session's exchanges whose transcript the agent then deleted: the store holds the only copy. */
async function onlyCopy(): Promise<{ db: string; before: Listed[] }> {
  const dir = tempDir();
  const transcripts = path.join(dir, 'transcripts');
  const db = path.join(dir, 'recall.sqlite');
  mkdirSync(transcripts);
  await writeFile(path.join(transcripts, 'session.jsonl'), session());
  assert.equal((await run(['index', '--root', transcripts, '--db', db, '--quiet'])).code, 0);
  const before = await list(db);
  assert.equal(before.length, EXCHANGES);
  rmSync(transcripts, { recursive: true });
  return { db, before };
}

interface RepairReport {
  readonly movedTo: string;
  readonly salvaged: ReadonlyArray<{ table: string; copied: number; lost?: number }>;
}

async function repair(db: string): Promise<{ report: RepairReport; exchanges: { copied: number; lost?: number } }> {
  const repaired = await run(['check', '--db', db, '--repair', '--json']);
  assert.equal(repaired.code, 0);
  const report = JSON.parse(repaired.out[0]!) as RepairReport;
  return { report, exchanges: report.salvaged.find((t) => t.table === 'exchanges')! };
}

/** Every exchange the repaired store holds is one the store held before, word for word. */
function assertAsBefore(after: readonly Listed[], before: readonly Listed[]): void {
  const was = new Map(before.map((b) => [b.exchangeId, b.prompt]));
  for (const a of after) assert.equal(a.prompt, was.get(a.exchangeId), `exchange ${a.exchangeId} as it was`);
}

function pageSizeOf(file: string): number {
  const size = readFileSync(file).readUInt16BE(16);
  return size === 1 ? 65536 : size;
}

test('repair of a store with a garbage page in the exchanges table keeps every other exchange and says how many were lost', async () => {
  const { db, before } = await onlyCopy();
  await damagePageHolding(db, 'marker-0150-q');

  await assert.rejects(Store.open(db), (err: unknown) => err instanceof RecallError && err.code === 'store-corrupt');
  const { report, exchanges } = await repair(db);
  assert.ok(existsSync(report.movedTo), 'the damaged file is kept');

  const after = await list(db);
  const lost = before.filter((b) => !after.some((a) => a.exchangeId === b.exchangeId));
  assert.ok(lost.length >= 1 && lost.length <= 10, `${lost.length} exchanges lost: only the damaged page's rows`);
  assert.ok(lost.some((l) => l.prompt.includes('marker-0150-q')));
  assert.equal(exchanges.copied, after.length);
  assert.equal(exchanges.lost, lost.length, 'the loss is counted exactly');
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
  const hits = await run(['search', '--db', db, '--json', 'checkout pipeline stall step 7']);
  assert.ok((JSON.parse(hits.out[0]!) as { hits: unknown[] }).hits.length > 0, 'the salvaged store is searchable');
});

/**
 * Issue 44, item 11: a store cut short (a copy or a disk that ran out) was refused whole by SQLite, whose header
 * records more pages than the file holds, and repair started an empty store though every page before the cut
 * was still there.
 */
test('repair of a store cut short by one page keeps every exchange, and leaves the damaged file as it was', async () => {
  const { db, before } = await onlyCopy();
  truncateSync(db, statSync(db).size - pageSizeOf(db));
  const damaged = readFileSync(db);
  await assert.rejects(Store.open(db), (err: unknown) => err instanceof RecallError && err.code === 'store-corrupt');

  const { report, exchanges } = await repair(db);
  assert.deepEqual([exchanges.copied, exchanges.lost], [EXCHANGES, 0]);
  const after = await list(db);
  assert.deepEqual(after.map((a) => a.exchangeId).sort(), before.map((b) => b.exchangeId).sort());
  assertAsBefore(after, before);
  assert.ok(readFileSync(report.movedTo).equals(damaged), 'the damaged file is kept byte for byte');
  assert.ok(!existsSync(`${report.movedTo}-wal`) && !existsSync(`${report.movedTo}-shm`), 'nothing left beside it by the salvage');
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
});

/** The file is cut in the middle of the exchanges table: before the page that holds the 151st exchange. */
async function cutBefore(db: string, marker: string): Promise<void> {
  const at = readFileSync(db).indexOf(marker);
  assert.ok(at > 0, `${marker} is in the store file`);
  const page = pageSizeOf(db);
  truncateSync(db, Math.floor(at / page) * page);
}

test('repair of a store cut short in the middle of its exchanges keeps those before the cut and counts the rest as lost', async () => {
  const { db, before } = await onlyCopy();
  await cutBefore(db, 'marker-0150-q');

  const { exchanges } = await repair(db);
  const after = await list(db);
  assertAsBefore(after, before);
  assert.equal(exchanges.copied, after.length);
  // the exchanges table's own count is cut off too: the ledger written after the last index run says how many there were
  assert.equal(exchanges.lost, EXCHANGES - after.length);
  const kept = new Set(after.map((a) => a.prompt.match(/marker-(\d+)/)![1]));
  assert.ok(!kept.has('0150'), 'the exchange past the cut is lost');
  // rows go into pages in the order they are written: at most a page's worth before the cut may be lost with it
  assert.ok([...Array(140).keys()].every((i) => kept.has(String(i).padStart(4, '0'))), `the first 140 exchanges are kept (${after.length} in all)`);
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
});

/** The root page of the exchanges table is overwritten: SQLite reaches none of its leaves, all of them intact. */
test('repair of a store whose exchanges b-tree lost its root page reads every exchange off its leaf pages', async () => {
  const { db, before } = await onlyCopy();
  const handle = await Db.open(db);
  const root = (await handle.get<{ rootpage: number }>("SELECT rootpage FROM sqlite_schema WHERE name = 'exchanges'"))!.rootpage;
  const leaves = (await handle.get<{ c: number }>("SELECT count(*) AS c FROM exchanges"))!.c;
  await handle.close();
  assert.equal(leaves, EXCHANGES);
  const page = pageSizeOf(db);
  const file = await open(db, 'r+');
  await file.write(Buffer.alloc(page, 0xab), 0, page, (root - 1) * page);
  await file.close();

  const { exchanges } = await repair(db);
  assert.deepEqual([exchanges.copied, exchanges.lost], [EXCHANGES, 0]);
  const after = await list(db);
  assert.equal(after.length, EXCHANGES);
  assertAsBefore(after, before);
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
});

/** A rebuild after a salvage reads every transcript again whole: one that lost exchanges looks unchanged otherwise. */
test('after a salvage, the next index run reads every transcript that still exists again', async () => {
  const dir = tempDir();
  const transcripts = path.join(dir, 'transcripts');
  const db = path.join(dir, 'recall.sqlite');
  mkdirSync(transcripts);
  await writeFile(path.join(transcripts, 'session.jsonl'), session());
  assert.equal((await run(['index', '--root', transcripts, '--db', db, '--quiet'])).code, 0);
  await cutBefore(db, 'marker-0150-q');
  const { exchanges } = await repair(db);
  assert.ok((exchanges.lost ?? 0) > 0, 'the cut cost exchanges');

  assert.equal((await run(['index', '--root', transcripts, '--db', db, '--quiet'])).code, 0);
  assert.equal((await list(db)).length, EXCHANGES, 'every exchange is back from the transcript');
});
