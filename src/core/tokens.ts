import { isSpace } from './charClass';
import { type Cl100k, cl100k } from './cl100kTable';
import { pieceEnd } from './cl100kPieces';
import { detached } from './memo';
import { rangeHash } from './rangeHash';

/**
 * cl100k_base token counts (the paper's unit), the same counts as js-tiktoken's `encode(text, [], []).length`
 * (special-token text counts as plain text) at ~20x its speed. cl100k encodes each piece of its pre-tokenising
 * pattern on its own, so a text's count is the sum of its pieces' counts; a piece seen before (most words of a
 * transcript) is counted once and remembered, and a new one is merged over byte strings with the ranks of
 * js-tiktoken's own table, pair ranks kept up to date as they merge, not recomputed for every pair each step.
 *
 * BPE is quadratic in the length of a piece (a run of letters: 10,000 chars took js-tiktoken seconds, 50,000
 * minutes). So a run without whitespace longer than MAX_RUN chars is not encoded whole: its count is
 * extrapolated from SAMPLES windows of SAMPLE chars spread over it. Such runs are base64, minified code or
 * hashes; a count within a few percent (tested: under 8%) is all a corpus statistic needs, and the cost per run
 * is bounded. Ordinary text (words, paths, URLs up to MAX_RUN chars) is counted exactly.
 */
const MAX_RUN = 256;
const SAMPLE = 128;
const SAMPLES = 4;
/** Pieces remembered (a word, a run of spaces, a number); the memory is emptied when it is full (~10 MB). */
const MAX_REMEMBERED = 100_000;

/**
 * The pieces remembered and their counts: an open-addressing table by rangeHash of the piece's characters, looked
 * up where the piece lies in its text (a Map by string needed the piece cut out of the text first: a string made
 * and hashed for every piece of every text, most of them seen before). A slot holds the piece's hash, its entry + 1
 * (0: empty) and its count side by side, so a lookup reads one place of the table and the piece's characters (three
 * arrays read one after the other were most of a count's time). Emptied when full, as a Map would be.
 */
const REMEMBERED_SLOTS = 2 ** 18; // a power of two, over twice MAX_REMEMBERED
const SLOT_INTS = 3;
const rememberedSlots = new Int32Array(REMEMBERED_SLOTS * SLOT_INTS); // [hash, entry + 1, count] a slot
const rememberedPieces: string[] = [];

/** The rank of the token whose bytes are s[from, to) (latin1), or Infinity when no token has them. */
function rankOf({ bytes, starts, ranks, slots }: Cl100k, s: string, from: number, to: number): number {
  const mask = slots.length - 1;
  const length = to - from;
  for (let slot = rangeHash(s, from, to) & mask; ; slot = (slot + 1) & mask) {
    const t = slots[slot]! - 1;
    if (t < 0) return Infinity;
    const at = starts[t]!;
    if (starts[t + 1]! - at !== length) continue;
    let i = 0;
    while (i < length && bytes.charCodeAt(at + i) === s.charCodeAt(from + i)) i++;
    if (i === length) return ranks[t]!;
  }
}

/**
 * The ranks of the two-byte tokens by their bytes (first << 8 | second; NO_PAIR: no token), each looked up in the
 * table the first time it is asked for (UNKNOWN until then). Made whole from the table's 100,256 tokens it took a
 * fresh process 10-14 ms of CPU, in V8's interpreter, on the way to an MCP server's first answer; a text asks for a
 * few hundred pairs.
 */
let pairTable: { readonly of: Cl100k; readonly ranks: Int32Array } | undefined;
const UNKNOWN = -1;

/** The rank of the token whose bytes are s[at] and s[at + 1] (each below 256), or NO_PAIR when no token has them. */
function pairRankAt(cl: Cl100k, s: string, at: number): number {
  if (pairTable?.of !== cl) pairTable = { of: cl, ranks: new Int32Array(1 << 16).fill(UNKNOWN) };
  const key = (s.charCodeAt(at) << 8) | s.charCodeAt(at + 1);
  let rank = pairTable.ranks[key]!;
  if (rank === UNKNOWN) {
    rank = pairRank(cl, s, at, at + 2);
    pairTable.ranks[key] = rank;
  }
  return rank;
}

