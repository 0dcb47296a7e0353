import { rereadSourcesHolding } from './commandSources';
import type { Db } from './db';

/**
 * What the Gemini CLI writes in a session whose reading changed (sources/gemini.ts): the prompt as typed beside what
 * the model got (`displayContent`, 0.28+), the user records it writes itself (`<session_context>`, `<hook_context>`,
 * its "Please continue." nudges), an @ reference's file contents, and read_file's note above a file it cut short.
 * Qwen Code's older documents are read by the same reader.
 */
const GEMINI_NEEDLES = [
  '"displayContent"', '<session_context>', '<hook_context>', 'Please continue.', '--- Content from referenced files ---',
  'IMPORTANT: The file content has been truncated.',
].map((s) => Buffer.from(s));
/** A Copilot Chat request's attached files (sources/copilot.ts), in a compact log or a pretty-printed document. */
const COPILOT_NEEDLES = ['"kind":"file"', '"kind": "file"', '"kind":"implicit"', '"kind": "implicit"'].map((s) => Buffer.from(s));

/**
 * Schema 25: a Gemini CLI prompt is what the person typed, without the files an @ reference sent or the context the CLI
 * added; read_file's note to the model is not the file's text; a Copilot Chat prompt mentions the files it attached.
 * The store keeps no trace of what was left out, so those agents' files are searched on disk and the ones holding
 * such a record are marked to be read again whole; no other source is read again.
 */
export async function rereadPromptSources(db: Db): Promise<void> {
  await rereadSourcesHolding(db, ['gemini', 'qwen-code'], GEMINI_NEEDLES);
  await rereadSourcesHolding(db, ['copilot'], COPILOT_NEEDLES);
}
