import { type FileHandle, stat } from 'node:fs/promises';
import { openTranscript, readLines, readSideFile } from './sources/lines';

/**
 * The raw view of a transcript whose own lines place an exchange (JSONL, Markdown exports, pretty-printed
 * JSON): the file's text as it is on disk, with the exchange's lines to select. A file too large for an
 * editor shows the exchange's lines only, under a line that says which they are.
 */

/** Files up to this size are shown whole (an editor holds them well); past it, the exchange's lines only. */
export const RAW_WHOLE_FILE_BYTES = 32 * 1024 * 1024;
/** How far before the exchange's first byte its line may start (a pretty-printed record's offset is mid-line). */
const LINE_START_SEARCH_BYTES = 64 * 1024;

export interface RawText {
  readonly text: string;
  /** 1-based inclusive lines of the exchange in `text`. */
  readonly lineStart: number;
  readonly lineEnd: number;
}

export interface RawFileLocator {
  readonly file: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  /** Byte offset of the exchange's first record in the file. */
  readonly byteStart: number;
}

export async function rawFileText(e: RawFileLocator): Promise<RawText> {
  const { size } = await stat(e.file);
  if (size <= RAW_WHOLE_FILE_BYTES) return { text: await readSideFile(e.file, RAW_WHOLE_FILE_BYTES), lineStart: e.lineStart, lineEnd: e.lineEnd };
  const { handle, st } = await openTranscript(e.file);
  try {
    return await exchangeLines(handle, st.size, e);
  } finally {
    await handle.close();
  }
}

/** The exchange's lines of a large file, from the start of the line holding its first byte. */
async function exchangeLines(handle: FileHandle, size: number, e: RawFileLocator): Promise<RawText> {
  const start = await lineStartBefore(handle, Math.min(e.byteStart, size));
  const wanted = e.lineEnd - e.lineStart + 1;
  const { chunk } = await readLines(handle, start, Math.min(size, start + RAW_WHOLE_FILE_BYTES), e.lineStart, { holdBackPartial: false });
  const lines = chunk.lines.slice(0, wanted).map((l) => (l.oversized ? `(a line of ${mib(l.bytes)} is not shown)` : l.text));
  const shown = lines.length < wanted ? `lines ${e.lineStart}–${e.lineStart + lines.length - 1} of the exchange's ${e.lineStart}–${e.lineEnd}` : `lines ${e.lineStart}–${e.lineEnd}`;
  const header = `[Agent Recall] ${e.file} is ${mib(size)}, too large to show whole: its ${shown} (the exchange) follow, from byte ${start}.`;
  return { text: `${[header, ...lines].join('\n')}\n`, lineStart: 2, lineEnd: 1 + Math.max(1, lines.length) };
}

async function lineStartBefore(handle: FileHandle, offset: number): Promise<number> {
  const from = Math.max(0, offset - LINE_START_SEARCH_BYTES);
  const buf = Buffer.alloc(offset - from);
  const { bytesRead } = await handle.read(buf, 0, buf.length, from);
  const nl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
  return nl >= 0 ? from + nl + 1 : from === 0 ? 0 : offset;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
