import type { Db } from '../store/db';
import type { RecordGroupRead } from './adapter';
import { jsonOrUndefined } from './adapter';
import { readSnapshot } from './walDatabase';

/**
 * Crush's SQLite database (charmbracelet/crush `internal/db/migrations/`): `crush.db` in a project's data directory
 * (`<project>/.crush` by default), tables `sessions` (`id, parent_session_id, title, message_count, created_at,
 * updated_at, ...`) and `messages` (`id, session_id, role: user | assistant | tool | system, parts, model,
 * created_at, updated_at, finished_at`, later `provider`, `is_summary_message`). Times are Unix seconds (the
 * migration's comments say milliseconds; its triggers and inserts write `strftime('%s', 'now')`). `parts` is a JSON
 * array of `{type, data}` envelopes (`internal/message/message.go` marshalParts): `text`, `reasoning`, `tool_call`
 * `{id, name, input (a JSON string), finished}`, `tool_result` `{tool_call_id, name, content, data, metadata,
 * is_error}`, `finish` `{reason, time, message}`, `image_url`, `binary` `{Path, MIMEType, Data}`, `shell_command`
 * `{command, output, exit_code}`.
 *
 * Crush has the file open and writes it (WAL) while we read: it is opened read-only, read as one short snapshot and
 * closed at once. Only what the conversation needs is read, trimmed in SQL: an attachment's or a tool result's
 * base64 data and a tool's metadata (an edit's whole file before and after) never leave the database.
 */

/** How much of a tool's output (or a shell command's) is read. */
export const MAX_RESULT_CHARS = 20_000;

// a part of the parts array: objects trimmed of what is not read, anything else as it is
const PART_SQL = `CASE
  WHEN p.type = 'array' THEN json(p.value)
  WHEN p.type <> 'object' THEN json_quote(p.value)
  WHEN json_extract(p.value, '$.type') = 'binary' THEN json_object('type', 'binary', 'data',
    json_object('Path', json_extract(p.value, '$.data.Path'), 'MIMEType', json_extract(p.value, '$.data.MIMEType')))
  WHEN json_extract(p.value, '$.type') = 'image_url' THEN json_object('type', 'image_url', 'data', json_object('url',
    CASE WHEN json_extract(p.value, '$.data.url') LIKE 'data:%' THEN 'data:' ELSE json_extract(p.value, '$.data.url') END))
  WHEN json_extract(p.value, '$.type') = 'tool_result' THEN json_remove(json_set(p.value,
    '$.data.content', substr(json_extract(p.value, '$.data.content'), 1, ${MAX_RESULT_CHARS})), '$.data.data', '$.data.metadata')
  WHEN json_extract(p.value, '$.type') = 'shell_command' THEN json_set(p.value,
    '$.data.output', substr(json_extract(p.value, '$.data.output'), 1, ${MAX_RESULT_CHARS}))
  ELSE json(p.value) END`;

// ?1: the session ids to read as a JSON array, or NULL for all
const SESSION_SQL = `SELECT id, parent_session_id, title, created_at, updated_at FROM sessions
  WHERE ?1 IS NULL OR id IN (SELECT value FROM json_each(?1)) ORDER BY created_at, id`;
const messageSql = (optional: string): string => `SELECT m.id, m.session_id, m.role, m.model, ${optional}, m.created_at, m.finished_at,
    CASE WHEN json_valid(m.parts) THEN json_type(m.parts) = 'array' ELSE 0 END AS ok,
    CASE WHEN json_valid(m.parts) THEN CASE WHEN json_type(m.parts) = 'array'
      THEN (SELECT json_group_array(${PART_SQL}) FROM json_each(m.parts) p) END END AS parts
  FROM messages m WHERE ?1 IS NULL OR m.session_id IN (SELECT value FROM json_each(?1))
  ORDER BY m.session_id, m.created_at, m.rowid`;

/**
 * What changes whenever a session does, without reading a finished message's parts: the session's row (`updated_at`
 * in seconds, its title, its message count) and its messages' count, highest rowid, latest `updated_at`, how many
 * are finished, and the length of those still streaming (Crush rewrites a message's parts many times a second while
 * it streams; a message that finishes gets its `finished_at`).
 */
