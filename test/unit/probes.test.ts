import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';
import { appendMidLine, cleanContents, copyTree, fuzzCopy, indexRoot, rng, runCli, storeContents, writeSessions } from './probes';

/**
 * The reliability probes of issue 18 as permanent tests, small enough for CI; `test/bench/soak.ts` runs
 * them long on any corpus. Each compares the final store with a clean index of the same files.
 */

const CLI = path.resolve(__dirname, '../../../dist/cli.js');

test('kill -9 at random points while indexing: every store left behind checks ok, and the next run converges to a clean index', { timeout: 240_000 }, async () => {
  const work = tempDir();
  const root = path.join(work, 'root');
  writeSessions(root, 24, 60);
  copyTree(FIXTURES, path.join(root, 'fixtures'));
  const db = path.join(work, 'killed.sqlite');
  // kills land within the time a whole run takes here (a fixed delay missed every run on a quiet machine)
  const t0 = Date.now();
  assert.equal((await runCli(CLI, ['index', '--root', root, '--db', path.join(work, 'timing.sqlite'), '--quiet'])).code, 0);
  const runMs = Date.now() - t0;
  const random = rng(18);
  let killed = 0;
  for (let trial = 0; trial < 5; trial++) {
    // new sessions for every run: a run over only what the last one left can end before the kill (on a loaded
    // machine most did), and a kill after the end tests nothing
    writeSessions(path.join(root, `more-${trial}`), 24, 60, 24 * (trial + 1));
    const r = await runCli(CLI, ['index', '--root', root, '--db', db, '--quiet'], Math.floor((0.1 + random() * 0.8) * runMs));
    if (r.signal === 'SIGKILL') killed++;
    const check = await runCli(CLI, ['check', '--db', db]);
    assert.equal(check.code, 0, `trial ${trial}: check after the kill: ${check.stderr}`);
  }
  assert.ok(killed >= 2, `${killed} of 5 runs were killed mid-way`);
  assert.equal((await runCli(CLI, ['index', '--root', root, '--db', db, '--quiet'])).code, 0);
  const expected = await cleanContents(root, work);
  const store = await Store.open(db);
  try {
    assert.deepEqual(await storeContents(store, root), expected);
  } finally {
    await store.close();
  }
});

test('appends ending mid-line while indexing give the store a clean index of the whole files gives', { timeout: 120_000 }, async () => {
  const work = tempDir();
  const from = path.join(work, 'from');
  writeSessions(from, 3, 30);
  copyTree(FIXTURES, path.join(from, 'fixtures'), true);
  const expected = await cleanContents(from, work);
  const store = await Store.open(path.join(work, 'appended.sqlite'));
  try {
    const { contents, runs } = await appendMidLine(from, path.join(work, 'root'), store, 8, rng(7));
    assert.equal(runs, 8);
    assert.deepEqual(contents, expected);
  } finally {
    await store.close();
  }
});

test('fuzzed lines across every line format: nothing fails or throws, and indexing them in steps equals a clean index', { timeout: 120_000 }, async () => {
  const work = tempDir();
  const from = path.join(work, 'from');
  writeSessions(from, 2, 30);
  copyTree(FIXTURES, path.join(from, 'fixtures'), true);
  const fuzzed = path.join(work, 'fuzzed');
  const mutated = fuzzCopy(from, fuzzed, 0.25, rng(42));
  assert.ok(mutated > 50, `${mutated} lines mutated`);
  const clean = await Store.open(path.join(work, 'clean.sqlite'));
  let expected: string[];
  try {
    assert.deepEqual(await indexRoot(clean, fuzzed), { failed: 0 });
    expected = await storeContents(clean, fuzzed);
  } finally {
    await clean.close();
  }
  assert.ok(expected.some((l) => l.startsWith('["skipped"')), 'bad lines were counted');
  const store = await Store.open(path.join(work, 'stepped.sqlite'));
  try {
    const { contents } = await appendMidLine(fuzzed, path.join(work, 'root'), store, 4, rng(43));
    assert.deepEqual(contents, expected);
  } finally {
    await store.close();
  }
});
