import type { Db } from '../store/db';
import type { RecordGroupRead } from './adapter';
import { cutLongStrings } from './boundedRecords';
import { readAnySnapshot } from './walDatabase';

/**
 * Kiro CLI's database, `data.sqlite3` (the Amazon Q Developer CLI's schema): table `conversations_v2(key, conversation_id,
 * value, created_at, updated_at)`, key the working directory, value the whole conversation as JSON, times epoch ms.
 * The same conversation can be saved under several keys (resumed from another folder): the row updated last is the
 * conversation, the others are older copies. Kiro writes it without a write-ahead log as far as its source shows, so
 * it is read from a copy taken when no write is under way (walDatabase.ts readAnySnapshot), never locked.
 */

/** The rows of a conversation, newest first: the first is the conversation. */
const NEWEST_LAST = 'ORDER BY conversation_id, updated_at DESC, created_at DESC, key DESC';
const FINGERPRINT_SQL = `SELECT conversation_id AS id, key, updated_at AS t, length(value) AS n FROM conversations_v2 ${NEWEST_LAST}`;
const ROWS_SQL = `SELECT key, conversation_id AS id, value, created_at, updated_at FROM conversations_v2
  WHERE ?1 IS NULL OR conversation_id IN (SELECT value FROM json_each(?1)) ${NEWEST_LAST}`;

interface ConversationRow {
  readonly key: string;
  readonly id: string;
  readonly value: string | null;
  readonly created_at: number | null;
  readonly updated_at: number | null;
}

/** Each conversation's fingerprint by id: its newest row's key, time and length. */
export async function kiroFingerprints(file: string): Promise<Map<string, string>> {
  const rows = await readAnySnapshot(file, 'Kiro CLI', (db) => db.all<{ id: string; key: string; t: number | null; n: number | null }>(FINGERPRINT_SQL));
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.id)) out.set(r.id, JSON.stringify([r.key, r.t, r.n]));
  return out;
}

/**
 * Every conversation (or only the `ids`), oldest first, as its records: a `{conversation}` record (its id, the key
 * it was saved under, its times, its model), then a `{turn}` record per entry of its `history`; a value that is not
 * a JSON object gives the `{conversation}` record with `damaged`.
 */
export async function readKiroGroups(file: string, ids?: readonly string[]): Promise<RecordGroupRead[]> {
  const rows = await readAnySnapshot(file, 'Kiro CLI', (db: Db) => db.all<ConversationRow>(ROWS_SQL, [ids ? JSON.stringify(ids) : null]));
  const newest = new Map<string, ConversationRow>();
  for (const r of rows) if (!newest.has(r.id)) newest.set(r.id, r);
  return [...newest.values()]
    .sort((a, b) => (a.created_at ?? 0) - (b.created_at ?? 0) || a.id.localeCompare(b.id))
    .map((r) => ({ id: r.id, records: conversationRecords(r) }));
}

/** One conversation's records (for "open raw"), or none when it is gone. */
export async function readKiroConversation(file: string, id: string): Promise<unknown[]> {
  return [...((await readKiroGroups(file, [id]))[0]?.records ?? [])];
}

function conversationRecords(row: ConversationRow): unknown[] {
  const header = { id: row.id, key: row.key, created_at: row.created_at, updated_at: row.updated_at };
  let value: unknown;
  try {
    value = JSON.parse(row.value ?? '');
  } catch (err) {
    return [{ conversation: header, damaged: `its value is not JSON (${(err as Error).message})` }];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [{ conversation: header, damaged: 'its value is not a JSON object' }];
  const state = value as Record<string, unknown>;
  const modelInfo = state['model_info'];
  const model = typeof state['model'] === 'string' ? state['model'] : modelInfo && typeof modelInfo === 'object' ? (modelInfo as Record<string, unknown>)['model_id'] : undefined;
  const history = Array.isArray(state['history']) ? state['history'] : [];
  return [{ conversation: { ...header, ...(typeof model === 'string' ? { model } : {}) } }, ...history.map((turn) => ({ turn: cutLongStrings(turn) }))];
}
