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
 * and hashed for every piece of every text, most of them seen before). Emptied when full, as a Map would be.
 */
const REMEMBERED_SLOTS = 2 ** 18; // a power of two, over twice MAX_REMEMBERED
const rememberedSlots = new Int32Array(REMEMBERED_SLOTS); // slot -> entry + 1 (0: empty)
const rememberedPieces: string[] = [];
/** Entry -> its piece's hash (as int32: no heap number per entry). */
const rememberedHashes = new Int32Array(MAX_REMEMBERED);
const rememberedCounts: number[] = [];

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
  const hash = rangeHash(text, from, to) | 0;
  const length = to - from;
  const mask = REMEMBERED_SLOTS - 1;
  let slot = hash & mask;
  for (let entry = rememberedSlots[slot]! - 1; entry >= 0; entry = rememberedSlots[slot]! - 1) {
    const kept = rememberedPieces[entry]!;
    if (rememberedHashes[entry] === hash && kept.length === length && text.startsWith(kept, from)) return rememberedCounts[entry]!;
    slot = (slot + 1) & mask;
  }
  const piece = text.slice(from, to);
  const bytes = Buffer.from(piece, 'utf8').toString('latin1');
  const count = rankOf(cl, bytes, 0, bytes.length) < Infinity ? 1 : mergedLength(bytes, cl);
  if (rememberedPieces.length >= MAX_REMEMBERED) {
    rememberedSlots.fill(0);
    rememberedPieces.length = 0;
    rememberedCounts.length = 0;
    slot = hash & mask;
  }
  rememberedHashes[rememberedPieces.length] = hash;
  rememberedSlots[slot] = rememberedPieces.push(detached(piece));
  rememberedCounts.push(count);
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
  const pairRank = (i: number): number => {
    if (i + 1 >= parts) return NO_PAIR;
    const r = rankOf(cl, bytes, starts[i]!, starts[i + 2]!);
    return r === Infinity ? NO_PAIR : r;
  };
  for (let i = 0; i + 1 < parts; i++) rank[i] = pairRank(i);
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
    rank[at] = pairRank(at);
    if (at > 0) rank[at - 1] = pairRank(at - 1);
  }
}

/** A pair that is no token (above every rank: cl100k's ranks are below 2^17). */
const NO_PAIR = 0x7fffffff;
let mergeStarts = new Int32Array(1024);
let mergeRanks = new Int32Array(1024);

export function countTokens(text: string): number {
  if (!text) return 0;
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
