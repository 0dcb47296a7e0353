import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import * as vm from 'node:vm';
import { requireWithCodeCache } from '../../src/codeCache';

/** A bundle in a fresh folder: `module.exports` replaced, a require relative to it, its own __dirname. */
function bundle(answer: number): { dir: string; file: string; cache: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'code-cache-'));
  writeFileSync(path.join(dir, 'data.js'), 'module.exports = 40;\n');
  const file = path.join(dir, 'bundle.js');
  writeBundle(file, answer);
  return { dir, file, cache: path.join(dir, 'code-cache') };
}

function writeBundle(file: string, answer: number): void {
  writeFileSync(file, `"use strict";\nconst base = require('./data.js');\nmodule.exports = { answer: () => ${answer}, base, dir: __dirname };\n`);
}

interface Loaded {
  answer(): number;
  base: number;
  dir: string;
}

test('a bundle runs as require would run it, and its code is read back from the cache on the next start', () => {
  const { dir, file, cache } = bundle(101);
  try {
    const first = requireWithCodeCache<Loaded>(file, cache);
    assert.equal(first.use, 'none');
    assert.deepEqual([first.exports.answer(), first.exports.base, first.exports.dir], [101, 40, dir]);
    first.keep();
    assert.equal(readdirSync(cache).length, 1, 'one file, no partial one left');
    const second = requireWithCodeCache<Loaded>(file, cache);
    assert.equal(second.use, 'read');
    assert.deepEqual([second.exports.answer(), second.exports.base, second.exports.dir], [101, 40, dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bundle rebuilt to the same length runs its new code, not the kept one (V8 alone would run the old)', () => {
  const { dir, file, cache } = bundle(101);
  try {
    requireWithCodeCache<Loaded>(file, cache).keep();
    writeBundle(file, 202);
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    const rebuilt = requireWithCodeCache<Loaded>(file, cache);
    assert.equal(rebuilt.use, 'stale');
    assert.equal(rebuilt.exports.answer(), 202);
    // why the bundle's size and time are checked: V8 takes code kept for a source of the same length
    const old = new vm.Script('(() => 101)', { filename: 'x.js' });
    (old.runInThisContext() as () => number)();
    const misled = new vm.Script('(() => 202)', { filename: 'x.js', cachedData: old.createCachedData() });
    assert.equal(misled.cachedDataRejected, false);
    assert.equal((misled.runInThisContext() as () => number)(), 101);
    rebuilt.keep();
    assert.equal(requireWithCodeCache<Loaded>(file, cache).use, 'read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a damaged cache file is not handed to V8: the bundle compiles and the cache is written again', () => {
  const { dir, file, cache } = bundle(101);
  try {
    requireWithCodeCache<Loaded>(file, cache).keep();
    const [name] = readdirSync(cache);
    const kept = path.join(cache, name!);
    const bytes = readFileSync(kept);
    bytes[bytes.length - 8] ^= 0xff;
    writeFileSync(kept, bytes);
    const damaged = requireWithCodeCache<Loaded>(file, cache);
    assert.equal(damaged.use, 'damaged');
    assert.equal(damaged.exports.answer(), 101);
    damaged.keep();
    assert.equal(requireWithCodeCache<Loaded>(file, cache).use, 'read');
    writeFileSync(kept, 'not a cache');
    assert.equal(requireWithCodeCache<Loaded>(file, cache).use, 'damaged');
    writeFileSync(kept, bytes.subarray(0, 40));
    assert.equal(requireWithCodeCache<Loaded>(file, cache).exports.answer(), 101, 'a file cut short');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a cache folder that cannot be written leaves the bundle running, without a cache', () => {
  const { dir, file } = bundle(101);
  const blocked = path.join(dir, 'a-file');
  writeFileSync(blocked, '');
  try {
    const loaded = requireWithCodeCache<Loaded>(file, blocked);
    assert.doesNotThrow(() => loaded.keep());
    assert.equal(requireWithCodeCache<Loaded>(file, blocked).use, 'none');
    assert.deepEqual(readdirSync(dir).sort(), ['a-file', 'bundle.js', 'data.js']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
