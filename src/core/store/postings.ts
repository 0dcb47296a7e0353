/**
 * The lexicon's byte streams (lexicon.ts): a segment's lengths and a term's postings in a segment are both (row
 * number, value) pairs by row number, as unsigned LEB128 varints, each row number a delta from the one before.
 * Everything that reads or writes such a stream is here; the segments and their merges are in lexicon.ts.
 */

/** Where the last readVarint stopped (module state: returning the position with the value would allocate). */
let varintEnd = 0;

/** The unsigned LEB128 varint at `at` of `bytes`; sets varintEnd past it. Most are one byte: the loop never runs. */
function readVarint(bytes: Uint8Array, at: number): number {
  let b = bytes[at++]!;
  let value = b & 127;
  for (let scale = 128; b & 128; scale *= 128) {
    b = bytes[at++]!;
    value += (b & 127) * scale;
  }
  varintEnd = at;
  return value;
}

/**
 * A stream's pairs one at a time, in order: after each next() that returns true, `row` is the pair's row number
 * (the deltas summed) and `value` its second number (a count, or a length in words); `pairs` counts them. What
 * the merges, the lengths and the deletions read a stream with: a reader stops where it likes, unlike forEachPair.
 * The two loops a reader waits on (addLivePostings, placeLengths) walk by hand.
 */
export class PairWalker {
  row = 0;
  value = 0;
  pairs = 0;
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  next(): boolean {
    if (this.at >= this.bytes.length) return false;
    this.row += readVarint(this.bytes, this.at);
    this.value = readVarint(this.bytes, varintEnd);
    this.at = varintEnd;
    this.pairs++;
    return true;
  }

  /**
   * Walks past the last pair, its values skipped, not decoded; returns `row`, the last row number. Through next(),
   * a fresh process's first read of 250,000 exchanges' lengths took ~6 ms more CPU (issue 42's first search).
   */
  toEnd(): number {
    const bytes = this.bytes;
    let n = this.row;
    let pairs = this.pairs;
    let i = this.at;
    while (i < bytes.length) {
      n += readVarint(bytes, i);
      i = varintEnd;
      while (bytes[i++]! & 128);
      pairs++;
    }
    this.row = n;
    this.pairs = pairs;
    this.at = i;
    return n;
  }
}

/** Calls `each` with every pair of a varint stream (row number deltas resolved: `first` is absolute). */
export function forEachPair(bytes: Uint8Array, each: (first: number, second: number) => void): void {
  for (const pairs = new PairWalker(bytes); pairs.next(); ) each(pairs.row, pairs.value);
}

/** The largest row number of a varint stream of pairs (the last: row numbers ascend, as deltas). */
export function lastRowNumber(bytes: Uint8Array): number {
  return new PairWalker(bytes).toEnd();
}

/**
 * A segment's lengths put by row number: each pair `dead` does not name sets `segmentOf` to `segment` and `lengthOf`
 * to its length (readLexiconDocs, a newer segment read after an older). Returns how many row numbers were placed for
 * the first time and the change to the sum of the lengths, or undefined as soon as a live row number lies beyond the
 * arrays (what was placed then is incomplete). Walked by hand, not through PairWalker or forEachPair: a fresh process
 * reads 250,000 exchanges' lengths before its first search (issue 42), and a call per pair took ~5 ms more CPU there
 * (forEachPair's callback: 26-40 ms against 19-28). Adds to `partial` the segments found to hold a dead document: this
 * one when `dead` names one of its pairs, an older one whose document this one holds again.
 */
export function placeLengths(
  bytes: Uint8Array,
  segment: number,
  segmentOf: Int32Array,
  lengthOf: Uint32Array,
  dead?: (n: number) => boolean,
  partial?: Set<number>,
): { added: number; lengthChange: number } | undefined {
  let added = 0;
  let lengthChange = 0;
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    n += readVarint(bytes, i);
    const words = readVarint(bytes, varintEnd);
    i = varintEnd;
    if (dead?.(n)) {
      partial?.add(segment);
      continue;
    }
    if (n >= segmentOf.length) return undefined;
    if (segmentOf[n] === 0) added++;
    else {
      lengthChange -= lengthOf[n]!;
      partial?.add(segmentOf[n]!);
    }
    segmentOf[n] = segment;
    lengthOf[n] = words;
    lengthChange += words;
  }
  return { added, lengthChange };
}

/** Chunks' pairs, flat, in order of the chunks. */
export function chunksAsPairs(chunks: readonly Uint8Array[]): number[] {
  const flat: number[] = [];
  for (const chunk of chunks) forEachPair(chunk, (n, count) => flat.push(n, count));
  return flat;
}

/**
 * Flat (row number, value) pairs as a varint stream by row number (deltas). Segments are read oldest first and
 * usually hold later row numbers than older ones: then the pairs are in order already and not sorted.
 */
export function encodePairs(flat: readonly number[]): Buffer {
  return encodePairsInto(new VarintWriter(), flat).finish();
}

