import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { Db } from '../../src/core/store/db';
import { tempDir } from './helpers';

/**
 * Issue 44, item 11: a damaged full-text index (SQLITE_CORRUPT_VTAB) was not repaired, since the repair deleted
 * its rows through the damaged index, and `check` kept failing after any re-index; a damaged vector table passed
 * `check` and failed every search by meaning. Derived indexes are made again from the rows.
 */

const EXCHANGES = 40;

function session(): string {
  const lines: string[] = [];
  for (let i = 0; i < EXCHANGES; i++) {
    const base = { sessionId: 's1', cwd: '/home/dev/shop', timestamp: `2025-02-01T10:${String(i).padStart(2, '0')}:00Z` };
    lines.push(JSON.stringify({ ...base, type: 'user', uuid: `u${i}`, message: { role: 'user', content: `Why does the invoice exporter drop row ${i} of the ledger?` } }));
    lines.push(JSON.stringify({ ...base, type: 'assistant', uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text: `Row ${i} has a null currency; ${'the exporter skips rows it cannot format. '.repeat(3)}Defaulted it.` }] } }));
  }
  return lines.join('\n') + '\n';
}

async function run(args: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: () => undefined });
  return { code, out };
}

async function indexed(extra: string[] = []): Promise<string> {
  const dir = tempDir();
  const transcripts = path.join(dir, 'transcripts');
  mkdirSync(transcripts);
  await writeFile(path.join(transcripts, 'session.jsonl'), session());
  const db = path.join(dir, 'recall.sqlite');
  assert.equal((await run(['index', '--root', transcripts, '--db', db, '--quiet', ...extra])).code, 0);
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
  return db;
}

/** Writes into the store file with SQLite directly, as damage would. */
async function damage(db: string, sql: string): Promise<void> {
  const handle = await Db.open(db);
  try {
    await handle.exec(sql);
  } finally {
    await handle.close();
  }
}

/** A leaf of the index's newest segment overwritten with bytes FTS5 never writes. */
const GARBLE_FTS = (table: string): string =>
  `UPDATE ${table}_data SET block = CAST(replace(hex(zeroblob(length(block))), '0', 'Z') AS BLOB)
   WHERE id = (SELECT max(id) FROM ${table}_data)`;

test('check --repair rebuilds a damaged full-text index (SQLITE_CORRUPT_VTAB) from the rows, and check passes after it', async () => {
  const db = await indexed();
  await damage(db, `${GARBLE_FTS('exchanges_fts')}; ${GARBLE_FTS('distilled_fts')}`);
  const found = await run(['check', '--db', db]);
  assert.equal(found.code, 1);
  assert.match(found.out.join('\n'), /^full-text index: .*CORRUPT_VTAB/m);
  assert.match(found.out.join('\n'), /^distilled full-text index: .*CORRUPT_VTAB/m);

  const repaired = await run(['check', '--db', db, '--repair']);
  assert.equal(repaired.code, 0, repaired.out.join('\n'));
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
  const hits = JSON.parse((await run(['search', '--db', db, '--json', '--per-conversation', '50', 'invoice exporter null currency'])).out[0]!) as { hits: unknown[] };
  assert.equal(hits.hits.length, 10, 'the rebuilt index finds the exchanges');
  const distilled = JSON.parse((await run(['search', '--db', db, '--json', '--mode', 'core/bm25', 'invoice exporter'])).out[0]!) as { hits: unknown[] };
  assert.ok(distilled.hits.length > 0, 'and the distilled one too');
});

test('check finds a vector table that cannot be read; --repair makes it again and the embedding stage fills it', async () => {
  const db = await indexed(['--embed-model', 'built-in']);
  // vec0 checks each chunk's sizes as it reads it
  await damage(db, "UPDATE vec_core_chunks SET validity = x'00'");
  const found = await run(['check', '--db', db]);
  assert.equal(found.code, 1);
  assert.match(found.out.join('\n'), /the core vectors cannot be read \(.*validity/);

  assert.equal((await run(['check', '--db', db, '--repair'])).code, 0);
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');
  const embedded = await run(['embed', '--db', db, '--embed-model', 'built-in']);
  assert.match(embedded.out.join('\n'), new RegExp(`core ${EXCHANGES}\\b`), 'every core vector is made again');
  const hits = JSON.parse((await run(['search', '--db', db, '--json', '--embed-model', 'built-in', '--mode', 'core/vector', 'invoice exporter'])).out[0]!) as { hits: unknown[] };
  assert.ok(hits.hits.length > 0, 'search by meaning works again');
});
