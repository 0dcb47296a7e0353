import type { Db } from '../store/db';
import { arr, jsonOrUndefined, obj, type RecordGroupRead, str } from './adapter';
import { readSnapshot } from './walDatabase';

/**
 * Goose's SQLite store (Goose 1.10 and later; block/goose `crates/goose/src/session/`): `sessions.db` in its sessions
 * folder, tables `sessions` (`id, working_dir, created_at, updated_at`, then by schema version `name` (else the
 * older `description`), `session_type`, `model_config_json`, `parent_session_id`) and `messages` (`id INTEGER
 * AUTOINCREMENT, session_id, role, content_json, created_timestamp`, later `metadata_json`). Columns are probed: an
 * older store lacks the later ones. A session's messages are rewritten whole (deleted and inserted again) when
 * Goose compacts it, so a message's row id is not its identity.
 *
 * Goose has the file open and writes it (WAL; `busy_timeout` 5 s on its side) while we read: it is opened
 * read-only, read as one short snapshot and closed at once. Only the fields the conversation needs are kept: a
 * tool response can carry a base64 image or a whole file.
 */

/** How much of a tool response's text is kept (the parse keeps no more). */
export const MAX_RESULT_CHARS = 20_000;

type JsonRecord = Record<string, unknown>;

/** The optional columns of each table, by what they are read as. */
const SESSION_COLUMNS = ['name', 'description', 'session_type', 'model_config_json', 'parent_session_id'] as const;
const MESSAGE_COLUMNS = ['metadata_json'] as const;

const COLUMNS_SQL = `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p
  WHERE m.type = 'table' AND m.name IN ('sessions', 'messages')`;

interface SessionRow {
  readonly id: string;
  readonly working_dir: string | null;
  readonly created_at: unknown;
  readonly updated_at: unknown;
  readonly name: string | null;
  readonly description: string | null;
  readonly session_type: string | null;
  readonly model_config_json: string | null;
  readonly parent_session_id: string | null;
}

interface MessageRow {
  readonly id: number;
  readonly session_id: string;
  readonly role: string | null;
  readonly content_json: string | null;
  readonly created_timestamp: number | null;
  readonly metadata_json: string | null;
}

/** Each session's fingerprint by id: its row's `updated_at` (raised on every message) and its messages' count and highest row id. */
export async function gooseFingerprints(file: string): Promise<Map<string, string>> {
  const rows = await query(file, async (db) => ({
    sessions: await db.all<{ id: string; t: unknown; d: string | null }>('SELECT id, updated_at AS t, working_dir AS d FROM sessions'),
    messages: await db.all<{ id: string; c: number; r: number }>('SELECT session_id AS id, count(*) AS c, max(id) AS r FROM messages GROUP BY session_id'),
  }));
  if (!rows) return new Map();
  const messages = new Map(rows.messages.map((m) => [m.id, `${m.c}:${m.r}`]));
  return new Map(rows.sessions.map((s) => [s.id, JSON.stringify([s.t ?? null, s.d, messages.get(s.id) ?? '0'])]));
}

/**
 * Every session (or only the `sessionIds`), oldest first, as its records: a `{session}` record, then a `{message}`
 * record per message row in the order Goose wrote them (`damaged` when its content is not a JSON array).
 */
