import { openTranscript } from './lines';

/**
 * Whether a file is a SQLite database in WAL mode: its header's read and write versions are 2 (read without
 * SQLite; opened like a transcript, so a FIFO or a device there is refused, never waited on). Another
 * program's database is read only in WAL mode: in rollback-journal mode even a reader's lock holds its writer off.
 */
export async function inWalMode(file: string): Promise<boolean> {
  const { handle } = await openTranscript(file);
  try {
    const header = Buffer.alloc(20);
    const { bytesRead } = await handle.read(header, 0, 20, 0);
    return bytesRead === 20 && header.toString('latin1', 0, 16) === 'SQLite format 3\0' && header[18] === 2 && header[19] === 2;
  } finally {
    await handle.close();
  }
}
