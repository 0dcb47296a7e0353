import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Db } from '../store/db';
import { RecallError } from '../errors';
import type { RecordGroupRead } from './adapter';
import { cutLongStrings } from './boundedRecords';
import { openTranscript } from './lines';
import { databaseState, readAnySnapshot } from './walDatabase';

/**
 * Trae's chats (ByteDance's VS Code fork, older versions) in the editor's own storage databases, `state.vscdb`
 * in `<user data>/User/workspaceStorage/<id>/` (a workspace's) and `<user data>/User/globalStorage/`: VS Code's
 * `ItemTable(key, value)`, key `memento/icube-ai-agent-storage`, value one JSON document
 * `{list: [{sessionId, createdAt, updatedAt, model, messages[{role, content, agentTaskContent, timestamp, model,
 * turnIndex}]}]}` (read from agentsview's reader, not from a capture). Newer Trae keeps its chats in an encrypted
 * database (`ModularData/ai-agent/database.db`), which is not read.
 *
 * VS Code writes these databases with a rollback journal, not a write-ahead log (its storage sets no journal mode),
 * so they are read from a copy taken when no write is under way (walDatabase.ts readAnySnapshot), never locked.
 */

export const TRAE_STORAGE_KEY = 'memento/icube-ai-agent-storage';
/** Trae's user-data folders (international, China and SOLO editions). */
const TRAE_USER_DATA_RE = /^(?:trae|trae cn|trae solo cn)$/i;
const VALUE_SQL = 'SELECT CAST(value AS TEXT) AS v FROM ItemTable WHERE key = ?';

/** A workspace's storage database, `workspaceStorage/<id>/state.vscdb` (VS Code's own holds no Trae chats). */
export function isWorkspaceStateDb(file: string): boolean {
  return path.basename(file) === 'state.vscdb' && path.basename(path.dirname(path.dirname(file))) === 'workspaceStorage';
}

/** Trae's global storage database: `globalStorage/state.vscdb` in a user-data folder named as Trae names its own. */
export function isTraeGlobalDb(file: string): boolean {
  if (path.basename(file) !== 'state.vscdb' || path.basename(path.dirname(file)) !== 'globalStorage') return false;
  return TRAE_USER_DATA_RE.test(path.basename(path.dirname(path.dirname(path.dirname(file)))));
}

const KEY_BYTES = Buffer.from(TRAE_STORAGE_KEY);
const SCAN_CHUNK = 1024 * 1024;

/**
 * Whether a database's bytes name Trae's storage key, read as a file (no SQLite, no lock): a row with that key has it
 * written out whole (a key this short is never split onto an overflow page). Freed pages can still hold it after the
 * row is gone, so a yes may read no sessions; a no is certain.
 */
export async function holdsTraeSessions(file: string): Promise<boolean> {
  const { handle, st } = await openTranscript(file);
  try {
    const buf = Buffer.alloc(Math.min(SCAN_CHUNK + KEY_BYTES.length, Math.max(st.size, 1)));
    for (let at = 0; at < st.size; at += SCAN_CHUNK) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, at);
      if (buf.subarray(0, bytesRead).includes(KEY_BYTES)) return true;
    }
    return false;
  } finally {
    await handle.close();
  }
}

/** One session entry as read: its id, the JSON it is, or why it cannot be read. */
interface SessionEntry {
  readonly id: string;
  readonly entry?: Record<string, unknown>;
  readonly damaged?: string;
  readonly fingerprint: string;
}

/**
 * The last entries read for fingerprints, kept for the read that follows them in the same run (one copy of the
 * database, one parse of its value), by the database's state when read.
 */
const lastRead = new Map<string, { state: string; entries: SessionEntry[] }>();

