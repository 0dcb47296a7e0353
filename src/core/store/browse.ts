import type { AgentKind, DistilledView, LineRange, RoomType, StoredRoom, TouchKind } from '../model';
import { compareText } from '../order';
import type { Db, Params } from './db';
import { projectWithin } from './scope';
import { roomMembers } from './roomMembers';
import { ROOM_SHOWN } from './roomStats';
import { CONVERSATION_ORDER } from './rows';

/**
 * Read-only queries the editor needs to browse the memory: exchanges by file, by room, neighbours in a
 * conversation, the distilled object of one exchange. Every function takes the db first and binds its
 * parameters; none of them ranks (ranking lives in core/search).
 */

/** An exchange as listed in a tree, hover or digest: enough to recognise it, not the verbatim text. */
export interface ExchangeListing {
  readonly exchangeId: string;
  readonly agent: AgentKind;
  readonly startedAt?: string;
  readonly prompt: string;
  /** The conversation's title, when the agent recorded one. */
  readonly title?: string;
  /** The distilled core, when the exchange has been distilled. */
  readonly core?: string;
  readonly context?: string;
}

export interface FileHistoryEntry extends ExchangeListing {
  readonly how: TouchKind;
  readonly lines?: readonly LineRange[];
}

export interface FileTouchCount {
  readonly path: string;
  readonly count: number;
  readonly lastAt?: string;
}

export interface Neighbours {
  readonly previous?: string;
  readonly next?: string;
  /** 1-based position of the exchange in its conversation, and the conversation's exchange count. */
  readonly position: number;
  readonly total: number;
}

export interface RoomSummary {
  readonly id: string;
  readonly type: RoomType;
  readonly key: string;
  readonly label: string;
  /** The project (folder) the room belongs to, when its exchanges recorded one. */
  readonly project?: string;
  /** Exchanges in the room (a file room: every exchange of its project that touched the file). */
  readonly count: number;
  readonly conversations: number;
  readonly lastAt?: string;
  /** The labels of the rooms shown as part of this one (roomFamilies.ts), largest first. */
  readonly aliases: readonly string[];
}

export type RoomSort = 'recency' | 'size';

interface ListingRow {
  id: string;
  agent: AgentKind;
  started_at: string | null;
  prompt: string;
  title: string | null;
  core: string | null;
  context: string | null;
}

const LISTING_COLUMNS = 'e.id, c.agent, e.started_at, e.prompt, c.title, d.core, d.context';
const LISTING_FROM = `exchanges e JOIN conversations c ON c.id = e.conversation_id
  LEFT JOIN distilled d ON d.exchange_n = e.n`;

function toListing(r: ListingRow): ExchangeListing {
  return {
    exchangeId: r.id,
    agent: r.agent,
    ...(r.started_at !== null ? { startedAt: r.started_at } : {}),
    prompt: r.prompt,
    ...(r.title ? { title: r.title } : {}),
    ...(r.core !== null ? { core: r.core } : {}),
    ...(r.context !== null ? { context: r.context } : {}),
  };
}

/**
 * Exchanges that touched `path` (as stored: workspace-relative POSIX, or absolute), newest first; with
 * `within`, only those whose project lies inside one of those folders.
 */
export async function exchangesTouchingFile(db: Db, path: string, limit = 50, within?: readonly string[]): Promise<FileHistoryEntry[]> {
  const scope = within ? projectWithin(within) : { sql: '1', params: [] };
  const rows = await db.all<ListingRow & { how: TouchKind; lines: string | null }>(
    `SELECT ${LISTING_COLUMNS}, f.how, f.lines FROM files_touched f JOIN exchanges e ON e.n = f.exchange_n
     JOIN conversations c ON c.id = e.conversation_id LEFT JOIN distilled d ON d.exchange_n = e.n
     WHERE f.path = ? AND ${scope.sql} ORDER BY e.started_at DESC, e.n DESC LIMIT ?`,
    [path, ...scope.params, limit],
  );
  return rows.map((r) => ({
    ...toListing(r),
    how: r.how,
    ...(r.lines ? { lines: JSON.parse(r.lines) as LineRange[] } : {}),
  }));
}

