import type { Db } from './db';
import { rereadSourcesWithExchangesLike } from './planSources';

/**
 * Schema 28: Roo Code's and Kilo Code's `update_todo_list` (the list in one markdown string) and Copilot Chat's
 * `manage_todo_list` read (the list in its answer) are rendered as a checklist like the other plan tools, and
 * their answers known word for word are left out (planCalls.ts, render.ts). Until then such a call was stored as
 * its JSON (`[tool] update_todo_list {"todos":…`, `[tool] manage_todo_list {"operation":"read"}`): the sources with
 * an exchange holding such a line are marked to be read again whole, which renders them anew; no other source is.
 */
export async function rereadTodoListSources(db: Db): Promise<void> {
  await rereadSourcesWithExchangesLike(db, ['%[tool] update_todo_list {%', '%[tool] manage_todo_list {%']);
}
