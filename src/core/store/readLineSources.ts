import { rereadSourcesHolding } from './commandSources';
import type { Db } from './db';

/**
 * A read's lines (files.ts): a read tool's `limit` without an `offset` reads from the file's first line (Gemini CLI's
 * read_file before 0.31, Claude Code's Read, OpenCode's read), and Gemini CLI's read_file since 0.31 takes `start_line`
 * and `end_line`; such reads carried no lines. As the store keeps neither the call's input nor which reads had lines,
 * every source whose file holds such a key (bare, or escaped in a JSON string: Copilot CLI's arguments) is read again.
 */
const READ_RANGE_NEEDLES = ['limit', 'start_line', 'end_line'].flatMap((key) => [`"${key}"`, `\\"${key}\\"`]).map((s) => Buffer.from(s));
/**
 * What the Gemini CLI writes that its reader now reads otherwise (sources/gemini.ts): a tool output it masked (0.29+),
 * a subagent's chat beside its parent's that carries the parent's session id (0.31-0.36: `"kind": "subagent"`), and a
 * log's whole message list written again (a `$set` of `messages`, whose unchanged records no longer reach its line).
 */
const GEMINI_NEEDLES = ['<tool_output_masked>', '"kind": "subagent"', '"kind":"subagent"', '"$set":{"messages"'].map((s) => Buffer.from(s));

/**
 * Schema 27: the sources whose reading changed are searched on disk (the store keeps no trace of what decides it) and
 * those holding such a record are marked to be read again whole; no other source is read again. A Gemini CLI
 * subagent's chat since 0.37 (`chats/<parent>/<id>.jsonl`) was never a source: the next run's discovery finds it.
 */
export async function rereadReadLineSources(db: Db): Promise<void> {
  const agents = (await db.all<{ agent: string }>('SELECT DISTINCT agent FROM sources ORDER BY agent')).map((r) => r.agent);
  await rereadSourcesHolding(db, agents, READ_RANGE_NEEDLES);
  await rereadSourcesHolding(db, ['gemini'], GEMINI_NEEDLES);
}
