import type { Db } from './db';

/**
 * Schema 23: Codex's header above a command's output (`Exit code: 0`, `Wall time: 0.1 seconds`, `Output:`; the
 * unified exec tools' `Chunk ID`, `Process exited with code N`, `Original token count`) is no longer kept as
 * part of the output, and an exec command that exited with an error is an error (sources/codex.ts). The Codex
 * rollouts with an exchange whose stored text holds such a header (an output is kept from its start, where the
 * header is) are marked to be read again whole, which renders them anew; no other source is read again.
 */
export async function rereadCommandOutputSources(db: Db): Promise<void> {
  await db.run(`
    UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL
    WHERE agent = 'codex' AND EXISTS (SELECT 1 FROM exchanges e WHERE e.source_id = sources.id AND e.verbatim LIKE '%Wall time: %')
  `);
}
