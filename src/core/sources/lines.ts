import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { RecallError } from '../errors';
import { LongStringElider } from './longStrings';

/** One complete line of a source file with its position, the unit every adapter consumes. */
export interface SourceLine {
  readonly text: string;
  /** 1-based line number in the file. */
  readonly line: number;
  /** Byte offset of the line's first byte. */
  readonly offset: number;
  /** Byte length including the line terminator. */
  readonly bytes: number;
  /** Longer than MAX_LINE_BYTES: its text was never read (it is empty); adapters skip it as oversized. */
  readonly oversized?: true;
}

/**
 * Records (a database's rows) as the numbered lines a parse takes: one JSON text per line, numbered and
 * offset as if they were one file that starts at `line`/`offset`.
 */
export function recordLines(records: readonly unknown[], line = 1, offset = 0): SourceLine[] {
  return records.map((r, i) => {
    const text = JSON.stringify(r);
    const bytes = Buffer.byteLength(text) + 1;
    const out: SourceLine = { text, line: line + i, offset, bytes };
    offset += bytes;
    return out;
  });
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

/**
 * Opens a transcript for reading, with its stat. Never blocks: a FIFO opened for reading waits for a writer
 * forever (and holds one of libuv's few file system threads while it does), so the open is non-blocking and
 * anything but a regular file (a FIFO, a device, a socket put where a transcript was) is refused.
 */
export async function openTranscript(file: string): Promise<{ handle: FileHandle; st: Stats }> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new RecallError('source-unreadable', `${file} is not a regular file (${fileKind(st)}); it is not read.`);
    return { handle, st };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Side files an agent keeps beside its transcripts (task metadata, a workspace's folder) are small. */
export const MAX_SIDE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The text of a file an adapter reads beside a transcript, opened like a transcript (a FIFO or a device is
 * refused, never waited on) and read in bounded pieces: at most its first `maxBytes` bytes.
 */
export async function readSideFile(file: string, maxBytes = MAX_SIDE_FILE_BYTES): Promise<string> {
  const { handle, st } = await openTranscript(file);
  try {
    const length = Math.min(st.size, maxBytes);
    const pieces: Buffer[] = [];
    for (let pos = 0; pos < length; ) {
      const piece = await readPiece(handle, pos, Math.min(READ_PIECE_BYTES, length - pos));
      if (piece.length === 0) break;
      pieces.push(piece);
      pos += piece.length;
    }
    return withoutBom(Buffer.concat(pieces).toString('utf8'));
  } finally {
    await handle.close();
  }
}

/** readSideFile for an adapter that must read synchronously (inside a parse): the same checks and bound. */
export function readSideFileSync(file: string, maxBytes = MAX_SIDE_FILE_BYTES): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RecallError('source-unreadable', `${file} is not a regular file (${fileKind(st)}); it is not read.`);
    const buf = Buffer.allocUnsafe(Math.min(st.size, maxBytes));
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, Math.min(READ_PIECE_BYTES, buf.length - read), read);
      if (n === 0) break;
      read += n;
    }
    return withoutBom(buf.toString('utf8', 0, read));
  } finally {
    closeSync(fd);
  }
}

function withoutBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  return 'not a file';
}

/**
 * Bytes asked of one read call. A file is read in pieces of this size, never as one buffer: a read (or a
 * Buffer) of 2 GiB or more aborts the process in Node's fs binding, and the whole file is never needed at once.
 */
export const READ_PIECE_BYTES = 8 * 1024 * 1024;
/**
 * A line longer than this many bytes is skipped (counted) without being decoded or kept. Adapters skip lines
 * over MAX_LINE_CHARS (8M UTF-16 units) too; this byte bound is four times that, so no line they would have
 * parsed is lost here and no line is ever held whole beyond it.
 */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

export interface LineOptions {
  readonly holdBackPartial: boolean;
  readonly isComplete?: (text: string) => boolean;
  /**
   * JSON text: a line that outgrows this many bytes goes on with its long strings shortened (longStrings.ts)
   * instead of being lost, and is skipped only if it still outgrows MAX_LINE_BYTES. A one-line JSON document
   * (Cline's history) is cut past MAX_LINE_BYTES, a JSONL record past what adapters parse (a pasted image):
   * `shortenStringsPast` below.
   */
  readonly shortenStringsPast?: number;
}

/** What was read of a file: its lines, and the first and last pieces' bytes for hashing without a re-read. */
export interface ReadLines {
  readonly chunk: LineChunk;
  /** The bytes of [start, start + length) when a retained piece holds them all. */
  bytesAt(start: number, length: number): Buffer | undefined;
}

/**
 * Reads an open file from byte `offset` to `size` (its size when stat'ed, or its end if it shrank since) in
 * bounded pieces, split into lines as they arrive.
 */
export async function readLines(
  handle: FileHandle,
  offset: number,
  size: number,
  startLine: number,
  options: LineOptions,
): Promise<ReadLines> {
  const lines = new LineAssembler(offset, startLine, options.shortenStringsPast);
  const kept: Array<{ start: number; buf: Buffer }> = [];
  let pos = offset;
  while (pos < size) {
    const piece = await readPiece(handle, pos, Math.min(READ_PIECE_BYTES, size - pos));
    if (piece.length === 0) break;
    lines.push(piece);
    // only the first and the latest piece are kept: the head and anchor hashes need at most those
    if (kept.length === 2) kept.pop();
    kept.push({ start: pos, buf: piece });
    pos += piece.length;
  }
  const chunk = lines.finish(options);
  return {
    chunk,
    bytesAt(start, length) {
      const p = kept.find((k) => start >= k.start && start + length <= k.start + k.buf.length);
      return p?.buf.subarray(start - p.start, start - p.start + length);
    },
  };
}

