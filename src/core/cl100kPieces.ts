import { classOf, LETTER, NUMBER, OTHER, SPACE, width } from './charClass';

/**
 * cl100k's pre-tokenising pattern read by character classes instead of run as a pattern, piece after piece: what
 * a token count spends most of its time on (the sticky pattern cost ~150 ms over the corpus's 6 MB of verbatim,
 * 1.4M pieces: a pattern run per piece). The pattern, from js-tiktoken's cl100k_base (`u` flag):
 *
 *   A1 's|'t|'re|'ve|'m|'ll|'d (either case)   A2 [^\r\n\p{L}\p{N}]?\p{L}+   A3 \p{N}{1,3}
 *   A4  ?[^\s\p{L}\p{N}]+[\r\n]*               A5 \s*[\r\n]+                A6 \s+(?!\S)      A7 \s+
 *
 * The first alternative that matches at a place wins, as the pattern's backtracking decides (see pieceEnd). A
 * unit test holds the two equal piece by piece on texts of every class of character.
 */

const CR = 13;
const LF = 10;
const QUOTE = 39;

/** Where the piece that starts at `at` (< text.length) ends: the pattern's match there, always one code point at least. */
export function pieceEnd(text: string, at: number): number {
  const n = text.length;
  const cp = text.codePointAt(at)!;
  const cls = classOf(cp);
  // A1: a contraction (ASCII letters only)
  if (cp === QUOTE && at + 1 < n) {
    const d = text.charCodeAt(at + 1) | 0x20;
    if (d === 115 || d === 116 || d === 109 || d === 100) return at + 2; // s t m d
    if (at + 2 < n) {
      const e = text.charCodeAt(at + 2) | 0x20;
      if ((e === 101 && (d === 114 || d === 118)) || (d === 108 && e === 108)) return at + 3; // re ve ll
    }
  }
  // A2: letters, after at most one character that is no letter, number, CR or LF
  if (cls === LETTER) return letters(text, at);
  if (cp !== CR && cp !== LF && cls !== NUMBER) {
    const next = at + width(cp);
    if (next < n && classOf(text.codePointAt(next)!) === LETTER) return letters(text, next);
  }
  // A3: up to three numbers
  if (cls === NUMBER) {
    let end = at + width(cp);
    for (let k = 1; k < 3 && end < n; k++) {
      const c = text.codePointAt(end)!;
      if (classOf(c) !== NUMBER) break;
      end += width(c);
    }
    return end;
  }
  // A4: symbols, after at most one space, then any CRs and LFs
  const symbols = cp === 32 && at + 1 < n ? at + 1 : at;
  if (symbols < n && classOf(text.codePointAt(symbols)!) === OTHER) {
    let end = symbols;
    while (end < n) {
      const c = text.codePointAt(end)!;
      if (classOf(c) !== OTHER) break;
      end += width(c);
    }
    while (end < n && (text.charCodeAt(end) === CR || text.charCodeAt(end) === LF)) end++;
    return end;
  }
  // what is left is whitespace (every \s is one UTF-16 unit): its run [at, run)
  let run = at + 1;
  while (run < n && classOf(text.charCodeAt(run)) === SPACE) run++;
  // A5: up to the run's last CR or LF
  for (let j = run - 1; j >= at; j--) {
    const c = text.charCodeAt(j);
    if (c === CR || c === LF) return j + 1;
  }
  // A6: the run, but its last space when a word follows (that space opens the word's piece); A7: the run
  return run < n && run - at >= 2 ? run - 1 : run;
}

function letters(text: string, from: number): number {
  let end = from;
  while (end < text.length) {
    const c = text.codePointAt(end)!;
    if (classOf(c) !== LETTER) break;
    end += width(c);
  }
  return end;
}
