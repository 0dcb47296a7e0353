import type { RoomType } from '../distill/types';
import type { Db } from '../store/db';
import { ROOM_SHOWN } from '../store/roomStats';
import { type ExchangeRow, type FileTouchRow, toFileTouch, toSummary } from '../store/rows';
import type { ExchangeSummary, FileTouch } from '../model';
import type { HitRoom } from './types';

/** What a hit shows about its exchange, loaded for the few exchanges that made the final list. */
export interface HitRow extends ExchangeSummary {
  readonly n: number;
  readonly conversationId: string;
  readonly verbatim: string;
  /** The conversation's title, when the agent recorded one. */
  readonly title?: string;
  readonly core?: string;
  readonly context?: string;
  readonly rooms: HitRoom[];
  readonly filesTouched: FileTouch[];
}

interface Row extends ExchangeRow {
  conversation_id: string;
  verbatim: string;
  title: string | null;
  core: string | null;
  context: string | null;
}

/** Row numbers are passed as one JSON array (json_each), so any count binds as a single parameter. */
const IN_LIST = 'IN (SELECT value FROM json_each(?))';

export async function loadHitRows(db: Db, ns: readonly number[]): Promise<Map<number, HitRow>> {
  const list = JSON.stringify(ns);
  const rows = await db.all<Row>(
    `SELECT e.n, e.id, c.agent, s.path, e.line_start, e.line_end, c.session_id, e.conversation_id, c.project,
       e.started_at, e.date_precision, e.prompt, e.verbatim, c.title, d.core, d.context
     FROM exchanges e JOIN conversations c ON c.id = e.conversation_id JOIN sources s ON s.id = e.source_id
     LEFT JOIN distilled d ON d.exchange_n = e.n WHERE e.n ${IN_LIST}`,
    [list],
  );
  const rooms = await db.all<{ exchange_n: number; id: string; type: RoomType; label: string }>(
    `SELECT er.exchange_n, r.id, r.type, r.label FROM exchange_rooms er JOIN rooms r ON r.id = er.room_id
     WHERE er.exchange_n ${IN_LIST} AND ${ROOM_SHOWN} ORDER BY er.relevance DESC, r.label`,
    [list],
  );
  const files = await db.all<FileTouchRow & { exchange_n: number }>(
    `SELECT exchange_n, path, how, lines FROM files_touched WHERE exchange_n ${IN_LIST} ORDER BY path`,
    [list],
  );
  const out = new Map<number, HitRow>();
  for (const r of rows) {
    out.set(r.n, {
      ...toSummary(r),
      n: r.n,
      conversationId: r.conversation_id,
      verbatim: r.verbatim,
      ...(r.title ? { title: r.title } : {}),
      ...(r.core !== null ? { core: r.core } : {}),
      ...(r.context !== null ? { context: r.context } : {}),
      rooms: rooms.filter((x) => x.exchange_n === r.n).map((x) => ({ id: x.id, type: x.type, label: x.label })),
      filesTouched: files.filter((f) => f.exchange_n === r.n).map(toFileTouch),
    });
  }
  return out;
}

/** Conversation of each candidate, for the per-conversation cap (cheap: no text is read). */
export async function conversationsOf(db: Db, ns: readonly number[]): Promise<Map<number, string>> {
  const rows = await db.all<{ n: number; conversation_id: string }>(
    `SELECT n, conversation_id FROM exchanges WHERE n ${IN_LIST}`,
    [JSON.stringify(ns)],
  );
  return new Map(rows.map((r) => [r.n, r.conversation_id]));
}

/** Exchange ids -> row numbers (for "not these"). */
export async function rowNumbersOf(db: Db, ids: readonly string[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.all<{ n: number }>(`SELECT n FROM exchanges WHERE id ${IN_LIST}`, [JSON.stringify(ids)]);
  return new Set(rows.map((r) => r.n));
}