/** Tokens of one text the long-run guard left whole: the sum over its pre-tokenised pieces (cl100kPieces.ts). */
function encodeLength(text: string): number {
  const cl = cl100k();
  let n = 0;
  for (let at = 0; at < text.length; ) {
    const end = pieceEnd(text, at);
    n += pieceTokens(cl, text, at, end);
    at = end;
  }
  return n;
}

/** The tokens of the piece text[from, to), remembered. */
function pieceTokens(cl: Cl100k, text: string, from: number, to: number): number {
  const length = to - from;
  // one or two ASCII characters (a third of the pieces): one token, or two unless the pair is one
  if (length <= 2) {
    const c = text.charCodeAt(from);
    if (c < 0x80) {
      if (length === 1) return 1;
      if (text.charCodeAt(from + 1) < 0x80) return pairRankAt(cl, text, from) === NO_PAIR ? 2 : 1;
    }
  }
  // the piece's hash (rangeHash's) and whether it is ASCII, in one pass
  let h = 0x811c9dc5;
  let units = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    units |= c;
    h = Math.imul(h ^ c, 0x01000193);
  }
  const hash = h | 0;
  const mask = REMEMBERED_SLOTS - 1;
  const slots = rememberedSlots;
  let slot = hash & mask;
  for (let entry = slots[slot * SLOT_INTS + 1]! - 1; entry >= 0; entry = slots[slot * SLOT_INTS + 1]! - 1) {
    if (slots[slot * SLOT_INTS] === hash) {
      const kept = rememberedPieces[entry]!;
      if (kept.length === length) {
        let i = 0;
        while (i < length && kept.charCodeAt(i) === text.charCodeAt(from + i)) i++;
        if (i === length) return slots[slot * SLOT_INTS + 2]!;
      }
    }
    slot = (slot + 1) & mask;
  }
  const piece = text.slice(from, to);
  // an ASCII piece is its own UTF-8 (most pieces: no buffer made and decoded for them)
  const bytes = units < 0x80 ? piece : Buffer.from(piece, 'utf8').toString('latin1');
  const count = rankOf(cl, bytes, 0, bytes.length) < Infinity ? 1 : mergedLength(bytes, cl);
  if (rememberedPieces.length >= MAX_REMEMBERED) {
    slots.fill(0);
    rememberedPieces.length = 0;
    slot = hash & mask;
  }
  slots[slot * SLOT_INTS] = hash;
  slots[slot * SLOT_INTS + 1] = rememberedPieces.push(detached(piece));
  slots[slot * SLOT_INTS + 2] = count;
  return count;
}

/**
 * How many tokens byte-pair merging leaves of `bytes`: while some adjacent pair of parts is a token, the pair with
 * the lowest rank (the leftmost of equals) is merged, as js-tiktoken's bytePairMerge does. Every single byte is a
 * cl100k token, so every part left is one token. Parts and ranks live in two typed arrays reused from piece to
 * piece (arrays spliced per merge were a piece's garbage, a first index's new pieces ~36 MB of it).
 */
function mergedLength(bytes: string, cl: Cl100k): number {
  // starts[i]: where part i starts (starts[parts]: the end); rank[i]: the rank of parts i and i+1 merged (NO_PAIR: none)
  let parts = bytes.length;
  if (mergeStarts.length <= parts) {
    mergeStarts = new Int32Array(2 * (parts + 1));
    mergeRanks = new Int32Array(2 * (parts + 1));
  }
  const starts = mergeStarts;
  const rank = mergeRanks;
  for (let i = 0; i <= parts; i++) starts[i] = i;
  // the first pairs are two bytes each: looked up by their bytes, hashed only the first time
  for (let i = 0; i + 1 < parts; i++) rank[i] = pairRankAt(cl, bytes, i);
  for (;;) {
    let best = NO_PAIR;
    let at = -1;
    for (let i = 0; i + 1 < parts; i++) {
      if (rank[i]! < best) {
        best = rank[i]!;
        at = i;
      }
    }
    if (at < 0) return parts;
    // part at+1 joins part at: the starts and ranks after it move down one
    starts.copyWithin(at + 1, at + 2, parts + 1);
    rank.copyWithin(at + 1, at + 2, parts);
    parts--;
    rank[at] = at + 1 < parts ? pairRank(cl, bytes, starts[at]!, starts[at + 2]!) : NO_PAIR;
    if (at > 0) rank[at - 1] = pairRank(cl, bytes, starts[at - 1]!, starts[at + 1]!);
  }
}

