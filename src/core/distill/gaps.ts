/**
 * What lies between two words of a text, read in place by character codes (offlineRooms.ts reads every word of an
 * exchange's prose so): each is the pattern named in its comment tested on text.slice(from, to), without the slice
 * and the pattern's run for each word, which made a good part of the distiller's garbage.
 */

/** Whether text[from, to) is spaces and tabs only, at least one (`/^[ \t]+$/`). */
export function blankBetween(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** What lies between two words of one phrase: spaces, or a hyphen (ASCII or Unicode: "IP‑Adapter"; `/^(?:[ \t]+|[-‐‑])$/`). */
export function joinedBetween(text: string, from: number, to: number): boolean {
  if (to - from === 1) {
    const c = text.charCodeAt(from);
    if (c === 0x2d || c === 0x2010 || c === 0x2011) return true;
  }
  return blankBetween(text, from, to);
}

/** A letter or a digit of any script (code points, as a `u` pattern reads them). */
const LETTER_OR_DIGIT_RE = /^[\p{L}\p{N}]$/u;

/**
 * Whether text[from, to) ends a sentence, line or list item: one of `.!?:` or a line break, followed by no
 * letter or digit up to `to` (the pattern `/[.!?:\n][^\p{L}\p{N}]*$/u`, read from the end).
 */
export function endsSentence(text: string, from: number, to: number): boolean {
  for (let i = to - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 46 || c === 33 || c === 63 || c === 58 || c === 10) return true;
    if (c < 128) {
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return false;
      continue;
    }
    // a low surrogate after its high one is one code point, as the pattern reads it
    const pair = c >= 0xdc00 && c <= 0xdfff && i > from && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    if (LETTER_OR_DIGIT_RE.test(pair ? text.slice(i - 1, i + 1) : text[i]!)) return false;
    if (pair) i--;
  }
  return false;
}
