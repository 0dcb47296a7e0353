/**
 * Unicode classes of code points as a pattern with the `u` flag reads them (`\p{L}`, `\p{N}`, `\s`), looked up once
 * per code point of the BMP and remembered: loops that read text by character codes (cl100kPieces.ts, the
 * distiller's words) ask these instead of running a pattern per piece.
 */
export const LETTER = 1;
export const NUMBER = 2;
export const SPACE = 3;
export const OTHER = 4;

/** Classes of the BMP's code points (0: not looked up yet), filled as they are met. */
const classes = new Uint8Array(0x10000);
const LETTER_RE = /^\p{L}$/u;
const NUMBER_RE = /^\p{N}$/u;
const SPACE_RE = /^\s$/u;

export function classOf(cp: number): number {
  if (cp < 0x10000) {
    const known = classes[cp]!;
    if (known !== 0) return known;
    // a lone surrogate is a code point of its own to a pattern, of no class
    const c = cp >= 0xd800 && cp <= 0xdfff ? OTHER : lookUp(String.fromCharCode(cp));
    classes[cp] = c;
    return c;
  }
  return lookUp(String.fromCodePoint(cp));
}

function lookUp(ch: string): number {
  if (LETTER_RE.test(ch)) return LETTER;
  if (NUMBER_RE.test(ch)) return NUMBER;
  return SPACE_RE.test(ch) ? SPACE : OTHER;
}

/** UTF-16 units of a code point. */
export function width(cp: number): number {
  return cp >= 0x10000 ? 2 : 1;
}

/**
 * Whether a UTF-16 code unit is whitespace as a pattern's `\s` reads it (ECMAScript's WhiteSpace and
 * LineTerminator), by its code alone: for loops that look for runs of it at every character.
 */
export function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
