import * as path from 'node:path';
import type { Conversation } from '../model';
import { arr, obj, type ParseInput, type ParseOutput, type RecordGroupRead, type SourceAdapter, str } from './adapter';
import { parseRecordGroups } from './groupedRecords';
import { recordLines } from './lines';
import { spanMessage } from './message';
import { readAnySnapshot } from './walDatabase';

/**
 * Warp's agent prompts (warpdotdev/warp, `app/src/persistence/schema.rs`, `block_list.rs`, `sqlite.rs`): the terminal's
 * database `warp.sqlite` (WAL), table `ai_queries(id, exchange_id, conversation_id, start_ts, input, working_directory,
 * output_status, model_id, ...)`, one row per prompt: `input` is `[{"Query": {text, context, referenced_attachments}}]`,
 * `start_ts` the UTC time without a zone (`YYYY-MM-DD HH:MM:SS[.ffffff]`, Rust's `naive_utc`). Warp keeps only the
 * prompts there (for its up-arrow history); what the agent answered and did is in `agent_tasks` as protobuf blobs,
 * which are not read: a conversation is its prompts alone, so its exchange is its prompts. Project: the first
 * `working_directory` its prompts name. "Lines" are positions in the conversation (1 is the conversation record).
 */

export const WARP_DB_NAME = 'warp.sqlite';

const FINGERPRINT_SQL = 'SELECT conversation_id AS id, count(*) AS n, max(id) AS r, max(start_ts) AS t FROM ai_queries GROUP BY conversation_id';
const ROWS_SQL = `SELECT id, exchange_id, conversation_id, CAST(start_ts AS TEXT) AS start_ts, input, working_directory, model_id, output_status
  FROM ai_queries WHERE ?1 IS NULL OR conversation_id IN (SELECT value FROM json_each(?1)) ORDER BY conversation_id, start_ts, id`;

interface QueryRow {
  readonly id: number;
  readonly exchange_id: string | null;
  readonly conversation_id: string;
  readonly start_ts: string | null;
  readonly input: string | null;
  readonly working_directory: string | null;
  readonly model_id: string | null;
  readonly output_status: string | null;
}

export const warpAdapter: SourceAdapter = {
  agent: 'warp',
  lineFormat: 'sqlite',
  holdsManyProjects: true,
  readRecords: async (file) => recordLines((await readWarpGroups(file)).flatMap((g) => g.records)),
  recordGroups: { fingerprints: warpFingerprints, read: readWarpGroups },
  matchesPath: isWarpDb,
  claimsPath: isWarpDb,
  sniff: () => false,
  probeProject: () => undefined,
  parse,
};

function isWarpDb(file: string): boolean {
  return path.basename(file) === WARP_DB_NAME;
}

/** Each conversation's fingerprint by id: its prompts' count, last row and last time (rows are only ever added). */
export async function warpFingerprints(file: string): Promise<Map<string, string>> {
  const rows = await readAnySnapshot(file, 'Warp', (db) => db.all<{ id: string; n: number; r: number; t: unknown }>(FINGERPRINT_SQL));
  return new Map(rows.map((r) => [r.id, `${r.n}:${r.r}:${String(r.t)}`]));
}

/** Every conversation (or only the `ids`), oldest first: a `{conversation}` record, then a `{query}` record per prompt. */
export async function readWarpGroups(file: string, ids?: readonly string[]): Promise<RecordGroupRead[]> {
  const rows = await readAnySnapshot(file, 'Warp', (db) => db.all<QueryRow>(ROWS_SQL, [ids ? JSON.stringify(ids) : null]));
  const byConversation = new Map<string, QueryRow[]>();
  for (const r of rows) (byConversation.get(r.conversation_id) ?? byConversation.set(r.conversation_id, []).get(r.conversation_id)!).push(r);
  return [...byConversation.entries()]
    .map(([id, queries]) => ({ id, started: queries[0]?.start_ts ?? '', queries }))
    .sort((a, b) => a.started.localeCompare(b.started) || a.id.localeCompare(b.id))
    .map(({ id, queries }) => ({
      id,
      records: [
        { conversation: { id, project: queries.find((q) => q.working_directory)?.working_directory ?? null } },
        ...queries.map((q) => ({ query: { ...q, input: inputValue(q.input) } })),
      ],
    }));
}

/** One conversation's records (for "open raw"), or none when it is gone. */
export async function readWarpConversation(file: string, id: string): Promise<unknown[]> {
  return [...((await readWarpGroups(file, [id]))[0]?.records ?? [])];
}

/** The row's `input` as JSON, or the text as it is when it is not (said by the parse). */
function inputValue(input: string | null): unknown {
  try {
    return JSON.parse(input ?? '');
  } catch {
    return { unreadable: input };
  }
}

function parse(input: ParseInput): ParseOutput {
  return parseRecordGroups(input, {
    header: 'conversation',
    open: (header) => ({ conversation: startConversation(input.file, header) }),
    item: (rec, { conversation }, span) => {
      const query = obj(rec['query']);
      if (!query) return 'unknown-record';
      const text = queryText(query['input']);
      if (text === undefined) return Array.isArray(query['input']) ? 'unknown-record' : 'malformed-json';
      const timestamp = utcTime(str(query['start_ts']));
      const model = str(query['model_id']);
      // the conversation's model and start: its first prompt's
      if (model && conversation.meta.model === undefined) conversation.meta = { ...conversation.meta, model };
      if (timestamp && conversation.meta.startedAt === undefined) conversation.meta = { ...conversation.meta, startedAt: timestamp };
      return [spanMessage('prompt', span, text, { timestamp, uuid: str(query['exchange_id']) })];
    },
  });
}

function startConversation(file: string, header: Record<string, unknown>): Conversation {
  const project = str(header['project']);
  return { sourceFile: file, meta: { agent: 'warp', sessionId: str(header['id']) ?? '', line: 1, isSubagent: false, ...(project ? { project } : {}) }, messages: [] };
}

/** The prompt's text: its `Query` items' `text`; undefined when the input holds none (a later kind of input). */
function queryText(input: unknown): string | undefined {
  const texts = arr(input)
    .map((item) => str(obj(obj(item)?.['Query'])?.['text'])?.trim())
    .filter((t): t is string => !!t);
  return texts.length ? texts.join('\n\n') : undefined;
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff]`, UTC without a zone as Warp writes it, as ISO 8601 (milliseconds). */
export function utcTime(ts: string | undefined): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?$/.exec(ts?.trim() ?? '');
  if (!m) return undefined;
  const ms = (m[3] ?? '.000').slice(0, 4).padEnd(4, '0');
  const iso = `${m[1]}T${m[2]}${ms}Z`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}
