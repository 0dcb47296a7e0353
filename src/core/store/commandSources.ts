import { open } from 'node:fs/promises';
import type { Db } from './db';

/** What Claude Code writes in the user line of a slash command the person typed. */
const COMMAND_MARK = Buffer.from('<command-name>');
const CHUNK = 1 << 20;

/**
 * Schema 21: a slash command the model answers is an exchange of its own (sources/claudeCode.ts), where the
 * parser had folded its reply into the exchange before. The store keeps no trace of the command (its wrapper line
 * was never stored), so the Claude Code transcripts are searched for the wrapper on disk and those holding one are
 * marked to be read again whole; the others, and a transcript gone from disk (its exchanges are kept as they are),
 * are not read again. No progress is reported: the update's progress counts exchanges, and a search through the
 * files is quick (the corpus' 164 Claude Code transcripts, 22 MB: see docs/formats.md).
 */
export async function rereadCommandSources(db: Db): Promise<void> {
  await rereadClaudeCodeSourcesHolding(db, [COMMAND_MARK]);
}

/**
 * Marks the Claude Code transcripts whose file on disk holds one of `needles` to be read again whole (a later parse
 * change the store keeps no trace of); a transcript gone from disk is not read again.
 */
export async function rereadClaudeCodeSourcesHolding(db: Db, needles: readonly Buffer[]): Promise<void> {
  await rereadSourcesHolding(db, ['claude-code'], needles);
}

/** The same for the sources of `agents`: those whose file on disk holds one of `needles` are read again whole. */
export async function rereadSourcesHolding(db: Db, agents: readonly string[], needles: readonly Buffer[]): Promise<void> {
  const sources = await db.all<{ id: number; path: string }>(
    `SELECT id, path FROM sources WHERE agent IN (SELECT value FROM json_each(?)) ORDER BY id`,
    [JSON.stringify(agents)],
  );
  const marked: number[] = [];
  for (const s of sources) if (await fileHolds(s.path, needles)) marked.push(s.id);
  if (marked.length === 0) return;
  await db.run(
    `UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL WHERE id IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(marked)],
  );
}

/**
 * Whether the file holds one of `needles`, read once a chunk at a time (a chunk keeps the last bytes of the one
 * before); false when unreadable.
 */
async function fileHolds(file: string, needles: readonly Buffer[]): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return false;
  }
  try {
    const keep = Math.max(...needles.map((n) => n.length)) - 1;
    const buf = Buffer.alloc(CHUNK + keep);
    let carried = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, carried, CHUNK, null);
      if (bytesRead === 0) return false;
      const end = carried + bytesRead;
      const read = buf.subarray(0, end);
      if (needles.some((needle) => read.includes(needle))) return true;
      carried = Math.min(keep, end);
      buf.copy(buf, 0, end - carried, end);
    }
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}
