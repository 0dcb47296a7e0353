/**
 * Which pairs of adjacent characters a text holds, by the low byte of each, so that a list of literals can be
 * looked for in it without a scan of the whole text for each one. A literal the text holds has each of its pairs in
 * the set; one with a pair missing is not there, and only the others are looked for (`includes`). Characters above
 * 0xff share a byte with others: the set may say a pair is there when it is not (then `includes` answers), never
 * the reverse. Redaction looks for ~80 literals in every text it is given, most of them absent (each absent one
 * was a scan of the whole text).
 */
export class PairSet {
  /**
   * The set's generation at each pair (first << 8 | second), then at each single character (a one-character literal
   * has no pair): a place holds the current generation when the text holds it, so a new text needs no clearing.
   */
  private readonly seen = new Uint16Array(PAIRS + 256);
  private generation = 0;

  /** The set made again for `text` (what it held before is forgotten). */
  of(text: string): this {
    const seen = this.seen;
    if (++this.generation > 0xffff) {
      seen.fill(0);
      this.generation = 1;
    }
    const generation = this.generation;
    if (text.length === 0) return this;
    let prev = text.charCodeAt(0) & 0xff;
    seen[PAIRS + prev] = generation;
    for (let i = 1; i < text.length; i++) {
      const c = text.charCodeAt(i) & 0xff;
      seen[(prev << 8) | c] = generation;
      seen[PAIRS + c] = generation;
      prev = c;
    }
    return this;
  }

  /** False when the literal whose keys `literalKeys` made cannot be in the text; true when it may be. */
  mayHold(keys: Int32Array): boolean {
    const seen = this.seen;
    const generation = this.generation;
    for (let i = 0; i < keys.length; i++) if (seen[keys[i]!] !== generation) return false;
    return true;
  }
}

const PAIRS = 1 << 16;

/** The keys `PairSet.mayHold` reads for `literal`: its pairs', or its one character's. */
export function literalKeys(literal: string): Int32Array {
  if (literal.length <= 1) return literal.length === 0 ? new Int32Array(0) : Int32Array.of(PAIRS + (literal.charCodeAt(0) & 0xff));
  const keys = new Int32Array(literal.length - 1);
  for (let i = 0; i + 1 < literal.length; i++) keys[i] = ((literal.charCodeAt(i) & 0xff) << 8) | (literal.charCodeAt(i + 1) & 0xff);
  return keys;
}
