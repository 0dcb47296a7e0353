import type { Db } from './db';

/** Where a candidate stands: its conversation and, for a continuation, the request it carries on. */
export interface CandidatePlace {
  readonly n: number;
  readonly conversationId: string;
  /**
   * The row number of the last exchange before it, in its conversation, in which a human spoke (`asked`),
   * when no human spoke in this one (a continuation: the agent carried on after a tool loop, a resumed or
   * compacted session; search/continuation.ts).
   */
  readonly request: number | undefined;
}

/**
 * The places of exchanges `ns`. Reads two narrow indexes and no exchange row (schema version 12): a row holds
 * the exchange's whole text, and ~100 of them read cost a search at 50K exchanges ~3 ms the first time. The
 * planner would look a row number up in the table, hence `INDEXED BY`, which also fails loudly should the
 * index go.
 */
export async function candidatePlaces(db: Db, ns: readonly number[]): Promise<CandidatePlace[]> {
  const rows = await db.all<{ n: number; conversation_id: string; request: number | null }>(
    `SELECT e.n, e.conversation_id, CASE WHEN NOT e.asked THEN
       (SELECT p.n FROM exchanges p
        WHERE p.conversation_id = e.conversation_id AND p.asked
          AND (p.line_start, p.byte_start, p.part) < (e.line_start, e.byte_start, e.part)
        ORDER BY p.line_start DESC, p.byte_start DESC, p.part DESC LIMIT 1) END AS request
     FROM exchanges e INDEXED BY exchanges_place WHERE e.n IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(ns)],
  );
  // one shape, `request` always there, and a packed array (a loop, not `map`): code compiled for one object or array
  // kind is thrown away at another (issue 42)
  const places: CandidatePlace[] = [];
  for (const r of rows) places.push({ n: r.n, conversationId: r.conversation_id, request: r.request ?? undefined });
  return places;
}
