import { rangeHash } from './rangeHash';
import { MadeInSteps } from './timeSlice';

/**
 * js-tiktoken's table as one string of every token's bytes (one latin1 char a byte) and an open-addressing hash
 * table over it, made in one pass over the package's base64: a Map of 100,256 strings took ~100 ms to make (a
 * buffer and a string per token, and their garbage), the first thing an MCP server's first answer waited for.
 * Made, it is ~20 ms of an MCP server's start at every start; as bytes (`cl100kTableBytes`) a server keeps it
 * between runs and takes it back (`adoptCl100kTable`) in ~2 ms.
 */
export interface Cl100k {
  readonly bytes: string;
  /** Token t's bytes are bytes[starts[t], starts[t + 1]). */
  readonly starts: Int32Array;
  readonly ranks: Int32Array;
  /** Slot -> token + 1 (0: empty), by rangeHash of the bytes; its length a power of two. */
  readonly slots: Int32Array;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The table, made a step at a time ahead (`prepareCl100k`) so that a process's first token count on the extension
 * host's thread (an appended exchange's, in the distill stage) does not hold it while the table is made, or at once
 * by `cl100k` (what is not made yet: 50-80 ms of CPU, cold, when nothing was made ahead). The same table.
 */
const table = new MadeInSteps(tableSteps);

/** The table (what `prepareCl100k` has not made yet of it, made at once). */
export function cl100k(): Cl100k {
  return table.now();
}

/** The table made ahead, a few milliseconds at a time. */
export function prepareCl100k(): Promise<Cl100k> {
  return table.ahead();
}

/** Characters of the package's base64 a step of `tableSteps` reads (~1.1 MB in all), and tokens it places. */
const CHARS_A_STEP = 1 << 16;
const TOKENS_A_STEP = 16_384;

/** The table, a step at a time. */
function* tableSteps(): Generator<void, Cl100k> {
  {
    // js-tiktoken's table (ships in the package: works offline): lines of `<prefix> <first rank> <base64 token>...`
    const source = require('js-tiktoken/ranks/cl100k_base') as { bpe_ranks: string };
    const text = source.bpe_ranks;
    const sextet = new Int8Array(128).fill(-1);
    for (let i = 0; i < 64; i++) sextet[BASE64.charCodeAt(i)] = i;
    const out = new Uint8Array(text.length); // base64 is longer than what it encodes
    const starts: number[] = [];
    const ranks: number[] = [];
    let n = 0;
    let field = 0; // 0: the line's prefix, 1: its first rank, 2 on: its tokens
    let rank = 0;
    let bits = 0;
    let held = 0;
    yield;
    for (let i = 0; i <= text.length; i++) {
      if ((i & (CHARS_A_STEP - 1)) === CHARS_A_STEP - 1) yield;
      const c = i < text.length ? text.charCodeAt(i) : 10;
      if (c === 32 || c === 10) {
        if (field >= 2) ranks.push(rank++);
        field = c === 10 ? 0 : field + 1;
        if (field === 1) rank = 0;
        if (field >= 2) starts.push(n);
        held = 0;
        bits = 0;
      } else if (field === 1) rank = rank * 10 + c - 48;
      else if (field >= 2 && c !== 61) {
        held = ((held << 6) | sextet[c]!) & 0xffff;
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          out[n++] = (held >> bits) & 255;
        }
      }
    }
    starts.push(n);
    const bytes = Buffer.from(out.buffer, 0, n).toString('latin1');
    let size = 1;
    while (size < ranks.length * 2) size *= 2;
    const slots = new Int32Array(size);
    for (let t = 0; t < ranks.length; t++) {
      let slot = rangeHash(bytes, starts[t]!, starts[t + 1]!) & (size - 1);
      while (slots[slot] !== 0) slot = (slot + 1) & (size - 1);
      slots[slot] = t + 1;
      if ((t + 1) % TOKENS_A_STEP === 0) yield;
    }
    return { bytes, starts: Int32Array.from(starts), ranks: Int32Array.from(ranks), slots };
  }
}

/** The layout's version; then the counts of tokens, bytes and slots; then starts, ranks, slots (int32) and the bytes. */
const FORMAT = 1;
const HEAD = 4;

/** The table as bytes (made first if it was not), for `adoptCl100kTable` in a later process on this machine. */
export function cl100kTableBytes(): Uint8Array {
  const { bytes, starts, ranks, slots } = cl100k();
  const ints = new Int32Array(HEAD + starts.length + ranks.length + slots.length);
  ints.set([FORMAT, ranks.length, bytes.length, slots.length]);
  ints.set(starts, HEAD);
  ints.set(ranks, HEAD + starts.length);
  ints.set(slots, HEAD + starts.length + ranks.length);
  return Buffer.concat([new Uint8Array(ints.buffer), Buffer.from(bytes, 'latin1')]);
}

/**
 * Takes the table from `cl100kTableBytes`'s bytes instead of making it, unless one is made already or the bytes
 * are not a whole table of this layout (then false: the table is made from the package when first needed). Only the
 * layout is checked (its format, counts, lengths and ends), not entry by entry: the bytes come from a kept file
 * (keptFile.ts), which gives back only what a start of this build wrote, checked whole by its SHA-1, and the loops
 * over the 362,000 starts and slots ran in V8's interpreter at every start: 12-24 ms of an MCP server's first
 * answer. Entries that are wrong but whole could come only from a bug in the writer, not from the disk.
 */
export function adoptCl100kTable(kept: Uint8Array): boolean {
  if (table.made || kept.length < HEAD * 4) return false;
  // int32 views need alignment: a kept file's data has it (keptFile.ts), other bytes are copied
  const [buffer, at] = kept.byteOffset % 4 === 0 ? [kept.buffer, kept.byteOffset] : [kept.buffer.slice(kept.byteOffset, kept.byteOffset + kept.length), 0];
  const [format, tokens, byteCount, slotCount] = new Int32Array(buffer, at, HEAD) as unknown as [number, number, number, number];
  const intCount = HEAD + tokens + 1 + tokens + slotCount;
  if (format !== FORMAT || tokens <= 0 || slotCount < 2 * tokens || (slotCount & (slotCount - 1)) !== 0 || kept.length !== intCount * 4 + byteCount) return false;
  const starts = new Int32Array(buffer, at + HEAD * 4, tokens + 1);
  const ranks = new Int32Array(buffer, at + (HEAD + tokens + 1) * 4, tokens);
  const slots = new Int32Array(buffer, at + (HEAD + 2 * tokens + 1) * 4, slotCount);
  if (starts[0] !== 0 || starts[tokens] !== byteCount) return false;
  return table.give({ bytes: Buffer.from(buffer, at + intCount * 4, byteCount).toString('latin1'), starts, ranks, slots });
}
