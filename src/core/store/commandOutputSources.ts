import type { Db } from './db';

/**
 * Schema 22: the report an agent's shell tool wraps a command's output in is no longer kept as the output, and
 * a command that exited with an error is an error output:
 * - Codex's header (`Exit code: 0`, `Wall time: 0.1 seconds`, `Output:`; the unified exec tools' `Chunk ID`,
 *   `Process exited with code N`, `Original token count`; sources/codex.ts);
 * - Gemini CLI's and Qwen Code's report (`Command:` and `Directory:` again, `Output:`, `Error: (none)`,
 *   `Exit Code: 0`, `Signal: 0`, `Background PIDs`, `Process Group PGID`; sources/gemini.ts).
 * The rollouts and sessions of those agents with an exchange whose stored text holds such a report (an output is
 * kept from its start, where the report opens) are marked to be read again whole, which renders them anew; no
 * other source is read again.
 */
export async function rereadCommandOutputSources(db: Db): Promise<void> {
  await db.run(`
    UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL
    WHERE (agent = 'codex' AND EXISTS (
        SELECT 1 FROM exchanges e WHERE e.source_id = sources.id AND e.verbatim LIKE '%Wall time: %'))
      OR (agent IN ('gemini', 'qwen-code') AND EXISTS (
        SELECT 1 FROM exchanges e WHERE e.source_id = sources.id
          AND (e.verbatim LIKE '%] Command: %' OR e.verbatim LIKE '%] Output: %' OR e.verbatim LIKE '%] Stdout: %')))
  `);
}
