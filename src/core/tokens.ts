import { detached } from './memo';

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
/** A run starts after a space or at the start: a run's later characters are never tried as starts (quadratic). */
const LONG_RUN_RE = new RegExp(`(?<!\\S)\\S{${MAX_RUN + 1},}`, 'g');
/** Pieces remembered (a word, a run of spaces, a number); the memory is emptied when it is full (~10 MB). */
const MAX_REMEMBERED = 100_000;

interface Cl100k {
  /** Each token's bytes, as a latin1 string (one char a byte) -> its rank. */
  readonly ranks: Map<string, number>;
  readonly pattern: RegExp;
}

let table: Cl100k | undefined;
const remembered = new Map<string, number>();

function cl100k(): Cl100k {
  if (!table) {
    // js-tiktoken's table (ships in the package: works offline): lines of `<prefix> <first rank> <base64 token>...`
    const source = require('js-tiktoken/ranks/cl100k_base') as { pat_str: string; bpe_ranks: string };
    const ranks = new Map<string, number>();
    for (const line of source.bpe_ranks.split('\n')) {
      const fields = line.split(' ');
      if (fields.length < 3) continue;
      const first = Number.parseInt(fields[1]!, 10);
      for (let i = 2; i < fields.length; i++) ranks.set(Buffer.from(fields[i]!, 'base64').toString('latin1'), first + i - 2);
    }
    table = { ranks, pattern: new RegExp(source.pat_str, 'gu') };
  }
  return table;
}

/** Tokens of one text the long-run guard left whole: the sum over its pre-tokenised pieces. */
function encodeLength(text: string): number {
  const { ranks, pattern } = cl100k();
  let n = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const piece = m[0];
    let count = remembered.get(piece);
    if (count === undefined) {
      const bytes = Buffer.from(piece, 'utf8').toString('latin1');
      count = ranks.has(bytes) ? 1 : mergedLength(bytes, ranks);
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(detached(piece), count);
    }
    n += count;
  }
  return n;
}

/**
 * How many tokens byte-pair merging leaves of `bytes`: while some adjacent pair of parts is a token, the pair with
 * the lowest rank (the leftmost of equals) is merged, as js-tiktoken's bytePairMerge does. Every single byte is a
 * cl100k token, so every part left is one token.
 */
function mergedLength(bytes: string, ranks: ReadonlyMap<string, number>): number {
  // starts[i]: where part i starts (the last entry is the end); rank[i]: the rank of parts i and i+1 merged
  const starts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) starts.push(i);
  const pairRank = (i: number): number => (i + 2 < starts.length ? (ranks.get(bytes.slice(starts[i], starts[i + 2])) ?? Infinity) : Infinity);
  const rank: number[] = [];
  for (let i = 0; i + 1 < starts.length; i++) rank.push(pairRank(i));
  for (;;) {
    let best = Infinity;
    let at = -1;
    for (let i = 0; i < rank.length; i++) {
      if (rank[i]! < best) {
        best = rank[i]!;
        at = i;
      }
    }
    if (at < 0) return starts.length - 1;
    starts.splice(at + 1, 1);
    rank.splice(at + 1, 1);
    rank[at] = pairRank(at);
    if (at > 0) rank[at - 1] = pairRank(at - 1);
  }
}

export function countTokens(text: string): number {
  if (!text) return 0;
  let estimated = 0;
  const rest = text.replace(LONG_RUN_RE, (run) => {
    const step = (run.length - SAMPLE) / (SAMPLES - 1);
    let sampled = 0;
    for (let i = 0; i < SAMPLES; i++) sampled += encodeLength(run.slice(Math.round(i * step), Math.round(i * step) + SAMPLE));
    estimated += Math.round((sampled * run.length) / (SAMPLE * SAMPLES));
    return '';
  });
  return (rest ? encodeLength(rest) : 0) + estimated;
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
