import type { SourceLine } from './lines';

/** Where one element of a JSON array lies in its file: 1-based lines (inclusive) and its first byte. */
export interface JsonSpan {
  readonly line: number;
  readonly lineEnd: number;
  readonly offset: number;
}

interface Frame {
  readonly array: boolean;
  /** Objects: the key whose value comes next (or is being read). */
  key?: string;
  expectKey: boolean;
  /** Arrays: this is the array whose elements are wanted. */
  readonly target: boolean;
}

/**
 * The span of every element of the array at `keyPath` (object keys from the root, e.g. `['messages']`) in
 * a JSON document given as lines, so an exchange built from pretty-printed records gets the lines of those
 * records. A scanner, not a parser: the document is parsed with JSON.parse; this only finds positions,
 * and returns one span per element in order (a one-line document gives every element line 1 and its own
 * byte offset).
 */
export function arraySpans(lines: readonly SourceLine[], keyPath: readonly string[]): JsonSpan[] {
  const spans: JsonSpan[] = [];
  const stack: Frame[] = [];
  let open: { line: number; offset: number } | undefined;
  const inTarget = (): boolean => stack.length > 0 && stack[stack.length - 1]!.target;
  const isTargetPath = (): boolean =>
    stack.length === keyPath.length && stack.every((f, i) => !f.array && f.key === keyPath[i]);

  for (const line of lines) {
    const text = line.text;
    // Byte offsets are counted lazily: only element starts need one, and pretty-printed ones sit near the start.
    let counted = 0;
    let bytes = 0;
    const offsetAt = (i: number): number => {
      bytes += Buffer.byteLength(text.slice(counted, i));
      counted = i;
      return line.offset + bytes;
    };
    const startElement = (i: number): void => {
      if (inTarget() && open === undefined) open = { line: line.line, offset: offsetAt(i) };
    };
    const endElement = (): void => {
      if (inTarget() && open !== undefined) {
        spans.push({ line: open.line, lineEnd: line.line, offset: open.offset });
        open = undefined;
      }
    };
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22 /* " */) {
        const end = stringEnd(text, i);
        const top = stack[stack.length - 1];
        if (top && !top.array && top.expectKey) {
          top.key = JSON.parse(text.slice(i, end + 1)) as string;
          top.expectKey = false;
        } else {
          startElement(i);
          endElement();
        }
        i = end;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        startElement(i);
        const array = c === 0x5b;
        stack.push({ array, expectKey: !array, target: array && isTargetPath() });
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        stack.pop();
        endElement();
      } else if (c === 0x2c /* , */) {
        const top = stack[stack.length - 1];
        if (top && !top.array) top.expectKey = true;
      } else if (c !== 0x3a /* : */ && c !== 0x20 && c !== 0x09 && c !== 0x0d) {
        // a number, true, false or null: runs to the next delimiter
        startElement(i);
        while (i + 1 < text.length && !',]}'.includes(text[i + 1]!)) i++;
        endElement();
      }
    }
  }
  return spans;
}

/** Index of the quote that closes the string opened at `start`. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) return text.length - 1; // unterminated: the document will not parse either
    let backslashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    j = q + 1;
  }
}
