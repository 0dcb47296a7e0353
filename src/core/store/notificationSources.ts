import { rereadClaudeCodeSourcesHolding } from './commandSources';
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
  await rereadClaudeCodeSourcesHolding(db, NEEDLES);
}
