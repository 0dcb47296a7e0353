import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace } from '../../src/core/indexer';
import { ledgerFile } from '../../src/core/store/ledger';
import { Store } from '../../src/core/store/store';
import { FIXTURES, rowsPerStatement, tempDir } from './helpers';

test("the ledger of more sources than a page is the text JSON.stringify made of them all, and no statement of its write gives more than a page of rows", async () => {
  const db = path.join(tempDir(), 'ledger.sqlite');
  const store = await Store.open(db);
  try {
    const report = await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      distiller: false,
    });
    assert.ok(report.exchangesWritten > 0);
    // sources of a large history besides the fixtures' (none of their exchanges: a count of 0 each)
    const more = Array.from({ length: 4_500 }, (_, i) => [`/h/r${i % 9}/projects/p${i}/s${i}.jsonl`, 'claude-code', 1_767_225_600_000 + i]);
    await store.db.insertRows('INSERT INTO sources(path, agent, indexed_at)', more);
    const whole = await store.db.all<Record<string, unknown>>(
      `SELECT s.path, s.agent, coalesce(s.indexed_at, 0) AS indexedAt, count(e.n) AS exchanges
       FROM sources s LEFT JOIN exchanges e ON e.source_id = s.id GROUP BY s.id ORDER BY s.path`,
    );
    assert.ok(whole.some((e) => (e.exchanges as number) > 0));
    const counts = rowsPerStatement(store);
    await store.writeLedger();
    assert.equal(readFileSync(ledgerFile(db), 'utf8'), JSON.stringify({ version: 1, sources: whole }));
    assert.ok(Math.max(...counts) <= 2_000, `rows a statement: ${counts.join(', ')}`);
  } finally {
    await store.close();
  }
});
