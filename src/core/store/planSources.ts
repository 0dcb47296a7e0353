import { PLAN_TOOLS } from '../planCalls';
import type { Db } from './db';

/**
 * Schema 24: an agent's to-do list (Claude Code's `TodoWrite`, Codex's `update_plan`, Gemini CLI's `write_todos`,
 * Copilot Chat's `manage_todo_list`) is rendered as a checklist, each update between an exchange's first and last
 * by the steps it moved, and the tools' fixed acknowledgements are left out (render.ts, planCalls.ts). The sources
 * with an exchange whose stored text holds such a call (its line, `[tool] TodoWrite {…`, is kept whatever else is
 * cut) are marked to be read again whole, which renders them anew; no other source is read again.
 */
export async function rereadPlanSources(db: Db): Promise<void> {
  await rereadSourcesWithExchangesLike(db, [...PLAN_TOOLS].map((tool) => `%[tool] ${tool} %`));
}

/** Marks the sources with an exchange whose stored text is LIKE one of `patterns` to be read again whole. */
export async function rereadSourcesWithExchangesLike(db: Db, patterns: readonly string[]): Promise<void> {
  await db.run(
    `UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL
     WHERE EXISTS (SELECT 1 FROM exchanges e WHERE e.source_id = sources.id AND (${patterns.map(() => 'e.verbatim LIKE ?').join(' OR ')}))`,
    [...patterns],
  );
}
