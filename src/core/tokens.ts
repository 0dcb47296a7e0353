import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };

/**
 * cl100k_base token counts (the paper's unit). js-tiktoken's BPE is quadratic in the length of a run
 * without spaces (base64, minified code: 50,000 chars take minutes), so such runs are cut into pieces
 * of MAX_RUN chars before counting; a cut run counts a token or two more per piece, which is noise at
 * corpus scale and keeps the worst case near-linear.
 */
const MAX_RUN = 256;
const LONG_RUN_RE = new RegExp(`\\S{${MAX_RUN + 1},}`, 'g');
const SPLIT_RUN_RE = new RegExp(`(\\S{${MAX_RUN}})`, 'g');

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

export function countTokens(text: string): number {
  if (!text) return 0;
  const safe = text.replace(LONG_RUN_RE, (run) => run.replace(SPLIT_RUN_RE, '$1 '));
  // special-token text (`<|endoftext|>` in a transcript about tokenisers) counts as plain text, never throws
  return enc().encode(safe, [], []).length;
}
