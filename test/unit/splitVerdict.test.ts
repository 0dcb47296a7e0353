import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './helpers';

const SCRIPT = path.resolve(__dirname, '../../../test/bench/splitVerdict.mjs');
const SEEDS = ['t-a', 't-b', 't-c'];
const ids = Array.from({ length: 60 }, (_, i) => `q${i}`);
const foldOf = (seed: string, id: string) => createHash('sha1').update(`${seed}:${id}`).digest()[0]! % 3;

function evalFile(dir: string, name: string, rank: (id: string) => number | undefined): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mode: 'bm25(v)+vec(d)', fusion: 'selective', ranks: ids.map((id) => ({ id, rank: rank(id) })) }));
  return file;
}

function verdict(...args: string[]): string {
  const r = spawnSync(process.execPath, [SCRIPT, '--seeds', SEEDS.join(','), ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('splitVerdict adopts a change only when it gains on most held-out folds and loses on none by more than a query', () => {
  const dir = tempDir();
  const base = evalFile(dir, 'base', (id) => (Number(id.slice(1)) % 4 === 0 ? 2 : 1));
  // every query at second place goes first: a gain on every split's held-out fold
  const better = evalFile(dir, 'better', () => 1);
  assert.match(verdict(base, better), /gains on 3 of 3 splits, worst loss 0\.00 .*: adopt$/m);
  // the same gains, and on the first split's held-out fold three first places lost: too much lost there
  const lost = ids.filter((id) => foldOf(SEEDS[0]!, id) === 2 && Number(id.slice(1)) % 4 !== 0).slice(0, 3);
  const mixed = evalFile(dir, 'mixed', (id) => (lost.includes(id) ? undefined : 1));
  assert.match(verdict(base, mixed), /worst loss [1-9]\.\d\d .*: do not adopt$/m);
  // hidden: no held-out column, no verdict, no row of all queries
  const hidden = verdict('--hide-held-out', base, better);
  assert.doesNotMatch(hidden, /held out \||adopt|\| all \|/);
  assert.match(hidden, /\| t-a \| \d+: /);
});
