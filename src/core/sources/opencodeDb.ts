import type { RecordGroupRead } from './adapter';
import { readSnapshot } from './walDatabase';

/**
 * OpenCode's SQLite layout (`opencode.db`; `opencode-<channel>.db` for other channels, see opencode.ts), which
 * Kilo Code's `kilo.db` shares (`owner`: whose database it is, for messages):
 * tables `session` (`id, project_id, parent_id, directory, title, time_created, time_updated`), `message`
 * and `part` (`id, session_id, [message_id,] time_created, data`: the JSON object without its ids). Its
 * records are rebuilt as the JSON-file layout writes them, so one parser reads both.
 *
 * OpenCode has the file open and writes it (WAL) while we read: it is opened read-only (never created), the
 * reads run as one short snapshot (a WAL reader never blocks the writer) and the connection is closed at once.
 */

/** How much of a tool's output is read (the parser keeps no more). */
export const MAX_RESULT_CHARS = 20_000;

// ?1: the session ids to read as a JSON array, or NULL for all
const SESSION_SQL = `SELECT id, project_id, parent_id, directory, title, time_created, time_updated FROM session
  WHERE ?1 IS NULL OR id IN (SELECT value FROM json_each(?1)) ORDER BY time_created, id`;
const MESSAGE_SQL = `SELECT id, session_id, data FROM message WHERE ?1 IS NULL OR session_id IN (SELECT value FROM json_each(?1))
  ORDER BY session_id, time_created, id`;
// a tool part can hold megabytes of output: cut in SQL, before it is ever read here
const PART_SQL = `SELECT id, message_id, CASE WHEN json_valid(data) AND json_type(data, '$.state.output') = 'text'
    THEN json_set(data, '$.state.output', substr(json_extract(data, '$.state.output'), 1, ${MAX_RESULT_CHARS})) ELSE data END AS data
  FROM part WHERE ?1 IS NULL OR session_id IN (SELECT value FROM json_each(?1)) ORDER BY message_id, id`;

/**
 * What changes whenever a session does, without reading a message's or part's data: the session's own row
 * (\`time_updated\`, which OpenCode raises on every message, directory, title) and its messages' and parts' count
 * and latest \`time_updated\` (a part is updated in place while it streams). One pass over each table.
 */
const SESSION_FINGERPRINT_SQL = 'SELECT id, time_updated AS t, directory AS d, title AS n FROM session';
const MESSAGE_FINGERPRINT_SQL = 'SELECT session_id AS id, count(*) AS c, max(time_updated) AS t FROM message GROUP BY session_id';
const PART_FINGERPRINT_SQL = 'SELECT session_id AS id, count(*) AS c, max(time_updated) AS t FROM part GROUP BY session_id';

interface SessionRow {
  readonly id: string;
  readonly project_id: string | null;
  readonly parent_id: string | null;
  readonly directory: string | null;
  readonly title: string | null;
  readonly time_created: number | null;
  readonly time_updated: number | null;
}

/** Every session's records (or only `sessionId`'s), one session after another. */
export async function readOpenCodeDbRecords(file: string, sessionId?: string, owner = 'OpenCode'): Promise<unknown[]> {
  return (await readOpenCodeDbGroups(file, sessionId === undefined ? undefined : [sessionId], owner)).flatMap((g) => g.records);
}

/**
 * Every session in the database (or only the `sessionIds`), oldest first, each as its records: a `{session}`
 * record, then each message's `{message}` record followed by its `{part}` records, in id order.
 */
export async function readOpenCodeDbGroups(file: string, sessionIds?: readonly string[], owner = 'OpenCode'): Promise<RecordGroupRead[]> {
  const params = [sessionIds ? JSON.stringify(sessionIds) : null];
  // one snapshot: a session, its messages and their parts as of the same moment
  const rows = await readSnapshot(file, owner, async (db) => ({
    sessions: await db.all<SessionRow>(SESSION_SQL, params),
    messages: await db.all<{ id: string; session_id: string; data: string }>(MESSAGE_SQL, params),
    parts: await db.all<{ id: string; message_id: string; data: string }>(PART_SQL, params),
  }));
  return sessionRecords(rows.sessions, rows.messages, rows.parts);
}

/** Each session's fingerprint by id (see SESSION_FINGERPRINT_SQL): a session changed when it did. */
export async function openCodeFingerprints(file: string, owner = 'OpenCode'): Promise<Map<string, string>> {
  type Count = { id: string; c: number; t: number | null };
  const rows = await readSnapshot(file, owner, async (db) => ({
    sessions: await db.all<{ id: string; t: number | null; d: string | null; n: string | null }>(SESSION_FINGERPRINT_SQL),
    messages: await db.all<Count>(MESSAGE_FINGERPRINT_SQL),
    parts: await db.all<Count>(PART_FINGERPRINT_SQL),
  }));
  const counts = (list: readonly Count[]): Map<string, string> => new Map(list.map((r) => [r.id, `${r.c}:${r.t ?? ''}`]));
  const messages = counts(rows.messages);
  const parts = counts(rows.parts);
  return new Map(rows.sessions.map((s) => [s.id, JSON.stringify([s.t, s.d, s.n, messages.get(s.id) ?? '0', parts.get(s.id) ?? '0'])]));
}

function sessionRecords(
  sessions: readonly SessionRow[],
  messages: ReadonlyArray<{ id: string; session_id: string; data: string }>,
  parts: ReadonlyArray<{ id: string; message_id: string; data: string }>,
): RecordGroupRead[] {
  const partsOf = groupBy(parts, (p) => p.message_id);
  const messagesOf = groupBy(messages, (m) => m.session_id);
  return sessions.map((s) => {
    const records: unknown[] = [];
    records.push({
      session: {
        id: s.id,
        projectID: s.project_id,
        ...(s.parent_id ? { parentID: s.parent_id } : {}),
        directory: s.directory,
        title: s.title,
        time: { created: s.time_created, updated: s.time_updated },
      },
    });
    for (const m of messagesOf.get(s.id) ?? []) {
      records.push({ message: { ...data(m.data), id: m.id, sessionID: s.id } });
      for (const p of partsOf.get(m.id) ?? []) records.push({ part: { ...data(p.data), id: p.id, messageID: m.id, sessionID: s.id } });
    }
    return { id: s.id, records };
  });
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const list = map.get(key(r));
    if (list) list.push(r);
    else map.set(key(r), [r]);
  }
  return map;
}

/** A row's `data`; one that is not a JSON object keeps its ids only (its kind is then unknown and counted). */
function data(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