/** Each session's fingerprint by id: a hash of its entry, which Trae rewrites whole when the session changes. */
export async function traeFingerprints(file: string): Promise<Map<string, string>> {
  const state = await stateOf(file);
  const entries = await readEntries(file);
  lastRead.set(file, { state, entries });
  return new Map(entries.map((e) => [e.id, e.fingerprint]));
}

/**
 * Every session (or only the `ids`), oldest first, as its records: a `{session}` record (its id, times and model), then a
 * `{message}` record per element of its `messages`; an entry that is not a session gives its `{session}` record with
 * `damaged` saying why.
 */
export async function readTraeGroups(file: string, ids?: readonly string[]): Promise<RecordGroupRead[]> {
  const kept = lastRead.get(file);
  lastRead.delete(file);
  const entries = kept && kept.state === (await stateOf(file)) ? kept.entries : await readEntries(file);
  const wanted = ids ? new Set(ids) : undefined;
  return entries
    .filter((e) => !wanted || wanted.has(e.id))
    .map((e, i) => ({ e, i, t: startOf(e.entry) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map(({ e }) => ({ id: e.id, records: sessionRecords(e) }));
}

/** One session's records (for "open raw"), or none when it is gone. */
export async function readTraeSession(file: string, id: string): Promise<unknown[]> {
  return [...((await readTraeGroups(file, [id]))[0]?.records ?? [])];
}

async function stateOf(file: string): Promise<string> {
  const st = await databaseState(file);
  return `${st.size}:${st.mtimeMs}`;
}

async function readEntries(file: string): Promise<SessionEntry[]> {
  const row = await readAnySnapshot(file, 'Trae', (db: Db) => db.get<{ v: string | null }>(VALUE_SQL, [TRAE_STORAGE_KEY]));
  // a database without the key holds no Trae chats (VS Code's own, or Trae before its first chat)
  if (!row?.v) return [];
  let value: unknown;
  try {
    value = JSON.parse(row.v);
  } catch (err) {
    throw new RecallError('source-unreadable', `Trae's chat storage in ${file} is not JSON (${(err as Error).message}); it is read again on the next run.`);
  }
  const list = (value as { list?: unknown } | null)?.list;
  if (!Array.isArray(list)) throw new RecallError('source-unreadable', `Trae's chat storage in ${file} has no list of sessions; it is read again on the next run.`);
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const text = JSON.stringify(raw) ?? 'null';
    const fingerprint = createHash('sha1').update(text).digest('hex');
    const entry = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    const id = typeof entry?.['sessionId'] === 'string' && entry['sessionId'].trim() ? entry['sessionId'].trim() : undefined;
    // an entry that cannot be a session is kept as a record saying so (counted), under its place in the list
    if (!entry) return { id: `#${i + 1}`, damaged: 'it is not a JSON object', fingerprint };
    if (!id) return { id: `#${i + 1}`, damaged: 'it has no sessionId', fingerprint };
    if (seen.has(id)) return { id: `${id}#${i + 1}`, damaged: `a second entry for session ${id}`, fingerprint };
    seen.add(id);
    return { id, entry, fingerprint };
  });
}

function sessionRecords(e: SessionEntry): unknown[] {
  if (!e.entry) return [{ session: { id: e.id }, damaged: e.damaged }];
  const { messages, sessionId: _id, ...rest } = e.entry;
  const header = { id: e.id, ...(cutLongStrings(rest) as Record<string, unknown>) };
  if (!Array.isArray(messages)) return [{ session: header, damaged: 'its messages are not a list' }];
  return [{ session: header }, ...messages.map((m) => ({ message: cutLongStrings(m) }))];
}

/** A session's start for ordering: `createdAt` in seconds or milliseconds, or an ISO time. */
function startOf(entry: Record<string, unknown> | undefined): number {
  const t = entry?.['createdAt'] ?? entry?.['updatedAt'];
  if (typeof t === 'number') return t < 1e11 ? t * 1000 : t;
  return typeof t === 'string' ? Date.parse(t) || 0 : 0;
}
