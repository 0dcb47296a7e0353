import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

/**
 * Issue 42: opening a store checks every page (quick_check), and read through SQLite's memory map those pages
 * counted in the process's memory (peak RSS 1,085 MB for a 3.4 GB store at 250K exchanges). A fresh process
 * opens a small store first (the addon and the code loaded), then a store with 64 MB more of pages, and says by
 * how much its peak resident memory grew.
 */
test('opening a large store does not map its pages into the process to check them', { timeout: 120_000, skip: process.platform !== 'linux' && 'reads /proc/self/status' }, async () => {
  const dir = tempDir('open-memory-');
  const small = path.join(dir, 'small.sqlite');
  const large = path.join(dir, 'large.sqlite');
  for (const file of [small, large]) await (await Store.open(file)).close();
  const db = await Db.open(large);
  await db.exec('CREATE TABLE filler(b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1024) INSERT INTO filler SELECT randomblob(65536) FROM n;');
  await db.close();

  const store = path.resolve(__dirname, '../../src/core/store/store.js');
  const child = spawnSync(
    process.execPath,
    [
      '-e',
      `const { Store } = require(${JSON.stringify(store)});
       const peakKb = () => Number(/VmHWM:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]);
       (async () => {
         await (await Store.open(${JSON.stringify(small)})).close();
         const before = peakKb();
         const s = await Store.open(${JSON.stringify(large)});
         const grew = peakKb() - before;
         await s.close();
         console.log(JSON.stringify({ grewMb: grew / 1024 }));
       })();`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  const { grewMb } = JSON.parse(child.stdout) as { grewMb: number };
  assert.ok(grewMb < 24, `peak RSS grew by ${grewMb.toFixed(1)} MB opening a store 64 MB larger`);
});
