/**
 * The replayed state of the logs that changed last (Copilot's mutation log), each with the byte offset its
 * replay reached, so the next change replays only what was appended. In memory only: a replay is as large as
 * the session, so only the few being written now are kept, and a new process replays each log once.
 */

/** Logs kept: the sessions an agent is writing to right now. */
const KEPT = 2;

const replays = new Map<string, { readonly offset: number; readonly replay: unknown }>();

/** The replay of `file` up to `offset`, taken out (the next parse changes it); none kept for that offset: undefined. */
export function takeReplay(file: string, offset: number): unknown {
  const kept = replays.get(file);
  replays.delete(file);
  return kept?.offset === offset ? kept.replay : undefined;
}

/** Keeps the replay of `file` up to `offset`, dropping the least recently kept beyond KEPT. */
export function keepReplay(file: string, offset: number, replay: unknown): void {
  replays.delete(file);
  replays.set(file, { offset, replay });
  for (const old of replays.keys()) {
    if (replays.size <= KEPT) break;
    replays.delete(old);
  }
}