/** encodePairs's stream, written at the end of `out`. */
export function encodePairsInto(out: VarintWriter, flat: readonly number[]): VarintWriter {
  let ordered = true;
  for (let i = 2; i < flat.length && ordered; i += 2) ordered = flat[i]! > flat[i - 2]!;
  let pairs = flat;
  if (!ordered) {
    const order = Array.from({ length: flat.length / 2 }, (_, i) => i).sort((a, b) => flat[2 * a]! - flat[2 * b]!);
    pairs = order.flatMap((i) => [flat[2 * i]!, flat[2 * i + 1]!]);
  }
  let previous = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    out.push(pairs[i]! - previous).push(pairs[i + 1]!);
    previous = pairs[i]!;
  }
  return out;
}

/**
 * A term's postings chunks (oldest segment first) written as one stream at the end of `out`: each chunk's bytes
 * as they are, its first row number made a delta from the chunk before's last. That is encodePairs's stream of
 * their pairs whenever each chunk's row numbers all follow the one before's (a merge of segments written in
 * turn); otherwise nothing is written. Returns how many pairs were written, 0 for none.
 */
export function joinChunksInto(out: VarintWriter, chunks: readonly Uint8Array[]): number {
  let pairs = 0;
  let last = 0;
  const start = out.size;
  for (const [c, chunk] of chunks.entries()) {
    if (chunk.length === 0) continue;
    const first = readVarint(chunk, 0);
    if (c > 0 && first <= last) {
      out.truncate(start);
      return 0;
    }
    out.push(first - last).pushBytes(chunk, varintEnd);
    const walked = new PairWalker(chunk);
    last = walked.toEnd();
    pairs += walked.pairs;
  }
  return pairs;
}

/**
 * A postings chunk without the pairs `dead` names: as stored when none is, empty when all are. Written as bytes
 * again, not held as pairs of numbers (a JavaScript number each): a migration that recorded 28,834 of 250,000
 * exchanges dead peaked at 691 MB that way, 582 MB this way, the merges' CPU the same.
 */
export function liveChunk(bytes: Uint8Array, dead: (n: number) => boolean): Uint8Array {
  let any = false;
  for (const pairs = new PairWalker(bytes); !any && pairs.next(); ) any = dead(pairs.row);
  if (!any) return bytes;
  const out = new VarintWriter(bytes.length);
  let previous = 0;
  for (const pairs = new PairWalker(bytes); pairs.next(); ) {
    if (dead(pairs.row)) continue;
    out.push(pairs.row - previous).push(pairs.value);
    previous = pairs.row;
  }
  return out.finish();
}

/**
 * A search's hot loop (lexiconBm25.ts, gather): adds the live postings of one chunk of `segment` to `counts` (by
 * row number) and lists the row numbers seen for the first time in `holding` from `held` on; returns the new
 * `held`. A posting is live while its exchange's segment (`segmentOf`) is the chunk's. Not through forEachPair:
 * its callback, shared with the merges, made the loop ~0.3 ms slower a search at 50K exchanges (a megamorphic
 * call per posting).
 */
export function addLivePostings(bytes: Uint8Array, segment: number, segmentOf: Int32Array, counts: Float64Array, holding: Int32Array, held: number): number {
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    n += readVarint(bytes, i);
    const count = readVarint(bytes, varintEnd);
    i = varintEnd;
    if (segmentOf[n] !== segment) continue;
    if (counts[n] === 0) holding[held++] = n;
    counts[n] += count;
  }
  return held;
}

/**
 * A search's hot loop where no posting can be dead (lexiconBm25.ts): the pairs of one chunk put in `rows` (row numbers)
 * and `values` (counts) from `at` on; returns where they end. No check of each row number's segment, no counts by row
 * number: two reads and a write at scattered places a posting fewer than addLivePostings and its scoring pass.
 */
export function decodePairs(bytes: Uint8Array, rows: Int32Array, values: Int32Array, at: number): number {
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    n += readVarint(bytes, i);
    values[at] = readVarint(bytes, varintEnd);
    rows[at++] = n;
    i = varintEnd;
  }
  return at;
}

/** Unsigned LEB128 varints into a growing buffer. */
export class VarintWriter {
  private bytes: Uint8Array;
  private length = 0;

  constructor(capacity = 64) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Bytes written so far. */
  get size(): number {
    return this.length;
  }

  push(value: number): this {
    this.reserve(10);
    let v = value;
    while (v >= 128) {
      this.bytes[this.length++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.bytes[this.length++] = v;
    return this;
  }

  /** `bytes` from `from` on, as they are. */
  pushBytes(bytes: Uint8Array, from = 0): this {
    this.reserve(bytes.length - from);
    this.bytes.set(from === 0 ? bytes : bytes.subarray(from), this.length);
    this.length += bytes.length - from;
    return this;
  }

  /** Forgets what was written from `size` on. */
  truncate(size: number): void {
    this.length = size;
  }

  /** A copy of what was written. */
  finish(): Buffer {
    return Buffer.from(this.bytes.subarray(0, this.length));
  }

  /** What was written, not copied: valid until the next write. */
  view(): Buffer {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.length);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < this.length + more) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}