const SESSION_FINGERPRINT_SQL = 'SELECT id, updated_at AS t, title AS n, message_count AS c FROM sessions';
const MESSAGE_FINGERPRINT_SQL = `SELECT session_id AS id, count(*) AS c, max(rowid) AS r, max(updated_at) AS t, count(finished_at) AS f,
    sum(CASE WHEN role = 'assistant' AND finished_at IS NULL THEN length(parts) ELSE 0 END) AS s
  FROM messages GROUP BY session_id`;

const TABLES_SQL = "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'messages')";
const MESSAGE_COLUMNS_SQL = "SELECT name FROM pragma_table_info('messages') WHERE name IN ('provider', 'is_summary_message')";

interface SessionRow {
  readonly id: string;
  readonly parent_session_id: string | null;
  readonly title: string | null;
  readonly created_at: number | null;
  readonly updated_at: number | null;
}

interface MessageRow {
  readonly id: string;
  readonly session_id: string;
  readonly role: string | null;
  readonly model: string | null;
  readonly provider: string | null;
  readonly is_summary_message: number | null;
  readonly created_at: number | null;
  readonly finished_at: number | null;
  readonly ok: number;
  readonly parts: string | null;
}

/** Each session's fingerprint by id (see MESSAGE_FINGERPRINT_SQL). */
export async function crushFingerprints(file: string): Promise<Map<string, string>> {
  const rows = await query(file, async (db) => ({
    sessions: await db.all<{ id: string; t: number | null; n: string | null; c: number | null }>(SESSION_FINGERPRINT_SQL),
    messages: await db.all<{ id: string; c: number; r: number; t: number | null; f: number; s: number | null }>(MESSAGE_FINGERPRINT_SQL),
  }));
  if (!rows) return new Map();
  const messages = new Map(rows.messages.map((m) => [m.id, `${m.c}:${m.r}:${m.t ?? ''}:${m.f}:${m.s ?? 0}`]));
  return new Map(rows.sessions.map((s) => [s.id, JSON.stringify([s.t, s.n, s.c, messages.get(s.id) ?? '0'])]));
}

/**
 * Every session (or only the `sessionIds`), oldest first, each as its records: a `{session}` record, then a
 * `{message}` record per message in the order Crush lists them (by time, then as written); `damaged` when a
 * message's parts are not a JSON array.
 */
export async function readCrushGroups(file: string, sessionIds?: readonly string[]): Promise<RecordGroupRead[]> {
  const params = [sessionIds ? JSON.stringify(sessionIds) : null];
  const rows = await query(file, async (db) => {
    // columns later versions added
    const have = new Set((await db.all<{ name: string }>(MESSAGE_COLUMNS_SQL)).map((c) => c.name));
    const optional = ['provider', 'is_summary_message'].map((c) => (have.has(c) ? `m.${c}` : `NULL AS ${c}`)).join(', ');
    return { sessions: await db.all<SessionRow>(SESSION_SQL, params), messages: await db.all<MessageRow>(messageSql(optional), params) };
  });
  if (!rows) return [];
  const of = new Map<string, MessageRow[]>();
  for (const m of rows.messages) (of.get(m.session_id) ?? of.set(m.session_id, []).get(m.session_id)!).push(m);
  return rows.sessions.map((s) => ({
    id: s.id,
    records: [
      { session: { id: s.id, parentSessionId: s.parent_session_id, title: s.title, createdAt: s.created_at, updatedAt: s.updated_at } },
      ...(of.get(s.id) ?? []).map(messageRecord),
    ],
  }));
}

/** One session's records (for "open raw"), empty when it is gone. */
export async function readCrushSession(file: string, sessionId: string): Promise<readonly unknown[]> {
  return (await readCrushGroups(file, [sessionId]))[0]?.records ?? [];
}

function messageRecord(m: MessageRow): unknown {
  const message = {
    id: m.id,
    role: m.role,
    model: m.model,
    provider: m.provider,
    isSummary: m.is_summary_message === 1,
    createdAt: m.created_at,
    finishedAt: m.finished_at,
  };
  const parts = m.ok ? jsonOrUndefined(m.parts) : undefined;
  return Array.isArray(parts) ? { message: { ...message, parts } } : { message, damaged: true };
}

/** Runs `read` on the database as one snapshot; nothing when it holds no Crush tables (yet). */
function query<T>(file: string, read: (db: Db) => Promise<T>): Promise<T | undefined> {
  return readSnapshot(file, 'Crush', async (db) => ((await db.all(TABLES_SQL)).length === 2 ? read(db) : undefined));
}
