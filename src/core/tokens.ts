import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };

/**
 * cl100k_base token counts (the paper's unit). js-tiktoken's BPE is worse than quadratic in the length of
 * a pre-token (a run of letters: 10,000 chars take seconds, 50,000 minutes; splitting such runs into
 * 256-char pieces still left 200 KB of one letter at 18 s). So a run without whitespace longer than
 * MAX_RUN chars is not encoded whole: its count is extrapolated from SAMPLES windows of SAMPLE chars
 * spread over it. Such runs are base64, minified code or hashes; a count within a few percent (tested:
 * under 8%) is all a corpus statistic needs, and the cost per run is bounded. Ordinary text (words,
 * paths, URLs up to MAX_RUN chars) is counted exactly.
 */
const MAX_RUN = 256;
const SAMPLE = 128;
const SAMPLES = 4;
const LONG_RUN_RE = new RegExp(`\\S{${MAX_RUN + 1},}`, 'g');

let encoder: Tiktoken | undefined;

function enc(): Tiktoken {
  if (!encoder) {
    // js-tiktoken ships CommonJS builds beside its ESM types; require keeps this module CommonJS.
    const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: TiktokenBPE) => Tiktoken };
    const ranks = require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE;
    encoder = new lite.Tiktoken(ranks);
  }
  return encoder;
}

/** Special-token text (`<|endoftext|>` in a transcript about tokenisers) counts as plain text, never throws. */
function encodeLength(text: string): number {
  return enc().encode(text, [], []).length;
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
