import type { FileHandle } from 'node:fs/promises';

/** One complete line of a source file with its position, the unit every adapter consumes. */
export interface SourceLine {
  readonly text: string;
  /** 1-based line number in the file. */
  readonly line: number;
  /** Byte offset of the line's first byte. */
  readonly offset: number;
  /** Byte length including the line terminator. */
  readonly bytes: number;
}

export interface LineChunk {
  readonly lines: SourceLine[];
  /** Byte offset just after the last complete line returned. */
  readonly endOffset: number;
  /** Line number the next line will have. */
  readonly nextLine: number;
  /** A trailing line without its terminator was held back (a writer is mid-line). */
  readonly heldBackPartial: boolean;
}

/** Reads an open file from byte `offset` to `size` (its size when stat'ed), or to its end if it shrank since. */
export async function readFrom(handle: FileHandle, offset: number, size: number): Promise<Buffer> {
  const length = Math.max(0, size - offset);
  const buf = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buf, read, length - read, offset + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read === length ? buf : buf.subarray(0, read);
}

/**
 * Splits a buffer into lines. With `holdBackPartial`, a last line that lacks its '\n' is returned only
 * when `isComplete` accepts it (a JSONL record that parses), otherwise it waits for the next run.
 */
export function splitLines(
  buf: Buffer,
  startOffset: number,
  startLine: number,
  options: { holdBackPartial: boolean; isComplete?: (text: string) => boolean },
): LineChunk {
  const lines: SourceLine[] = [];
  let pos = 0;
  let lineNo = startLine;
  let heldBackPartial = false;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    const end = nl === -1 ? buf.length : nl;
    let text = buf.toString('utf8', pos, end);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (nl === -1 && options.holdBackPartial && !(options.isComplete?.(text) ?? false)) {
      heldBackPartial = text.length > 0;
      break;
    }
    const bytes = (nl === -1 ? buf.length : nl + 1) - pos;
    lines.push({ text, line: lineNo, offset: startOffset + pos, bytes });
    lineNo++;
    pos += bytes;
  }
  return { lines, endOffset: startOffset + pos, nextLine: lineNo, heldBackPartial };
}

/** `isComplete` for JSONL: a last line without its newline counts once it parses (its writer has finished it). */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
