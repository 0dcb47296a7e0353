/**
 * The id of a JSON-RPC message too long to keep, read while its bytes stream past: the value of the key
 * "id" of the top-level object, in constant memory (a few counters and at most 64 bytes of the value), so
 * that a refused request is answered to the id its client waits on. Works on UTF-8 bytes: every byte that
 * matters to JSON's structure is ASCII, and no byte of a multi-byte character is ASCII.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Longer keys cannot be "id" (even written with escapes); longer values are no id a client would send. */
const MAX_KEY_BYTES = 16;
const MAX_VALUE_BYTES = 64;

export class RequestIdScanner {
  /** 0 before the top-level object, 1 inside it, more inside its values. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: the next string is a key. */
  private expectKey = false;
  /** The raw bytes of the depth-1 key being read; undefined outside keys. */
  private key: number[] | undefined;
  private lastKey = '';
  /** The raw bytes of the id's value while it is read; undefined outside it. */
  private value: number[] | undefined;
  private found: string | number | null = null;
  /** The message is not an object, or its object has ended: nothing more to read. */
  private done = false;

  /** The id found so far: a string or a number, else null (none, or not one a client could match). */
  get id(): string | number | null {
    return this.found;
  }

  push(bytes: Uint8Array): void {
    const n = bytes.length;
    let i = 0;
    while (i < n && !this.done) {
      // a long line is mostly the inside of a string: run to its next quote or backslash in a tight loop
      if (this.inString && !this.escaped && !this.key && !this.value) {
        while (i < n && bytes[i] !== QUOTE && bytes[i] !== BACKSLASH) i++;
        if (i === n) return;
      }
      this.step(bytes[i]!);
      i++;
    }
  }

  private step(b: number): void {
    // the id's value runs to the comma or brace that ends it at depth 1
    if (this.value && this.value.length <= MAX_VALUE_BYTES && !(this.depth === 1 && !this.inString && (b === COMMA || b === CLOSE_OBJECT))) this.value.push(b);
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) {
        this.inString = false;
        if (this.key) this.lastKey = this.key.length <= MAX_KEY_BYTES && parsed(`"${Buffer.from(this.key).toString()}"`) === 'id' ? 'id' : '';
        this.key = undefined;
        return;
      }
      if (this.key && this.key.length <= MAX_KEY_BYTES) this.key.push(b);
      return;
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.expectKey) this.key = [];
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (this.depth === 0 && b === OPEN_ARRAY) this.done = true;
        else if (++this.depth === 1) this.expectKey = true;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (this.depth === 1) this.endValue();
        if (--this.depth <= 0) this.done = true;
        return;
      case COMMA:
        if (this.depth === 1) {
          this.endValue();
          this.expectKey = true;
        }
        return;
      case COLON:
        if (this.depth === 1) {
          this.expectKey = false;
          if (this.lastKey === 'id') this.value = [];
        }
        return;
      default:
        // anything but whitespace before the top-level object: not an object
        if (this.depth === 0 && b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) this.done = true;
    }
  }

  /** The value of "id" is complete: keep it if it is one (a later "id" replaces it, as in JSON.parse). */
  private endValue(): void {
    if (!this.value) return;
    const v = this.value.length <= MAX_VALUE_BYTES ? parsed(Buffer.from(this.value).toString()) : undefined;
    this.found = typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null;
    this.value = undefined;
    this.lastKey = '';
  }
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
