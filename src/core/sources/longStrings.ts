/**
 * Shortens the long strings of a JSON text as its bytes stream through, so a document too large to hold (a
 * Cline task history written on one line, tens of MB of base64 screenshots in it) can still be parsed. A
 * string over KEPT_STRING_BYTES keeps its head and ends in a marker saying how much was left out; everything
 * else passes unchanged, so the result parses as JSON whenever the input does. Adapters keep at most 20,000
 * characters of a tool's output, so what is left out was never indexed anyway: images, blobs, giant logs.
 *
 * Byte-level and UTF-8 safe: `"` and `\` never occur inside a multi-byte sequence, and a cut is made only at
 * the start of a character and outside an escape.
 */
export const KEPT_STRING_BYTES = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;

export class LongStringElider {
  private inString = false;
  /** Characters of an escape still to come: 1 after `\`, 4 after `\u`. */
  private escape = 0;
  private stringBytes = 0;
  private eliding = false;
  private elidedBytes = 0;

  /** The bytes of `piece` to keep, with markers where long strings were cut. */
  push(piece: Buffer): Buffer {
    const out: Buffer[] = [];
    let keptFrom = 0;
    for (let i = 0; i < piece.length; i++) {
      const b = piece[i]!;
      if (!this.inString) {
        if (b === QUOTE) {
          this.inString = true;
          this.stringBytes = 0;
        }
        continue;
      }
      const escaped = this.escape > 0;
      if (escaped) {
        this.escape = this.escape === 1 && b === U ? 4 : this.escape - 1;
      } else if (b === QUOTE) {
        if (this.eliding) {
          out.push(Buffer.from(` [${formatBytes(this.elidedBytes)} more not read]`, 'utf8'));
          keptFrom = i; // the closing quote and what follows are kept
          this.eliding = false;
        }
        this.inString = false;
        continue;
      } else if (b === BACKSLASH) {
        this.escape = 1;
      }
      if (this.eliding) {
        // skip to the next byte that can end the string or start an escape (base64 has neither)
        const next = this.escape > 0 ? i + 1 : nextSpecial(piece, i + 1);
        this.elidedBytes += next - i;
        i = next - 1;
        continue;
      }
      this.stringBytes++;
      // cut before a character's first byte (not 10xxxxxx) that is not inside an escape (`\` itself may go)
      if (this.stringBytes > KEPT_STRING_BYTES && !escaped && (b & 0xc0) !== 0x80) {
        out.push(piece.subarray(keptFrom, i));
        this.eliding = true;
        this.elidedBytes = 1;
      }
    }
    if (!this.eliding) out.push(piece.subarray(keptFrom));
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }
}

function nextSpecial(piece: Buffer, from: number): number {
  const quote = piece.indexOf(QUOTE, from);
  const backslash = piece.indexOf(BACKSLASH, from);
  if (quote === -1) return backslash === -1 ? piece.length : backslash;
  return backslash === -1 ? quote : Math.min(quote, backslash);
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}