/** How many exchanges touched each file, and when the last one started (for explorer badges). */
export async function fileTouchCounts(db: Db): Promise<FileTouchCount[]> {
  const rows = await db.all<{ path: string; c: number; last: string | null }>(
    `SELECT f.path, count(*) AS c, max(e.started_at) AS last FROM files_touched f
     JOIN exchanges e ON e.n = f.exchange_n GROUP BY f.path`,
  );
  return rows.map((r) => ({ path: r.path, count: r.c, ...(r.last !== null ? { lastAt: r.last } : {}) }));
}

/** The exchanges before and after this one in its conversation (by position in the source file). */
export async function conversationNeighbours(db: Db, exchangeId: string): Promise<Neighbours | undefined> {
  const rows = await db.all<{ id: string }>(
    `SELECT e.id FROM exchanges e WHERE e.conversation_id = (SELECT conversation_id FROM exchanges WHERE id = ?)
     ORDER BY ${CONVERSATION_ORDER}`,
    [exchangeId],
  );
  const i = rows.findIndex((r) => r.id === exchangeId);
  if (i < 0) return undefined;
  return {
    ...(i > 0 ? { previous: rows[i - 1]!.id } : {}),
    ...(i < rows.length - 1 ? { next: rows[i + 1]!.id } : {}),
    position: i + 1,
    total: rows.length,
  };
}

interface RoomRow {
  id: string;
  type: RoomType;
  key: string;
  label: string;
  project: string | null;
}

function storedRoom(r: RoomRow & { relevance: number }): StoredRoom {
  return { id: r.id, type: r.type, key: r.key, label: r.label, relevance: r.relevance, ...(r.project !== null ? { project: r.project } : {}) };
}

/**
 * The distilled object of one exchange (by full id), when it has been distilled: its rooms of the tree
 * (roomStats.ts; a family's member shows as its head) and its other room candidates as facets.
 */
export async function distilledOf(db: Db, exchangeId: string): Promise<DistilledView | undefined> {
  const d = await db.get<{ n: number; core: string; context: string; distiller: string; model: string | null; prompt_version: string; tokens: number }>(
    `SELECT d.exchange_n AS n, d.core, d.context, d.distiller, d.model, d.prompt_version, d.tokens FROM distilled d
     JOIN exchanges e ON e.n = d.exchange_n WHERE e.id = ?`,
    [exchangeId],
  );
  if (!d) return undefined;
  // m: the room linked; r: the room it shows as (its family's head, else itself), shown when big enough
  const links = await db.all<RoomRow & { relevance: number; shown: number; head: string; headLabel: string }>(
    `SELECT m.id, m.type, m.key, m.label, m.project, x.relevance, ${ROOM_SHOWN} AS shown, r.id AS head, r.label AS headLabel
     FROM exchange_rooms x JOIN rooms m ON m.id = x.room_id JOIN rooms r ON r.id = coalesce(m.family, m.id)
     WHERE x.exchange_n = ? ORDER BY x.relevance DESC, r.label`,
    [d.n],
  );
  const rooms = links.filter((l) => l.shown).map((l) => ({ ...l, id: l.head, label: l.headLabel }));
  return {
    exchangeCore: d.core,
    specificContext: d.context,
    rooms: rooms.filter((r, i) => rooms.findIndex((o) => o.id === r.id) === i).map(storedRoom),
    facets: links.filter((l) => !l.shown).map(storedRoom),
    distiller: d.distiller,
    ...(d.model !== null ? { model: d.model } : {}),
    promptVersion: d.prompt_version,
    distilledTokens: d.tokens,
  };
}

/**
 * Rooms as the tree shows them: those with at least 3 exchanges from at least 2 conversations (roomStats.ts),
 * or every room with `includeSmall`, never a family's member (it shows as its head); `filter` keeps rooms whose
 * label or key, or a member's, contains it (case-insensitive). A file room counts every exchange of its project
 * that touched its file (roomMembers.ts). Largest first by `size`, else most recent first.
 */
