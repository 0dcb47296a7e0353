import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { rereadClaudeCodeSourcesHolding } from './commandSources';
import type { Db } from './db';

/** A record's id as Claude Code and Qwen Code write it (nested ids match too: a file is then read again for nothing). */
const UUID = /"uuid"\s*:\s*"([^"\\]+)"/gu;

/** What Claude Code writes when a message typed while the model works is taken into its turn. */
const QUEUE_REMOVE = Buffer.from('"operation":"remove"');

/**
 * Schema 26, two changes to reading a transcript:
 * - A transcript appended to is read from the start of its last exchange, and a record written again under an id read
 *   before that point (a resumed session's replay) was read as new there, where a read of the whole file skips it
 *   (sources/recordIds.ts). The ids read before the resume point are now kept with the source (`seen_ids`); a state
 *   without them is read whole at its next change. The Claude Code and Qwen Code transcripts whose file on disk
 *   repeats an id on a later line (the only ones a read in steps can have read otherwise) are marked to be read again
 *   whole.
 * - A message typed while the model works and taken into its turn (a Claude Code `queue-operation` `remove`) is a
 *   prompt of the exchange open (sources/claudeCode.ts): the Claude Code transcripts holding a `remove` are marked to
 *   be read again whole.
 * A transcript gone from disk keeps its exchanges as they are; no other source is read again.
 */
export async function rereadQueueAndReplaySources(db: Db): Promise<void> {
  await db.run('ALTER TABLE sources ADD COLUMN seen_ids TEXT');
  await rereadClaudeCodeSourcesHolding(db, [QUEUE_REMOVE]);
  const sources = await db.all<{ id: number; path: string }>(`SELECT id, path FROM sources WHERE agent IN ('claude-code', 'qwen-code') AND size <> -1 ORDER BY id`);
  const marked: number[] = [];
  for (const s of sources) if (await repeatsAnId(s.path)) marked.push(s.id);
  if (marked.length === 0) return;
  await db.run(
    `UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL WHERE id IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(marked)],
  );
}

/** Whether a line of the file holds an id an earlier line held; false when unreadable. */
async function repeatsAnId(file: string): Promise<boolean> {
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const earlier = new Set<string>();
  try {
    for await (const line of lines) {
      const own = new Set<string>();
      for (const m of line.matchAll(UUID)) own.add(m[1]!);
      for (const id of own) {
        if (earlier.has(id)) return true;
        earlier.add(id);
      }
    }
    return false;
  } catch {
    return false;
  } finally {
    lines.close();
    stream.destroy();
  }
}
