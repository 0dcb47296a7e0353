import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const SCRIPT = path.resolve(__dirname, '../../../test/bench/replicateStore.mjs');
const quiet = { out: () => undefined, err: () => undefined };

function replicate(from: string, to: string, exchanges: number, seed: number): void {
  const r = spawnSync(process.execPath, [SCRIPT, '--from', from, '--to', to, '--exchanges', String(exchanges), '--seed', String(seed)], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
}

interface Row {
  id: string;
  source_id: number;
  line_start: number;
  line_end: number;
  verbatim: string;
}

async function rows(db: string): Promise<Row[]> {
  const store = await Store.open(db);
  try {
    return await store.db.all<Row>('SELECT id, source_id, line_start, line_end, verbatim FROM exchanges ORDER BY id');
  } finally {
    await store.close();
  }
}

const words = (s: string): string[] => s.match(/[\p{L}\p{N}_]+/gu) ?? [];

test('replicas are light, seeded perturbations that keep their source lines and a consistent full-text index', async () => {
  const dir = tempDir();
  const small = path.join(dir, 'small.sqlite');
  assert.equal(await main(['index', '--root', FIXTURES, '--db', small, '--quiet'], quiet), 0);
  const originals = new Map((await rows(small)).map((r) => [r.id, r]));
  const target = originals.size * 3 + 5; // two whole replicas and a partial third

  const big = path.join(dir, 'big.sqlite');
  replicate(small, big, target, 1);
  const all = await rows(big);
  assert.equal(all.length, target);
  const out: string[] = [];
  assert.equal(await main(['check', '--db', big], { out: (s) => out.push(s), err: (s) => out.push(s) }), 0);
  assert.deepEqual(out, ['ok'], 'both full-text indexes agree with their rows');

  const replicas = all.filter((r) => r.id.includes('~r'));
  let differ = 0;
  for (const r of replicas) {
    const o = originals.get(r.id.slice(0, r.id.indexOf('~r')))!;
    assert.deepEqual([r.source_id, r.line_start, r.line_end], [o.source_id, o.line_start, o.line_end], 'a replica is judged as its original');
    if (r.verbatim !== o.verbatim) differ++;
    // light: most of the original's words are still there
    const kept = new Set(words(r.verbatim));
    const ws = words(o.verbatim);
    assert.ok(ws.filter((w) => kept.has(w)).length >= 0.8 * ws.length, `${r.id} changed too much`);
  }
  assert.ok(differ >= replicas.length / 2, `only ${differ} of ${replicas.length} replicas differ from their original`);

  const again = path.join(dir, 'again.sqlite');
  replicate(small, again, target, 1);
  assert.deepEqual(await rows(again), all, 'the same seed gives the same store');
  const other = path.join(dir, 'other.sqlite');
  replicate(small, other, target, 2);
  assert.notDeepEqual(await rows(other), all, 'another seed gives other replicas');
});

test('a replica renames file paths the same way in its files and in its distilled files facet', async () => {
  const dir = tempDir();
  const small = path.join(dir, 'small.sqlite');
  assert.equal(await main(['index', '--root', FIXTURES, '--db', small, '--quiet'], quiet), 0);
  const big = path.join(dir, 'big.sqlite');
  replicate(small, big, 2000, 1);
  const store = await Store.open(big);
  try {
    const touched = await store.db.all<{ path: string; files: string }>(
      'SELECT f.path, d.files FROM files_touched f JOIN distilled_facets d ON d.exchange_n = f.exchange_n',
    );
    assert.ok(touched.length > 0);
    for (const t of touched) assert.ok(t.files.split(' ').includes(t.path), `${t.path} is not in its facet "${t.files}"`);
    const renamed = await store.db.get<{ c: number }>(
      'SELECT count(DISTINCT path) AS c FROM files_touched WHERE path NOT IN (SELECT path FROM files_touched f JOIN exchanges e ON e.n = f.exchange_n WHERE e.id NOT LIKE ?)',
      ['%~r%'],
    );
    assert.ok(renamed!.c > 0, 'some replica renames some path');
    // the full-text rows the replicas wrote can be taken out again: their kept text is the text indexed
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
    await store.db.run("DELETE FROM exchanges WHERE id LIKE '%~r%'");
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});