async function readPiece(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buf, read, length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read === length ? buf : buf.subarray(0, read);
}

/**
 * Splits a buffer into lines. With `holdBackPartial`, a last line that lacks its '\n' is returned only
 * when `isComplete` accepts it (a JSONL record that parses), otherwise it waits for the next run.
 */
export function splitLines(buf: Buffer, startOffset: number, startLine: number, options: LineOptions): LineChunk {
  const lines = new LineAssembler(startOffset, startLine, options.shortenStringsPast);
  lines.push(buf);
  return lines.finish(options);
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Turns pieces of a file into lines. A line may span pieces; one that grows past MAX_LINE_BYTES is dropped
 * byte by byte as it arrives and comes out as an `oversized` line with empty text. A UTF-8 byte-order mark
 * at the start of the file is not part of the first line's text.
 */
class LineAssembler {
  private readonly lines: SourceLine[] = [];
  /** What is kept of the current (unfinished) line, while it is within bounds. */
  private parts: Buffer[] = [];
  private keptBytes = 0;
  /** Bytes of the current line in the file. */
  private partBytes = 0;
  private oversized = false;
  /** Set once the current line outgrew `shortenPast`, when long strings are shortened. */
  private elider: LongStringElider | undefined;
  private lineStart: number;
  private lineNo: number;
  /** The longest line (bytes before its '\n') that take() would keep whole: shortened past neither bound. */
  private readonly wholeLineBytes: number;

  constructor(
    startOffset: number,
    startLine: number,
    private readonly shortenPast: number | undefined,
  ) {
    this.lineStart = startOffset;
    this.lineNo = startLine;
    this.wholeLineBytes = Math.min(MAX_LINE_BYTES, shortenPast ?? MAX_LINE_BYTES);
  }

  push(piece: Buffer): void {
    let p = 0;
    while (p < piece.length) {
      const nl = piece.indexOf(0x0a, p);
      if (nl !== -1 && this.partBytes === 0 && nl - p <= this.wholeLineBytes) {
        // the common line: whole in this piece, short enough to be kept as it is: decoded where it lies, without a
        // view of its bytes and a list of parts made for it first
        this.wholeLine(piece, p, nl);
        p = nl + 1;
        continue;
      }
      this.take(piece.subarray(p, nl === -1 ? piece.length : nl));
      if (nl === -1) return;
      this.endLine(1);
      p = nl + 1;
    }
  }

  /** A line from `start` to its '\n' at `nl` in one piece, within both bounds (`wholeLineBytes`): what endLine makes of it. */
  private wholeLine(piece: Buffer, start: number, nl: number): void {
    const bytes = nl - start + 1;
    const from = this.lineStart === 0 && nl - start >= 3 && piece[start] === 0xef && piece[start + 1] === 0xbb && piece[start + 2] === 0xbf ? start + 3 : start;
    const text = piece.toString('utf8', from, nl);
    this.lines.push({ text: text.endsWith('\r') ? text.slice(0, -1) : text, line: this.lineNo, offset: this.lineStart, bytes });
    this.lineNo++;
    this.lineStart += bytes;
  }

  finish(options: LineOptions): LineChunk {
    let heldBackPartial = false;
    if (this.partBytes > 0) {
      // A last line without its '\n'. An oversized one is skipped now: it could never be parsed anyway.
      const text = this.oversized ? '' : this.text();
      if (!this.oversized && options.holdBackPartial && !(options.isComplete?.(text) ?? false)) heldBackPartial = text.length > 0;
      else this.endLine(0);
    }
    return { lines: this.lines, endOffset: this.lineStart, nextLine: this.lineNo, heldBackPartial };
  }

  private take(bytes: Buffer): void {
    this.partBytes += bytes.length;
    if (this.oversized) return;
    if (this.elider) {
      this.keep(this.elider.push(bytes));
    } else if (this.shortenPast !== undefined && this.keptBytes + bytes.length > this.shortenPast) {
      this.elider = new LongStringElider();
      const held = this.parts;
      this.parts = [];
      this.keptBytes = 0;
      for (const part of [...held, bytes]) this.keep(this.elider.push(part));
    } else {
      this.keep(bytes);
    }
  }

  private keep(bytes: Buffer): void {
    if (this.oversized) return;
    this.keptBytes += bytes.length;
    if (this.keptBytes > MAX_LINE_BYTES) {
      this.oversized = true;
      this.parts = [];
    } else if (bytes.length > 0) {
      this.parts.push(bytes);
    }
  }

  private endLine(terminator: number): void {
    const bytes = this.partBytes + terminator;
    const line: SourceLine = this.oversized
      ? { text: '', line: this.lineNo, offset: this.lineStart, bytes, oversized: true }
      : { text: this.text(), line: this.lineNo, offset: this.lineStart, bytes };
    this.lines.push(line);
    this.lineNo++;
    this.lineStart += bytes;
    this.parts = [];
    this.keptBytes = 0;
    this.partBytes = 0;
    this.oversized = false;
    this.elider = undefined;
  }

  private text(): string {
    let buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.keptBytes);
    if (this.lineStart === 0 && buf.subarray(0, 3).equals(BOM)) buf = buf.subarray(3);
    const text = buf.toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
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
