import { openTranscript, type SourceLine, splitLines } from './lines';

const HEAD_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 2 * 1024 * 1024;

/**
 * The complete lines within the first 64 KB of a file: enough to sniff a format and find its cwd.
 * A first line longer than that (a pasted file in the first prompt) widens the window once.
 */
export async function readHead(file: string): Promise<SourceLine[]> {
  const lines = await readHeadBytes(file, HEAD_BYTES);
  return lines.length > 0 ? lines : readHeadBytes(file, MAX_HEAD_BYTES);
}

async function readHeadBytes(file: string, bytes: number): Promise<SourceLine[]> {
  const { handle, st } = await openTranscript(file);
  try {
    const buf = Buffer.alloc(Math.min(bytes, st.size));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return splitLines(buf.subarray(0, bytesRead), 0, 1, { holdBackPartial: true }).lines;
  } finally {
    await handle.close();
  }
}
