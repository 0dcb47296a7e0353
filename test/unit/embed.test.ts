import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TransformersEmbedder } from '../../src/core/embed/transformersEmbedder';
import { createVectorTable, fromBlob, loadVectorExtension, nearest, putVector, toBlob } from '../../src/core/store/vectors';
import { RecallError } from '../../src/core/errors';
import { Db } from '../../src/core/store/db';
import { cosine, rejectsUnavailable, tempDir } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');
const MODEL = path.join(ROOT, '.cache/models/wink-static-100d');
const BUILD = path.join(ROOT, 'test/model/buildStaticModel.mjs');

/** The offline test model: built once (~5 s) by the build script, reused while its stamp is current. */
function ensureModel(): void {
  const r = spawnSync(process.execPath, [BUILD], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the test model failed: ${r.stderr || r.error?.message}`);
}

function norm(a: Float32Array): number {
  return Math.sqrt(cosine(a, a));
}

describe('TransformersEmbedder on the local static model', () => {
  let embedder: TransformersEmbedder;

  before(async () => {
    ensureModel();
    embedder = await TransformersEmbedder.load({ model: MODEL });
  });
  after(() => embedder?.dispose());

  test('loads through the local-folder path and discovers the dimension', () => {
    assert.equal(embedder.dimension, 100);
    assert.equal(embedder.modelId, 'local:wink-static-100d');
  });

  test('returns unit-length vectors, deterministically, whatever the batch around a text', async () => {
    const texts = ['Fix the login bug', 'The database migration failed on Windows paths.'];
    const first = await embedder.embed(texts);
    const again = await embedder.embed([...texts].reverse());
    const alone = await embedder.embed([texts[1]!]);
    for (const v of first) {
      assert.equal(v.length, 100);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
    }
    assert.deepEqual(again[1], first[0]);
    assert.deepEqual(again[0], first[1]);
    assert.deepEqual(alone[0], first[1]);
  });

  test('a paraphrase is nearer than an unrelated sentence', async () => {
    const triples: Array<[string, string, string]> = [
      ['fix the login bug', 'repair the authentication error', 'bake a chocolate cake'],
      ['the database query is too slow', 'sql performance problem with the select statement', 'the weather was sunny at the beach'],
      ['add a unit test for the parser', 'write tests that check the parsing code', 'the cat slept on the sofa all day'],
      ['encrypt the password before saving it', 'hash user credentials securely', 'the museum opened a new exhibit'],
    ];
    for (const [anchor, paraphrase, unrelated] of triples) {
      const [a, p, u] = await embedder.embed([anchor, paraphrase, unrelated]);
      assert.ok(cosine(a!, p!) > cosine(a!, u!) + 0.1, `"${anchor}": paraphrase ${cosine(a!, p!).toFixed(3)} vs unrelated ${cosine(a!, u!).toFixed(3)}`);
    }
  });

  test('embeds a batch of 100 texts of mixed lengths in input order', async () => {
    const words = 'the agent edited src/store.ts to add a retry loop around the flaky network call and updated the tests'.split(' ');
    const texts = Array.from({ length: 100 }, (_, i) => words.slice(0, 1 + ((i * 7) % words.length)).join(' ') + ` case ${i}`);
    const vectors = await embedder.embed(texts);
    assert.equal(vectors.length, 100);
    for (const i of [0, 13, 57, 99]) {
      const [single] = await embedder.embed([texts[i]!]);
      assert.ok(cosine(vectors[i]!, single!) > 0.99999, `text ${i} kept its place`);
    }
  });

  test('an empty list, an empty text and a text of unknown words do not break a batch', async () => {
    assert.deepEqual(await embedder.embed([]), []);
    const [empty, unknown, known] = await embedder.embed(['', 'zzqxv qqwzx', 'fix the login bug']);
    assert.ok(empty!.every((x) => x === 0), 'empty text -> zero vector');
    assert.ok(unknown!.every((x) => x === 0), 'no known word -> zero vector');
    assert.ok(Math.abs(norm(known!) - 1) < 1e-5);
  });

  test('the main thread keeps running while the worker embeds a large batch', async () => {
    const sentence = 'the indexer parsed the transcript, segmented the exchanges and wrote them to the store in one transaction';
    const texts = Array.from({ length: 10_000 }, (_, i) => `${sentence} ${i} ${sentence}`);
    let ticks = 0;
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const started = performance.now();
    const vectors = await embedder.embed(texts);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    assert.equal(vectors.length, texts.length);
    assert.ok(elapsed > 200, `the batch should take a while to mean anything (${elapsed.toFixed(0)} ms)`);
    assert.ok(ticks >= elapsed / 10 / 4, `${ticks} ticks in ${elapsed.toFixed(0)} ms`);
    // Work on the main thread would stall the timer for most of the batch; a loaded machine (other processes on
    // both cores) stalls it for a while anyway, so the bound grows with the batch's time, never below 150 ms.
    const bound = Math.max(150, elapsed / 5);
    assert.ok(maxGap < bound, `the timer stalled for ${maxGap.toFixed(0)} ms of ${elapsed.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`);
  });

  test('embedded sentences in vec0: the nearest neighbour of a paraphrase is its original', async () => {
    const db = await Db.open(path.join(tempDir('vec-'), 'vec.db'));
    try {
      await loadVectorExtension(db);
      await createVectorTable(db, 'distilled_vec', embedder.dimension);
      const docs = [
        'Fixed the login bug: the session cookie expired before the redirect.',
        'Made the retry backoff exponential, capped at five seconds.',
        'Added a polyfill for the missing segmenter on Safari.',
        'Moved the database migrations into one transaction.',
      ];
      const vectors = await embedder.embed(docs);
      await db.transaction(async () => {
        for (let i = 0; i < docs.length; i++) await putVector(db, 'distilled_vec', i + 1, vectors[i]!);
      });
      const [query] = await embedder.embed(['authentication error after the cookie timed out']);
      const hits = await nearest(db, 'distilled_vec', query!, 2);
      assert.equal(hits[0]!.rowid, 1);
    } finally {
      await db.close();
    }
  });

  test('after dispose, embed rejects with the typed error; dispose twice is fine', async () => {
    const own = await TransformersEmbedder.load({ model: MODEL });
    await own.dispose();
    await own.dispose();
    await rejectsUnavailable(own.embed(['anything']), /disposed/);
  });
});

describe('TransformersEmbedder failures reject with model-unavailable', () => {
  before(ensureModel);

  test('a missing model folder', { timeout: 30_000 }, async () => {
    const missing = path.join(tempDir('embed-'), 'no-such-model');
    await rejectsUnavailable(TransformersEmbedder.load({ model: missing }), /does not exist/);
  });

  test('a folder whose ONNX file is garbage', { timeout: 30_000 }, async () => {
    const broken = path.join(tempDir('embed-'), 'broken-model');
    mkdirSync(path.join(broken, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(path.join(MODEL, f), path.join(broken, f));
    writeFileSync(path.join(broken, 'onnx/model.onnx'), Buffer.from('this is not a protobuf'.repeat(100)));
    await rejectsUnavailable(TransformersEmbedder.load({ model: broken }), /broken-model/);
  });

  test('a folder without its ONNX file, and one with an unreadable tokenizer', { timeout: 30_000 }, async () => {
    const dir = tempDir('embed-');
    const noOnnx = path.join(dir, 'no-onnx');
    const badTokenizer = path.join(dir, 'bad-tokenizer');
    for (const d of [noOnnx, badTokenizer]) {
      mkdirSync(d, { recursive: true });
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(path.join(MODEL, f), path.join(d, f));
    }
    mkdirSync(path.join(badTokenizer, 'onnx'));
    symlinkSync(path.join(MODEL, 'onnx/model.onnx'), path.join(badTokenizer, 'onnx/model.onnx'));
    writeFileSync(path.join(badTokenizer, 'tokenizer.json'), '{"model": ');
    await rejectsUnavailable(TransformersEmbedder.load({ model: noOnnx }), /no-onnx/);
    await rejectsUnavailable(TransformersEmbedder.load({ model: badTokenizer }), /bad-tokenizer.*malformed/);
  });

  // Worker.terminate(), or a process exit, while the worker is inside a synchronous onnxruntime-node call
  // aborts the whole process. A bad tokenizer fails while the ONNX file is still loading, which made
  // exactly that happen before the worker was stopped by a message instead.
  test('a failed load and a dispose mid-batch leave a process that exits cleanly', { timeout: 60_000 }, () => {
    const badTokenizer = path.join(tempDir('embed-'), 'bad-tokenizer');
    mkdirSync(path.join(badTokenizer, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer_config.json']) copyFileSync(path.join(MODEL, f), path.join(badTokenizer, f));
    symlinkSync(path.join(MODEL, 'onnx/model.onnx'), path.join(badTokenizer, 'onnx/model.onnx'));
    writeFileSync(path.join(badTokenizer, 'tokenizer.json'), '{"model": ');
    const script = `
      const { TransformersEmbedder } = require(${JSON.stringify(path.resolve(__dirname, '../../src/core/embed/transformersEmbedder.js'))});
      (async () => {
        await TransformersEmbedder.load({ model: ${JSON.stringify(badTokenizer)} }).then(() => { throw new Error('loaded'); }, () => {});
        const e = await TransformersEmbedder.load({ model: ${JSON.stringify(MODEL)}, batchSize: 2000 });
        const pending = e.embed(Array.from({ length: 20000 }, (_, i) => 'the agent rewrote the parser ' + i)).catch(() => 'rejected');
        await new Promise((r) => setTimeout(r, 150));
        await e.dispose();
        console.log(await pending);
      })();`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 50_000 });
    assert.doesNotMatch(r.stderr, /terminate called/);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'rejected');
  });

  test('a missing worker script', async () => {
    await rejectsUnavailable(
      TransformersEmbedder.load({ model: MODEL, workerScript: path.join(tempDir('embed-'), 'nope.js') }),
      /worker script/,
    );
  });

  test('a load that takes too long', { timeout: 30_000 }, async () => {
    await rejectsUnavailable(TransformersEmbedder.load({ model: MODEL, loadTimeoutMs: 1 }), /longer than/);
  });
});

describe('sqlite-vec helpers', () => {
  test('toBlob copies only a view\'s own bytes and fromBlob reverses it', () => {
    const backing = new Float32Array([9, 9, 1.5, -2, 3.25, 9]);
    const view = backing.subarray(2, 5);
    const blob = toBlob(view);
    assert.equal(blob.byteLength, 12);
    assert.deepEqual(fromBlob(blob), new Float32Array([1.5, -2, 3.25]));
  });

  test('a vec0 KNN query (k = ?) returns the nearest vector first', async () => {
    const db = await Db.open(path.join(tempDir('vec-'), 'vec.db'));
    try {
      await loadVectorExtension(db);
      await createVectorTable(db, 'vec_test', 100);
      let seed = 7;
      const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
      const vectors = Array.from({ length: 300 }, () => Float32Array.from({ length: 100 }, random));
      await db.transaction(async () => {
        for (let i = 0; i < vectors.length; i++) await putVector(db, 'vec_test', i + 1, vectors[i]!);
      });
      const target = 123;
      const query = Float32Array.from(vectors[target - 1]!, (x) => x + random() * 0.01);
      const hits = await nearest(db, 'vec_test', query, 5);
      assert.equal(hits.length, 5);
      assert.equal(hits[0]!.rowid, target);
      for (let i = 1; i < hits.length; i++) assert.ok(hits[i]!.distance >= hits[i - 1]!.distance);
      // Replacing a row's vector moves it.
      await db.transaction(() => putVector(db, 'vec_test', 7, query));
      const again = await nearest(db, 'vec_test', query, 2);
      assert.equal(again[0]!.rowid, 7);
      assert.equal(again[0]!.distance, 0);
      assert.equal((await db.get<{ n: number }>('SELECT count(*) AS n FROM vec_test'))!.n, 300);
    } finally {
      await db.close();
    }
  });

  test('unsafe table names are refused', async () => {
    const db = await Db.open(':memory:');
    try {
      await assert.rejects(createVectorTable(db, 'x; DROP TABLE y', 4), (err: unknown) => err instanceof RecallError && err.code === 'bad-argument');
    } finally {
      await db.close();
    }
  });
});