export async function listRooms(db: Db, sort: RoomSort = 'recency', filter = '', includeSmall = false): Promise<RoomSummary[]> {
  const like = `%${filter.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const matches = (alias: string): string => `(lower(${alias}.label) LIKE ?1 ESCAPE '\\' OR lower(${alias}.key) LIKE ?1 ESCAPE '\\')`;
  const rows = await db.all<{ id: string; type: RoomType; key: string; label: string; project: string | null; c: number; conv: number; last: string | null; aliases: string }>(
    `SELECT r.id, r.type, r.key, r.label, r.project, r.exchanges AS c, r.conversations AS conv, r.last_at AS last,
       (SELECT json_group_array(label) FROM (SELECT m.label FROM rooms m WHERE m.family = r.id ORDER BY m.exchanges DESC, m.label)) AS aliases
     FROM rooms r
     WHERE r.exchanges > 0 AND r.family IS NULL AND ${includeSmall ? 'true' : ROOM_SHOWN}
       AND (${matches('r')} OR EXISTS (SELECT 1 FROM rooms m WHERE m.family = r.id AND ${matches('m')}))`,
    [like],
  );
  const rooms: RoomSummary[] = [];
  for (const r of rows) {
    const aliases = (JSON.parse(r.aliases) as string[]).filter((a, i, all) => a.toLowerCase() !== r.label.toLowerCase() && all.indexOf(a) === i);
    const base = { id: r.id, type: r.type, key: r.key, label: r.label, ...(r.project !== null ? { project: r.project } : {}), aliases };
    const touched = r.type === 'file' ? await fileTouches(db, r.id) : undefined;
    const last = touched ? touched.last : r.last;
    rooms.push({ ...base, count: touched?.c ?? r.c, conversations: touched?.conv ?? r.conv, ...(last !== null ? { lastAt: last } : {}) });
  }
  const bySize = (a: RoomSummary, b: RoomSummary): number => b.count - a.count;
  const byRecency = (a: RoomSummary, b: RoomSummary): number => compareText(b.lastAt ?? '', a.lastAt ?? '');
  const [first, second] = sort === 'size' ? [bySize, byRecency] : [byRecency, bySize];
  return rooms.sort((a, b) => first(a, b) || second(a, b) || compareText(a.label, b.label) || compareText(a.id, b.id));
}

/** A file room's numbers as its project's exchanges that touched the file give them. */
async function fileTouches(db: Db, roomId: string): Promise<{ c: number; conv: number; last: string | null } | undefined> {
  const members = await roomMembers(db, roomId);
  if (!members) return undefined;
  return db.get<{ c: number; conv: number; last: string | null }>(
    `SELECT count(*) AS c, count(DISTINCT e.conversation_id) AS conv, max(e.started_at) AS last FROM exchanges e WHERE e.n IN (${members.sql})`,
    members.params,
  );
}

/** A room as the CLI's `rooms` lists it, one JSON object per line. */
export interface RoomListing {
  readonly id: string;
  readonly type: RoomType;
  readonly key: string;
  readonly label: string;
  readonly project: string | null;
  /** Labels of the rooms shown as part of it (roomFamilies.ts). */
  readonly aliases: readonly string[];
  readonly exchanges: number;
  readonly conversations: number;
  readonly lastActivity: string | null;
  readonly exchangeIds: readonly string[];
}

/** Every room the tree shows (or every room, with `includeSmall`), largest first, with its exchanges' ids. */
export async function roomListings(db: Db, includeSmall = false): Promise<RoomListing[]> {
  const out: RoomListing[] = [];
  for (const r of await listRooms(db, 'size', '', includeSmall)) {
    out.push({
      id: r.id, type: r.type, key: r.key, label: r.label, project: r.project ?? null, aliases: r.aliases, exchanges: r.count,
      conversations: r.conversations, lastActivity: r.lastAt ?? null, exchangeIds: await roomExchangeIds(db, r.id),
    });
  }
  return out;
}

/** The ids of every exchange of one room (roomMembers.ts), newest first (the CLI's `rooms` lists them with each room). */
export async function roomExchangeIds(db: Db, roomId: string): Promise<string[]> {
  const members = await roomMembers(db, roomId);
  if (!members) return [];
  const rows = await db.all<{ id: string }>(`SELECT e.id FROM exchanges e WHERE e.n IN (${members.sql}) ORDER BY e.started_at DESC, e.n DESC`, members.params);
  return rows.map((r) => r.id);
}

/** The exchanges of one room (roomMembers.ts), newest first. */
export async function exchangesInRoom(db: Db, roomId: string, limit = 200): Promise<ExchangeListing[]> {
  const members = await roomMembers(db, roomId);
  if (!members) return [];
  const rows = await db.all<ListingRow>(
    `SELECT ${LISTING_COLUMNS} FROM ${LISTING_FROM} WHERE e.n IN (${members.sql}) ORDER BY e.started_at DESC, e.n DESC LIMIT ?`,
    [...members.params, limit],
  );
  return rows.map(toListing);
}

/** Whether any conversation's project is unknown or lies outside `folders`. */
export async function anyProjectOutside(db: Db, folders: readonly string[]): Promise<boolean> {
  const scope = projectWithin(folders);
  const row = await db.get<{ one: number }>(`SELECT 1 AS one FROM conversations c WHERE c.project IS NULL OR NOT ${scope.sql} LIMIT 1`, scope.params);
  return row !== undefined;
}

/**
 * The newest exchanges (distilled or not), for digests and the empty recall panel; `where` is a condition
 * over `e` (exchanges) and `c` (conversations) with its parameters (search's filters build it).
 */
export async function recentExchanges(db: Db, limit: number, where: { sql: string; params: Params } = { sql: '1', params: [] }): Promise<ExchangeListing[]> {
  const rows = await db.all<ListingRow>(
    `SELECT ${LISTING_COLUMNS} FROM ${LISTING_FROM} WHERE ${where.sql} ORDER BY e.started_at DESC, e.n DESC LIMIT ?`,
    [...where.params, limit],
  );
  return rows.map(toListing);
}

/**
 * A conversation's exchanges in conversation order (the order Previous/Next walk); `where` narrows them as in
 * recentExchanges (its filters name the conversation).
 */
export async function exchangesInOrder(db: Db, limit: number, where: { sql: string; params: Params }): Promise<ExchangeListing[]> {
  const rows = await db.all<ListingRow>(
    `SELECT ${LISTING_COLUMNS} FROM ${LISTING_FROM} WHERE ${where.sql} ORDER BY ${CONVERSATION_ORDER} LIMIT ?`,
    [...where.params, limit],
  );
  return rows.map(toListing);
}

/** Listings for given ids, in the order given (ids not found are left out). */
export async function exchangeListings(db: Db, ids: readonly string[]): Promise<ExchangeListing[]> {
  const out: ExchangeListing[] = [];
  for (const id of ids) {
    const r = await db.get<ListingRow>(`SELECT ${LISTING_COLUMNS} FROM ${LISTING_FROM} WHERE e.id = ?`, [id]);
    if (r) out.push(toListing(r));
  }
  return out;
}

export interface DistillerUsage {
  readonly distiller: string;
  readonly model?: string;
  readonly count: number;
}

/** Which distillers (and models) produced the distilled objects, most used first. */
export async function distillerUsage(db: Db): Promise<DistillerUsage[]> {
  const rows = await db.all<{ distiller: string; model: string | null; c: number }>(
    'SELECT distiller, model, count(*) AS c FROM distilled GROUP BY distiller, model ORDER BY c DESC',
  );
  return rows.map((r) => ({ distiller: r.distiller, ...(r.model !== null ? { model: r.model } : {}), count: r.c }));
}
