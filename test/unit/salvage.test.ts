import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { RecallError } from '../../src/core/errors';
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

test('repair of a store with a garbage page in the exchanges table keeps every other exchange and says how many were lost', async () => {
  const dir = tempDir();
  const transcripts = path.join(dir, 'transcripts');
  const db = path.join(dir, 'recall.sqlite');
  mkdirSync(transcripts);
  await writeFile(path.join(transcripts, 'session.jsonl'), session());
  assert.equal((await run(['index', '--root', transcripts, '--db', db, '--quiet'])).code, 0);
  const before = (await run(['list', '--db', db, '--json'])).out.map((l) => JSON.parse(l) as { exchangeId: string; prompt: string });
  assert.equal(before.length, EXCHANGES);
  // the agent deleted its transcripts: the store holds the only copy
  rmSync(transcripts, { recursive: true });
  await damagePageHolding(db, 'marker-0150-q');

  await assert.rejects(Store.open(db), (err: unknown) => err instanceof RecallError && err.code === 'store-corrupt');
  const repaired = await run(['check', '--db', db, '--repair', '--json']);
  assert.equal(repaired.code, 0);
  const report = JSON.parse(repaired.out[0]!) as { movedTo: string; salvaged: Array<{ table: string; copied: number; lost?: number }> };
  assert.ok(existsSync(report.movedTo), 'the damaged file is kept');
  const exchanges = report.salvaged.find((t) => t.table === 'exchanges')!;

  const after = (await run(['list', '--db', db, '--json'])).out.map((l) => JSON.parse(l) as { exchangeId: string; prompt: string });
  const lost = before.filter((b) => !after.some((a) => a.exchangeId === b.exchangeId));
  assert.ok(lost.length >= 1 && lost.length <= 10, `${lost.length} exchanges lost: only the damaged page's rows`);
  assert.ok(lost.some((l) => l.prompt.includes('marker-0150-q')));
  assert.equal(exchanges.copied, after.length);
  assert.equal(exchanges.lost, lost.length, 'the loss is counted exactly');
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
  const hits = await run(['search', '--db', db, '--json', 'checkout pipeline stall step 7']);
  assert.ok((JSON.parse(hits.out[0]!) as { hits: unknown[] }).hits.length > 0, 'the salvaged store is searchable');
});
