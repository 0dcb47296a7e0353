import { compareText } from '../order';
import type { ExchangeSummary, FileTouch, HitRoom, SavedCopy } from '../model';
import type { Db } from './db';
import { ROOM_SHOWN } from './roomStats';
import { conversationOrder, type ExchangeRow, toFileTouch, toSummary } from './rows';

/**
 * The exchanges as search reads them, by row number: their words (what was asked, the verbatim text), what a hit
 * shows, which conversation a candidate is of. Search ranks with these (search/searcher.ts);
 * the SQL is here.
 */

/** An exchange's words: what was asked, and its whole verbatim text (proximity, snippets and copies read them). */
export interface ExchangeText {
  readonly prompt: string;
  readonly verbatim: string;
  /** `verbatim`'s redaction stamp (distilled.clean, redactionCheck.ts): REDACTION_VERSION when those rules found no secret in it. */
  readonly clean?: string | null;
}

/** What a hit shows about its exchange (all but its text), loaded for the few exchanges that made the final list. */
export interface HitRow extends ExchangeSummary {
  readonly n: number;
  readonly conversationId: string;
  /** The conversation's title, when the agent recorded one. */
  readonly title?: string;
  /** Without a title: the prompt the conversation began with (in the order Previous/Next walk), to name it. */
  readonly firstPrompt?: string;
  readonly core?: string;
  readonly context?: string;
  readonly rooms: HitRoom[];
  readonly filesTouched: FileTouch[];
  /** Other transcripts holding this very exchange (exchange_copies), by path. */
  readonly copies: SavedCopy[];
}

interface Row extends ExchangeRow {
  conversation_id: string;
  title: string | null;
  first_prompt: string | null;
  core: string | null;
  context: string | null;
  /** JSON: [[room id, relevance], ...], every room of the exchange, shown or not (roomsShown picks). */
  rooms: string;
  /** JSON: [[path, how, lines], ...] by path. */
  files: string;
  /** JSON: [[path, line_start, line_end], ...] by path. */
  copies: string;
}

/** Row numbers are passed as one JSON array (json_each), so any count binds as a single parameter. */
const IN_LIST = 'IN (SELECT value FROM json_each(?))';

/** The rooms big enough to be shown as chips (ROOM_SHOWN), by the id of each room linked to (a family's member: its head). */
export type ShownRooms = ReadonlyMap<string, HitRoom>;

/** For readers that show no room chips. */
export const NO_ROOMS: ShownRooms = new Map();

/**
 * The rooms shown as chips: a few hundred (258 of 3,161 rooms at 50K exchanges), read once per store change by
 * the searcher, so the hit rows' statement reads only each exchange's links, not the rooms table (~0.1 ms a search).
 */
export async function readShownRooms(db: Db): Promise<ShownRooms> {
  const rows = await db.all<HitRoom & { link: string }>(
    `SELECT r.id AS link, r.id, r.type, r.label FROM rooms r WHERE ${ROOM_SHOWN}
     UNION ALL SELECT m.id, r.id, r.type, r.label FROM rooms r JOIN rooms m ON m.family = r.id WHERE ${ROOM_SHOWN}`,
  );
  return new Map(rows.map(({ link, ...room }) => [link, room]));
}

/** An exchange's rooms among those shown, most relevant first, then by label; a family once. */
function roomsShown(links: ReadonlyArray<readonly [string, number]>, shown: ShownRooms): HitRoom[] {
  const found: Array<{ readonly room: HitRoom; readonly relevance: number }> = [];
  for (const [id, relevance] of links) {
    const room = shown.get(id);
    if (room) found.push({ room, relevance });
  }
  found.sort((a, b) => b.relevance - a.relevance || compareText(a.room.label, b.room.label));
  return found.filter((f, i) => found.findIndex((o) => o.room.id === f.room.id) === i).map((f) => f.room);
}

/** The words of exchanges `ns`, and whether their text holds no secret: one statement. */
export async function exchangeTexts(db: Db, ns: readonly number[]): Promise<Map<number, ExchangeText>> {
  const rows = await db.all<{ n: number; prompt: string; verbatim: string; clean: string | null }>(
    `SELECT e.n, e.prompt, e.verbatim, d.clean FROM exchanges e LEFT JOIN distilled d ON d.exchange_n = e.n WHERE e.n ${IN_LIST}`,
    [JSON.stringify(ns)],
  );
  return new Map(rows.map((r) => [r.n, { prompt: r.prompt, verbatim: r.verbatim, clean: r.clean }]));
}

