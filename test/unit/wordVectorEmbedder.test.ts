import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BUILTIN_MODEL, builtinModelDir, isBuiltinModel, isHubModel, openEmbedder, resolveModelSpec } from '../../src/core/embed/openEmbedder';
import { TransformersEmbedder } from '../../src/core/embed/transformersEmbedder';
import { WordVectorEmbedder } from '../../src/core/embed/wordVectorEmbedder';
import { cosine, rejectsUnavailable, tempDir } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');
const BUILTIN = path.join(ROOT, 'dist/models/word-vectors-100d');

describe('the built-in model (word vectors shipped in the extension)', () => {
  let builtin: WordVectorEmbedder;
  let onnx: TransformersEmbedder;

  before(async () => {
    // both from the same word vectors and vocabulary: the built-in one by the build (esbuild.mjs), the ONNX one here
    const vocab = String((JSON.parse(readFileSync(path.join(BUILTIN, 'manifest.json'), 'utf8')) as { vocabLimit: number }).vocabLimit);
    const onnxDir = path.join(tempDir('onnx-twin-'), 'wink-static-100d');
    for (const args of [['scripts/buildBuiltinModel.mjs'], ['test/model/buildStaticModel.mjs', '--out', onnxDir, '--vocab', vocab]]) {
      const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${args[0]} failed: ${r.stderr || r.error?.message}`);
    }
    builtin = await WordVectorEmbedder.load(BUILTIN);
    onnx = await TransformersEmbedder.load({ model: onnxDir });
  });
  after(async () => {
    await builtin?.dispose();
    await onnx?.dispose();
  });

  test('is what `built-in` opens, found beside the code; it is neither a hub id nor a folder', async () => {
    assert.equal(builtinModelDir(), BUILTIN);
    assert.equal(isHubModel(BUILTIN_MODEL), false);
    // not even where a folder of that name exists
    const cwd = tempDir('builtin-cwd-');
    mkdirSync(path.join(cwd, BUILTIN_MODEL));
    assert.equal(resolveModelSpec(BUILTIN_MODEL, cwd), BUILTIN_MODEL);
    assert.equal(isHubModel(BUILTIN_MODEL, cwd), false);
    const opened = await openEmbedder(BUILTIN_MODEL);
    assert.equal(opened.notice, undefined);
    assert.equal(opened.embedder?.modelId, 'built-in:word-vectors-100d-200k@1');
    assert.ok(isBuiltinModel(opened.embedder!.modelId) && isBuiltinModel(BUILTIN_MODEL) && !isBuiltinModel('Xenova/all-MiniLM-L6-v2'));
    assert.equal(opened.embedder?.dimension, 100);
    await opened.embedder?.dispose();
  });

  test('gives the vectors the ONNX test model gives through transformers.js, truncation included', async () => {
    const texts = [
      'Fix the flaky login test: the session cookie expired before the retry.',
      'Why did the agent pick the 05- prefix for the offscreen PRD file?',
      "We couldn't reproduce it on Windows; the path separator broke the glob (see src/utils/paths.ts).",
      'vegetable garden',
      // words past the 512 tokens both cut at do not count: unknown words first, known ones after them
      `${'qqzx '.repeat(511)}database tomatoes cucumbers lettuce harvest`,
    ];
    const [a, b] = [await builtin.embed(texts), await onnx.embed(texts)];
    texts.forEach((t, i) => assert.ok(cosine(a[i]!, b[i]!) > 0.999, `${t.slice(0, 40)}: cosine ${cosine(a[i]!, b[i]!)}`));
    const [database] = await builtin.embed(['database']);
    assert.ok(cosine(a[4]!, database!) > 0.9999, 'only the 512th token is read of the known words');
  });

  test('places texts by meaning: unit vectors, zero for a text with no known word', async () => {
    const [garden, tomatoes, migration, none, blank] = await builtin.embed([
      'vegetable garden', 'growing tomatoes and lettuce in the backyard', 'the database migration failed', 'qqzx vvkw', '  ',
    ]);
    assert.ok(Math.abs(cosine(garden!, garden!) - 1) < 1e-5);
    assert.ok(cosine(garden!, tomatoes!) > cosine(garden!, migration!) + 0.2, `${cosine(garden!, tomatoes!)} vs ${cosine(garden!, migration!)}`);
    assert.ok(none!.every((x) => x === 0) && blank!.every((x) => x === 0));
  });

  test('prepares its word table a slice at a time, the event loop turning between slices, to the same vectors', async () => {
    const prepared = await WordVectorEmbedder.load(BUILTIN);
    try {
      let turns = 0;
      let turning = true;
      const turn = (): void => {
        turns++;
        if (turning) setImmediate(turn);
      };
      setImmediate(turn);
      await prepared.prepare();
      turning = false;
      // the table is 200,000 rows; made at once, no turn came before its end
      assert.ok(turns >= 20, `${turns} turns of the event loop while the table was made`);
      const words = readFileSync(path.join(BUILTIN, 'words.txt'), 'utf8').split('\n');
      const texts = words.filter((_, i) => i % 37 === 0).map((w, i) => `${w} ${words[(i * 7919) % words.length]}`);
      const [a, b] = [await prepared.embed(texts), await builtin.embed(texts)];
      texts.forEach((t, i) => assert.deepEqual(a[i], b[i], t));
    } finally {
      await prepared.dispose();
    }
  });

  test('finds a word by its UTF-8 bytes: the non-ASCII words of the vocabulary get their own rows', async () => {
    const words = readFileSync(path.join(BUILTIN, 'words.txt'), 'utf8').split('\n');
    const vectors = readFileSync(path.join(BUILTIN, 'vectors.bin'));
    const dim = builtin.dimension;
    const rowOf = (w: string): Float32Array => {
      const r = words.lastIndexOf(w);
      const scale = vectors.readFloatLE(words.length * dim + r * 4);
      const v = Float32Array.from({ length: dim }, (_, d) => vectors.readInt8(r * dim + d) * scale);
      const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
      return v.map((x) => x / norm);
    };
    const nonAscii = words.filter((w) => /[^\0-\x7f]/.test(w));
    assert.ok(nonAscii.length >= 3, nonAscii.join(' '));
    for (const w of [...nonAscii, 'database', 'zebra']) {
      const [v] = await builtin.embed([w]);
      assert.ok(cosine(v!, rowOf(w)) > 0.99999, `${w}: cosine ${cosine(v!, rowOf(w))}`);
    }
    // their bytes read as Latin-1 are no word, nor a lone surrogate (U+FFFD in UTF-8)
    const [latin1, surrogate] = await builtin.embed([Buffer.from(nonAscii[0]!, 'utf8').toString('latin1'), '\ud800']);
    assert.ok(latin1!.every((x) => x === 0) && surrogate!.every((x) => x === 0));
  });

  test('an embedding asked while the table is being prepared makes the rest of it at once, to the same vectors', async () => {
    const racing = await WordVectorEmbedder.load(BUILTIN);
    try {
      const preparing = racing.prepare();
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const texts = ['the database migration failed', 'vegetable garden', 'zebra'];
      assert.deepEqual(await racing.embed(texts), await builtin.embed(texts));
      await preparing;
      assert.deepEqual(await racing.embed(texts), await builtin.embed(texts));
    } finally {
      await racing.dispose();
    }
  });

  test('a missing or damaged model folder leaves search lexical with the reason; a disposed one refuses', async () => {
    await rejectsUnavailable(WordVectorEmbedder.load(path.join(tempDir('no-builtin-'), 'missing')), /cannot be read/);
    const damaged = tempDir('damaged-builtin-');
    mkdirSync(damaged, { recursive: true });
    copyFileSync(path.join(BUILTIN, 'manifest.json'), path.join(damaged, 'manifest.json'));
    copyFileSync(path.join(BUILTIN, 'words.txt'), path.join(damaged, 'words.txt'));
    writeFileSync(path.join(damaged, 'vectors.bin'), readFileSync(path.join(BUILTIN, 'vectors.bin')).subarray(0, 1000)); // a partial copy
    await rejectsUnavailable(WordVectorEmbedder.load(damaged), /is damaged/);
    const opened = await openEmbedder(BUILTIN_MODEL);
    await opened.embedder!.dispose();
    await assert.rejects(opened.embedder!.embed(['x']), /disposed/);
  });
});
