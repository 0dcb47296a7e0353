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
  key: string | undefined;
  expectKey: boolean;
  /** Arrays: this is the array whose elements are wanted. */
  readonly target: boolean;
}

/**
 * The span of every element of the array at `keyPath` (object keys from the root, e.g. `['messages']`) in
 * a JSON document given as lines, so an exchange built from pretty-printed records gets the lines of those
 * records. A scanner, not a parser: the document is parsed with JSON.parse; this only finds positions,
 * and returns one span per element in order (a one-line document gives every element line 1 and its own
 * byte offset). One scan's state is one object of one shape and its steps are functions of the module, not
 * closures made per document and per line: a closure called from the scan's loop is a new call target each time,
 * and V8 threw the scan's optimised code away for it file after file.
 */
export function arraySpans(lines: readonly SourceLine[], keyPath: readonly string[]): JsonSpan[] {
  const scan: Scan = { spans: [], stack: [], keyPath, openLine: 0, openOffset: 0, open: false, text: '', line: 0, lineOffset: 0, counted: 0, bytes: 0 };
  const { stack } = scan;
  for (const line of lines) {
    const text = line.text;
    scan.text = text;
    scan.line = line.line;
    scan.lineOffset = line.offset;
    // Byte offsets are counted lazily: only element starts need one, and pretty-printed ones sit near the start.
    scan.counted = 0;
    scan.bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22 /* " */) {
        const end = stringEnd(text, i);
        const top = stack.length > 0 ? stack[stack.length - 1]! : undefined;
        if (top !== undefined && !top.array && top.expectKey) {
          top.key = JSON.parse(text.slice(i, end + 1)) as string;
          top.expectKey = false;
        } else {
          startElement(scan, i);
          endElement(scan);
        }
        i = end;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        startElement(scan, i);
        const array = c === 0x5b;
        stack.push({ array, key: undefined, expectKey: !array, target: array && isTargetPath(stack, keyPath) });
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        stack.pop();
        endElement(scan);
      } else if (c === 0x2c /* , */) {
        const top = stack.length > 0 ? stack[stack.length - 1]! : undefined;
        if (top !== undefined && !top.array) top.expectKey = true;
      } else if (c !== 0x3a /* : */ && c !== 0x20 && c !== 0x09 && c !== 0x0d) {
        // a number, true, false or null: runs to the next delimiter
        startElement(scan, i);
        while (i + 1 < text.length && !isDelimiter(text.charCodeAt(i + 1))) i++;
        endElement(scan);
      }
    }
  }
  return scan.spans;
}

/** One scan of arraySpans: what it found, where it is, and the element open in the target array. */
interface Scan {
  readonly spans: JsonSpan[];
  readonly stack: Frame[];
  readonly keyPath: readonly string[];
  /** An element of the target array started (`open`), at this line and byte offset. */
  openLine: number;
  openOffset: number;
  open: boolean;
  /** The line being scanned: its text, number and first byte's offset. */
  text: string;
  line: number;
  lineOffset: number;
  /** UTF-16 units of the line counted in bytes so far, and those bytes. */
  counted: number;
  bytes: number;
}

function inTarget(stack: readonly Frame[]): boolean {
  return stack.length > 0 && stack[stack.length - 1]!.target;
}

function isTargetPath(stack: readonly Frame[], keyPath: readonly string[]): boolean {
  if (stack.length !== keyPath.length) return false;
  for (let i = 0; i < stack.length; i++) if (stack[i]!.array || stack[i]!.key !== keyPath[i]) return false;
  return true;
}

/** `,`, `]` or `}`: where a number, true, false or null ends. */
function isDelimiter(c: number): boolean {
  return c === 0x2c || c === 0x5d || c === 0x7d;
}

function offsetAt(scan: Scan, i: number): number {
  scan.bytes += Buffer.byteLength(scan.text.slice(scan.counted, i));
  scan.counted = i;
  return scan.lineOffset + scan.bytes;
}

function startElement(scan: Scan, i: number): void {
  if (inTarget(scan.stack) && !scan.open) {
    scan.openLine = scan.line;
    scan.openOffset = offsetAt(scan, i);
    scan.open = true;
  }
}

function endElement(scan: Scan): void {
  if (inTarget(scan.stack) && scan.open) {
    scan.spans.push({ line: scan.openLine, lineEnd: scan.line, offset: scan.openOffset });
    scan.open = false;
  }
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
