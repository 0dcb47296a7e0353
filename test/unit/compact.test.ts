import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { Db } from '../../src/core/store/db';
import { FIXTURES, tempDir } from './helpers';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

/** What a person reads of the store: every exchange and its distilled object, the rooms, a search's hits. */
async function readable(db: string): Promise<string> {
  const listed = (await run(['list', '--db', db, '--json'])).out;
  const shown = [];
  for (const line of listed) shown.push(...(await run(['show', '--db', db, '--json', (JSON.parse(line) as { exchangeId: string }).exchangeId])).out);
  const rooms = (await run(['rooms', '--db', db, '--all', '--json'])).out;
  const hits = (await run(['search', '--db', db, '--json', 'error test file'])).out.map((l) => l.replace(/"tookMs":[\d.]+/, ''));
  return JSON.stringify({ listed, shown, rooms, hits });
}

test('compact gives the free pages back (a big delete left them), keeps every exchange, room and answer, and the store checks ok', async () => {
  const db = path.join(tempDir(), 'compact.sqlite');
  assert.equal((await run(['index', '--root', FIXTURES, '--db', db, '--quiet'])).code, 0);
  // pages freed as a big delete or a migration that rebuilds a table frees them
  const raw = await Db.open(db);
  await raw.exec('CREATE TABLE gone AS WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 400) SELECT randomblob(4000) AS b FROM k');
  await raw.exec('DROP TABLE gone; PRAGMA wal_checkpoint(TRUNCATE);');
  await raw.close();
  const before = await readable(db);
  const bytesBefore = statSync(db).size;

  const compacted = await run(['compact', '--db', db, '--json']);
  assert.equal(compacted.code, 0, compacted.err.join('\n'));
  const r = JSON.parse(compacted.out[0]!) as { before: { pages: number; freePages: number; pageSize: number }; after: { pages: number; freePages: number }; walBytes: number };
  assert.ok(r.before.freePages >= 400, `${r.before.freePages} free pages before`);
  assert.equal(r.after.freePages, 0);
  assert.ok(r.after.pages <= r.before.pages - r.before.freePages, `${r.before.pages} pages, ${r.before.freePages} free → ${r.after.pages}`);
  assert.equal(r.walBytes, 0, 'the log folded back into the store and emptied');
  assert.ok(statSync(db).size <= bytesBefore - 400 * r.before.pageSize, `${bytesBefore} → ${statSync(db).size} bytes`);

  assert.equal(await readable(db), before, 'the same exchanges, distilled objects, rooms and hits');
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
  assert.match((await run(['compact', '--db', db])).out[0]!, /^Compacted [\d.]+ MB to [\d.]+ MB \(0 free pages, 0 %\) in [\d.]+ s\.$/);
});