/**
 * The hits' rows, each with its room links and files as JSON arrays: one statement, as each statement is a
 * round trip through the driver's thread pool (~0.15 ms). Each array is aggregated from an ordered subquery,
 * which SQLite reads in its order (an aggregate query cannot flatten a subquery that has an ORDER BY). Rooms
 * come from `shown` (readShownRooms).
 */
export async function loadHitRows(db: Db, ns: readonly number[], shown: ShownRooms): Promise<Map<number, HitRow>> {
  const rows = await db.all<Row>(
    `SELECT e.n, e.id, c.agent, s.path, e.line_start, e.line_end, c.session_id, e.conversation_id, c.project,
       e.started_at, e.date_precision, e.prompt, c.title, d.core, d.context,
       CASE WHEN c.title IS NULL OR c.title = '' THEN (
         SELECT f.prompt FROM exchanges f WHERE f.conversation_id = e.conversation_id ORDER BY ${conversationOrder('f')} LIMIT 1) END AS first_prompt,
       (SELECT json_group_array(json_array(room_id, relevance)) FROM exchange_rooms WHERE exchange_n = e.n) AS rooms,
       (SELECT json_group_array(json_array(path, how, lines)) FROM (
          SELECT path, how, lines FROM files_touched WHERE exchange_n = e.n ORDER BY path)) AS files,
       (SELECT json_group_array(json_array(path, line_start, line_end)) FROM (
          SELECT cs.path, cp.line_start, cp.line_end FROM exchange_copies cp JOIN sources cs ON cs.id = cp.source_id
          WHERE cp.exchange_id = e.id ORDER BY cs.path)) AS copies
     FROM exchanges e JOIN conversations c ON c.id = e.conversation_id JOIN sources s ON s.id = e.source_id
     LEFT JOIN distilled d ON d.exchange_n = e.n WHERE e.n ${IN_LIST}`,
    [JSON.stringify(ns)],
  );
  const out = new Map<number, HitRow>();
  for (const r of rows) {
    const rooms = JSON.parse(r.rooms) as Array<[string, number]>;
    const files = JSON.parse(r.files) as Array<[string, string, string | null]>;
    const copies = JSON.parse(r.copies) as Array<[string, number, number]>;
    out.set(r.n, {
      ...toSummary(r),
      n: r.n,
      conversationId: r.conversation_id,
      ...(r.title ? { title: r.title } : {}),
      ...(r.first_prompt !== null ? { firstPrompt: r.first_prompt } : {}),
      ...(r.core !== null ? { core: r.core } : {}),
      ...(r.context !== null ? { context: r.context } : {}),
      rooms: roomsShown(rooms, shown),
      filesTouched: files.map(([path, how, lines]) => toFileTouch({ path, how, lines })),
      copies: copies.map(([file, lineStart, lineEnd]) => ({ file, lineStart, lineEnd })),
    });
  }
  return out;
}

/**
 * Conversation of each candidate, for the per-conversation cap (cheap: no text is read). Those in `known`
 * (the continuation step read them already) are not asked for again.
 */
export async function conversationsOf(db: Db, ns: readonly number[], known: ReadonlyMap<number, string> = new Map()): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const missing: number[] = [];
  for (const n of ns) {
    const c = known.get(n);
    if (c === undefined) missing.push(n);
    else out.set(n, c);
  }
  if (missing.length === 0) return out;
  const rows = await db.all<{ n: number; conversation_id: string }>(
    `SELECT n, conversation_id FROM exchanges INDEXED BY exchanges_place WHERE n ${IN_LIST}`, // not the rows: continuations.ts
    [JSON.stringify(missing)],
  );
  for (const r of rows) out.set(r.n, r.conversation_id);
  return out;
}

/** Exchange ids -> row numbers (for "not these"). */
export async function rowNumbersOf(db: Db, ids: readonly string[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.all<{ n: number }>(`SELECT n FROM exchanges WHERE id ${IN_LIST}`, [JSON.stringify(ids)]);
  return new Set(rows.map((r) => r.n));
}