export async function readGooseGroups(file: string, sessionIds?: readonly string[]): Promise<RecordGroupRead[]> {
  const params = [sessionIds ? JSON.stringify(sessionIds) : null];
  const rows = await query(file, async (db) => {
    const have = await columnsOf(db);
    const pick = (table: 'sessions' | 'messages', c: string): string => (have.get(table)?.has(c) ? c : `NULL AS ${c}`);
    const sessions = await db.all<SessionRow>(
      `SELECT id, working_dir, created_at, updated_at, ${SESSION_COLUMNS.map((c) => pick('sessions', c)).join(', ')} FROM sessions
       WHERE ?1 IS NULL OR id IN (SELECT value FROM json_each(?1)) ORDER BY created_at, id`,
      params,
    );
    const messages = await db.all<MessageRow>(
      `SELECT id, session_id, role, content_json, created_timestamp, ${MESSAGE_COLUMNS.map((c) => pick('messages', c)).join(', ')} FROM messages
       WHERE ?1 IS NULL OR session_id IN (SELECT value FROM json_each(?1)) ORDER BY session_id, id`,
      params,
    );
    return { sessions, messages };
  });
  if (!rows) return [];
  const of = new Map<string, MessageRow[]>();
  for (const m of rows.messages) (of.get(m.session_id) ?? of.set(m.session_id, []).get(m.session_id)!).push(m);
  return rows.sessions.map((s) => ({ id: s.id, records: [{ session: sessionRecord(s) }, ...(of.get(s.id) ?? []).map(messageRecord)] }));
}

/** One session's records (for "open raw"), empty when it is gone. */
export async function readGooseSession(file: string, sessionId: string): Promise<readonly unknown[]> {
  return (await readGooseGroups(file, [sessionId]))[0]?.records ?? [];
}

/** Runs `read` on the database as one snapshot; nothing when it holds no Goose sessions (yet). */
function query<T>(file: string, read: (db: Db) => Promise<T>): Promise<T | undefined> {
  return readSnapshot(file, 'Goose', async (db) => ((await columnsOf(db)).size === 2 ? read(db) : undefined));
}

async function columnsOf(db: Db): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const { t, c } of await db.all<{ t: string; c: string }>(COLUMNS_SQL)) (out.get(t) ?? out.set(t, new Set()).get(t)!).add(c);
  return out;
}

function sessionRecord(s: SessionRow): JsonRecord {
  const model = obj(jsonOrUndefined(s.model_config_json));
  return {
    id: s.id,
    workingDir: s.working_dir,
    name: s.name,
    description: s.description,
    sessionType: s.session_type,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    model: str(model?.['model_name']) ?? null,
    parentSessionId: s.parent_session_id,
  };
}

function messageRecord(m: MessageRow): JsonRecord {
  const content = jsonOrUndefined(m.content_json);
  const metadata = obj(jsonOrUndefined(m.metadata_json));
  const message = { row: m.id, role: m.role, created: m.created_timestamp, ...(metadata ? { metadata } : {}) };
  return Array.isArray(content) ? { message: { ...message, content: content.map(slimBlock) } } : { message, damaged: true };
}

/**
 * A content block with only what is read: a tool response's text (cut to MAX_RESULT_CHARS), never an image's
 * data. Other blocks as they are.
 */
export function slimBlock(block: unknown): unknown {
  const b = obj(block);
  if (b?.['type'] === 'image') return { type: 'image', mimeType: b['mimeType'] ?? null };
  if (b?.['type'] !== 'toolResponse') return block;
  const result = obj(b['toolResult']);
  const value = result?.['value'];
  // the current shape `{content[], isError}`, or the older bare content list
  const content = Array.isArray(value) ? value : arr(obj(value)?.['content']);
  const isError = obj(value)?.['isError'] === true;
  return {
    type: 'toolResponse',
    id: b['id'] ?? null,
    toolResult: result?.['status'] === 'success' ? { status: 'success', value: { content: content.map(slimContent), ...(isError ? { isError } : {}) } } : result ?? null,
  };
}

/** An MCP content item as read: text cut short; an image or a binary resource by its kind only. */
function slimContent(item: unknown): unknown {
  const c = obj(item);
  if (!c) return item;
  const audience = obj(c['annotations'])?.['audience'];
  const text = str(c['text']) ?? str(obj(c['resource'])?.['text']);
  return {
    type: c['type'] ?? null,
    ...(text !== undefined ? { text: text.slice(0, MAX_RESULT_CHARS) } : {}),
    ...(Array.isArray(audience) ? { annotations: { audience } } : {}),
  };
}
