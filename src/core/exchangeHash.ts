import { createHash } from 'node:crypto';
import type { AgentKind, DatePrecision, FileTouch } from './model';

/**
 * What an exchange's stored row and everything made from it depend on, but its place in its source: its
 * conversation, agent and project, its piece and plies, its dates, its prompt and verbatim text, its files touched as
 * the store keeps them. Distillation reads these (with the conversation's title, whose change is handled apart:
 * store.ts retitledConversations), the token count and the word indexes read the text, embedding the distilled object.
 */
export interface HashedExchange {
  readonly conversationKey: string;
  readonly agent: AgentKind;
  readonly project?: string | undefined;
  readonly part: number;
  readonly plyStart: number;
  readonly plyEnd: number;
  readonly startedAt?: string | undefined;
  readonly datePrecision?: DatePrecision | undefined;
  readonly endedAt?: string | undefined;
  readonly prompt: string;
  readonly verbatim: string;
  readonly filesTouched: readonly FileTouch[];
}

/**
 * An exchange's content hash (schema 31, `exchanges.content_hash`): a source read again whole (its time changed, a
 * whole JSON or markdown document rewritten at each turn) keeps each stored exchange whose id and hash are those
 * parsed, with its distilled object, vectors, rooms and token count; only the others are written. The same from a
 * parse and from the stored row (exchangeHashes.ts): the files touched as the store holds them (one per path, the
 * first; in path order; a line list as its JSON, none as null). 96 bits, in base64 (16 characters).
 */
export function exchangeHash(e: HashedExchange): string {
  const seen = new Set<string>();
  const files: Array<[string, string, string | null]> = [];
  for (const f of e.filesTouched) {
    if (seen.has(f.path)) continue;
    seen.add(f.path);
    files.push([f.path, f.how, f.lines?.length ? JSON.stringify(f.lines) : null]);
  }
  files.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const key = JSON.stringify([
    e.conversationKey, e.agent, e.project ?? null, e.part, e.plyStart, e.plyEnd, e.startedAt ?? null,
    e.datePrecision ?? null, e.endedAt ?? null, e.prompt, e.verbatim, files,
  ]);
  return createHash('sha256').update(key).digest().subarray(0, 12).toString('base64');
}
