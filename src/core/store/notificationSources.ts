import { fileHolds } from './commandSources';
import type { Db } from './db';

/** What Claude Code writes when a background task reports back, and the call that carries a plan-mode plan. */
const NEEDLES = [Buffer.from('<task-notification>'), Buffer.from('"name":"ExitPlanMode"')];

/**
 * Schema 22: a background task's report the model answers opens an exchange of its own (sources/claudeCode.ts),
 * where its reply had joined whichever exchange was open; and a plan-mode plan is rendered whole, where the call's
 * input was cut at 300 characters (render.ts `said`). The store keeps neither the reports' summaries nor the whole
 * plans, so the Claude Code transcripts holding either on disk are marked to be read again whole, as schema 21 does
 * for slash commands (commandSources.ts); the others, and a transcript gone from disk, are not read again.
 */
export async function rereadNotificationSources(db: Db): Promise<void> {
  const sources = await db.all<{ id: number; path: string }>(`SELECT id, path FROM sources WHERE agent = 'claude-code' ORDER BY id`);
  const marked: number[] = [];
  for (const s of sources) if (await holdsAny(s.path)) marked.push(s.id);
  if (marked.length === 0) return;
  await db.run(
    `UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL WHERE id IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(marked)],
  );
}

async function holdsAny(file: string): Promise<boolean> {
  for (const needle of NEEDLES) if (await fileHolds(file, needle)) return true;
  return false;
}