/** The rank of the token bytes[from, to), or NO_PAIR when no token has those bytes. */
function pairRank(cl: Cl100k, bytes: string, from: number, to: number): number {
  const r = rankOf(cl, bytes, from, to);
  return r === Infinity ? NO_PAIR : r;
}

/** A pair that is no token (above every rank: cl100k's ranks are below 2^17). */
const NO_PAIR = 0x7fffffff;
let mergeStarts = new Int32Array(1024);
let mergeRanks = new Int32Array(1024);

export function countTokens(text: string): number {
  if (!text) return 0;
  if (!hasLongRun(text)) return encodeLength(text);
  // the text without its long runs, each run counted apart: cut only when there is one (most texts have none)
  let rest = '';
  let kept = 0;
  let estimated = 0;
  for (let at = 0; at < text.length; ) {
    if (isSpace(text.charCodeAt(at))) {
      at++;
      continue;
    }
    let end = at + 1;
    while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
    if (end - at > MAX_RUN) {
      estimated += estimatedRun(text, at, end);
      rest += text.slice(kept, at);
      kept = end;
    }
    at = end;
  }
  if (kept > 0) rest += text.slice(kept);
  else rest = text;
  return (rest ? encodeLength(rest) : 0) + estimated;
}

/**
 * Whether `text` holds a run of more than MAX_RUN characters without whitespace, read from every MAX_RUN + 1-th
 * character back to the whitespace before it instead of at every character (most texts have no such run, and
 * their words are short: a few characters read for each probe).
 */
export function hasLongRun(text: string): boolean {
  const n = text.length;
  // text[runStart, verified] holds no whitespace: a run of MAX_RUN + 1 from runStart would end at probe
  let runStart = 0;
  let verified = -1;
  for (;;) {
    const probe = runStart + MAX_RUN;
    if (probe >= n) return false;
    let at = probe;
    while (at > verified && !isSpace(text.charCodeAt(at))) at--;
    if (at === verified) return true;
    runStart = at + 1;
    verified = probe;
  }
}

/** A long run's count, extrapolated from SAMPLES windows of SAMPLE chars spread over text[from, to). */
function estimatedRun(text: string, from: number, to: number): number {
  const length = to - from;
  const step = (length - SAMPLE) / (SAMPLES - 1);
  let sampled = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const start = from + Math.round(i * step);
    sampled += encodeLength(text.slice(start, Math.min(start + SAMPLE, to)));
  }
  return Math.round((sampled * length) / (SAMPLE * SAMPLES));
}

/**
 * `text` cut so that it and a marker saying how much was left out fit `budget` tokens (cl100k); whole, with
 * no marker, when it fits. The marker names `asked` (the budget of the whole answer the text is part of) and is
 * returned apart, for the caller to place (the agent tools put it after the quoted text: it is the tool's word,
 * not the transcript's). Cut by characters in proportion first, then trimmed until both fit.
 */
export function cutToTokens(text: string, budget: number, knownTokens?: number, asked = budget): { text: string; cut: boolean; marker: string } {
  // a count stored with the text spares counting it again (the cost of a long exchange is in the count)
  const total = knownTokens ?? countTokens(text);
  if (total <= budget) return { text, cut: false, marker: '' };
  const marker = (rest: number): string => `… [cut at ${asked} tokens; ${rest} more characters]`;
  let chars = Math.floor(text.length * (budget / total));
  while (chars > 0 && countTokens(`${text.slice(0, chars)}\n${marker(text.length - chars)}`) > budget) chars = Math.floor(chars * 0.9);
  return { text: text.slice(0, chars), cut: true, marker: marker(text.length - chars) };
}
