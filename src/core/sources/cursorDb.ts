import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { Db } from '../store/db';
import { arr, jsonOrUndefined, num, obj, str } from './adapter';
import { uriToPath } from './copilot';
import type { RecordGroupRead } from './adapter';
import { openTranscript, readSideFile, recordLines, type SourceLine } from './lines';
import { databaseHeader, readSnapshot } from './walDatabase';

/**
 * Reading Cursor's chat database, `<ud>/User/globalStorage/state.vscdb`: table `cursorDiskKV`, keys
 * `composerData:<composerId>` (a conversation: `name`, `createdAt`, `workspaceIdentifier`,
 * `fullConversationHeadersOnly[{bubbleId, type}]`, or the older inline `conversation[]`) and
 * `bubbleId:<composerId>:<bubbleId>` (one message: `type` 1 user / 2 assistant, `text`, `toolFormerData`).
 *
 * Cursor has the file open and writes it (WAL) while we read: it is opened read-only (never created), reads
 * run as one short snapshot (a WAL reader never blocks the writer) and the connection is closed at once.
 * Only the fields the conversation needs are selected, in SQL: bubbles can hold megabytes of tool output,
 * and composer rows hold encryption keys, which are never read. `ItemTable` (which holds Cursor's login
 * tokens) is never read from this database.
 */

type JsonRecord = Record<string, unknown>;

/** How much of a tool's result is kept (the verbatim rendering cuts results to 600 characters anyway). */
const RESULT_CHARS = 4000;
/** The database's first page, where its schema starts: Cursor's two tables fit in it. */
const SCHEMA_PAGE_BYTES = 4096;

const COMPOSER_SQL = `
  SELECT substr(key, 14) AS id, json_valid(v) AS ok, CASE WHEN json_valid(v) THEN json_object(
    'composerId', json_extract(v, '$.composerId'), 'name', json_extract(v, '$.name'),
    'createdAt', json_extract(v, '$.createdAt'), 'lastUpdatedAt', json_extract(v, '$.lastUpdatedAt'),
    'workspaceIdentifier', json_extract(v, '$.workspaceIdentifier'),
    'modelName', json_extract(v, '$.modelConfig.modelName'),
    'headers', json_extract(v, '$.fullConversationHeadersOnly'), 'conversation', json_extract(v, '$.conversation'),
    'fileSelections', json_extract(v, '$.context.fileSelections')) END AS record
  FROM (SELECT key, CAST(value AS TEXT) AS v FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'
        AND (?1 IS NULL OR key IN (SELECT 'composerData:' || value FROM json_each(?1))))`;

const BUBBLE_SQL = `
  SELECT substr(key, 10) AS id, json_valid(v) AS ok, CASE WHEN json_valid(v) THEN json_object(
    'bubbleId', json_extract(v, '$.bubbleId'), 'type', json_extract(v, '$.type'), 'text', json_extract(v, '$.text'),
    'createdAt', json_extract(v, '$.createdAt'), 'modelName', json_extract(v, '$.modelInfo.modelName'),
    'fileSelections', json_extract(v, '$.context.fileSelections'),
    'tool', CASE WHEN json_type(v, '$.toolFormerData') = 'object' THEN json_object(
      'name', json_extract(v, '$.toolFormerData.name'), 'tool', json_extract(v, '$.toolFormerData.tool'),
      'toolCallId', json_extract(v, '$.toolFormerData.toolCallId'), 'status', json_extract(v, '$.toolFormerData.status'),
      'rawArgs', json_extract(v, '$.toolFormerData.rawArgs'), 'params', json_extract(v, '$.toolFormerData.params'),
      'result', substr(json_extract(v, '$.toolFormerData.result'), 1, ${RESULT_CHARS})) END) END AS record
  FROM (SELECT key, CAST(value AS TEXT) AS v FROM cursorDiskKV WHERE ?1 IS NULL AND key >= 'bubbleId:' AND key < 'bubbleId;'
        UNION ALL
        SELECT c.key, CAST(c.value AS TEXT) AS v FROM json_each(?1) j
          JOIN cursorDiskKV c ON c.key >= 'bubbleId:' || j.value || ':' AND c.key < 'bubbleId:' || j.value || ';')`;

/**
 * What changes whenever a conversation does, read from the key index and the composers alone (never the
 * bubbles' values): the composer row's rowid, length and \`lastUpdatedAt\`, its bubble rows' count and highest rowid.
 * Cursor writes a row by replacing it (its table is \`UNIQUE ON CONFLICT REPLACE\`), which gives it a new rowid.
 */
const COMPOSER_FINGERPRINT_SQL = `
  SELECT substr(key, 14) AS id, rowid AS r, length(v) AS n, CASE WHEN json_valid(v) THEN json_extract(v, '$.lastUpdatedAt') END AS t
  FROM (SELECT key, rowid, CAST(value AS TEXT) AS v FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;')`;
const BUBBLE_FINGERPRINT_SQL = `
  SELECT substr(key, 10, instr(substr(key, 10), ':') - 1) AS id, count(*) AS c, max(rowid) AS r
  FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;' GROUP BY 1`;

/** One conversation as read: its composer's fields, the project it belongs to, its bubbles in order. */
export interface CursorComposer {
  readonly composer: JsonRecord;
  readonly project?: string;
  /** In conversation order; `undefined` where the bubble is missing or its JSON is damaged. */
  readonly bubbles: ReadonlyArray<{ readonly bubbleId: string; readonly bubble: JsonRecord | undefined; readonly damaged: boolean }>;
}

/** Whether a `state.vscdb` holds Cursor's chats (VS Code's own has no `cursorDiskKV` table). */
const HAS_TABLE_SQL = "SELECT 1 AS yes FROM sqlite_master WHERE type = 'table' AND name = 'cursorDiskKV'";

/** Every conversation in the database (or only the `composerIds`'), oldest first, attributed to its workspace. */
export async function readCursorComposers(file: string, composerIds?: readonly string[]): Promise<CursorComposer[]> {
  const rows = await readRows(file, composerIds ? JSON.stringify(composerIds) : null);
  if (!rows) return [];
  const bubbles = new Map<string, Map<string, { record: JsonRecord | undefined; damaged: boolean }>>();
  for (const row of rows.bubbles) {
    const [composer, bubbleId] = splitOnce(row.id, ':');
    if (!composer || !bubbleId) continue;
    const of = bubbles.get(composer) ?? bubbles.set(composer, new Map()).get(composer)!;
    of.set(bubbleId, { record: row.ok ? obj(jsonOrUndefined(row.record)) : undefined, damaged: !row.ok });
  }
  const composers = rows.composers
    .map((row) => ({ id: row.id, record: row.ok ? obj(jsonOrUndefined(row.record)) : undefined }))
    .filter((c): c is { id: string; record: JsonRecord } => c.record !== undefined)
    .sort((a, b) => (num(a.record['createdAt']) ?? 0) - (num(b.record['createdAt']) ?? 0) || a.id.localeCompare(b.id));
  const storage = new WorkspaceStorage(path.join(path.dirname(path.dirname(file)), 'workspaceStorage'));
  const out: CursorComposer[] = [];
  for (const { id, record } of composers) {
    const own = bubbles.get(id) ?? new Map();
    const inline = arr(record['conversation']).map(obj);
    const headers = arr(record['headers']).map(obj);
    const list = (headers.length > 0 ? headers : inline).map((h, i) => {
      const bubbleId = str(h?.['bubbleId']) ?? `#${i + 1}`;
      const stored = own.get(bubbleId);
      // the older layout keeps each bubble inside the composer
      const bubble = stored?.record ?? (headers.length === 0 ? h : undefined);
      return { bubbleId, bubble, damaged: stored?.damaged ?? false };
    });
    const { headers: _h, conversation: _c, ...composer } = record;
    const project = projectOf(composer) ?? (await storage.projectOf(id));
    out.push({ composer: { ...composer, composerId: id }, ...(project ? { project } : {}), bubbles: list });
  }
  return out;
}

/**
 * The conversations (all, or the `composerIds`') as the records an adapter parses: a `{"composer", "project"}`
 * record, then a `{"composerId", "position", "bubble"}` record per bubble (position 1-based in its conversation).
 */
export async function readCursorGroups(file: string, composerIds?: readonly string[]): Promise<RecordGroupRead[]> {
  return (await readCursorComposers(file, composerIds)).map((c) => {
    const composerId = str(c.composer['composerId']) ?? '';
    const records: unknown[] = [{ composer: c.composer, ...(c.project ? { project: c.project } : {}) }];
    for (const [i, b] of c.bubbles.entries()) {
      records.push({ composerId, position: i + 1, bubbleId: b.bubbleId, bubble: b.bubble ?? null, ...(b.damaged ? { damaged: true } : {}) });
    }
    return { id: composerId, records };
  });
}

/** Every conversation's records as numbered lines, one after another (a whole read). */
export async function readCursorRecords(file: string): Promise<SourceLine[]> {
  return recordLines((await readCursorGroups(file)).flatMap((g) => g.records));
}

/** Each conversation's fingerprint by composer id (see COMPOSER_FINGERPRINT_SQL); a conversation changed when it did. */
export async function cursorFingerprints(file: string): Promise<Map<string, string>> {
  const rows = await query(file, async (db) => ({
    composers: await db.all<{ id: string; r: number; n: number; t: unknown }>(COMPOSER_FINGERPRINT_SQL),
    bubbles: await db.all<{ id: string; c: number; r: number }>(BUBBLE_FINGERPRINT_SQL),
  }));
  const bubbles = new Map((rows?.bubbles ?? []).map((b) => [b.id, `${b.c}:${b.r}`]));
  return new Map((rows?.composers ?? []).map((c) => [c.id, `${c.r}:${c.n}:${String(c.t ?? '')}:${bubbles.get(c.id) ?? '0'}`]));
}

interface Row {
  readonly id: string;
  readonly ok: number;
  readonly record: string | null;
}

async function readRows(file: string, composerIds: string | null): Promise<{ composers: Row[]; bubbles: Row[] } | undefined> {
  return query(file, async (db) => ({
    composers: await db.all<Row>(COMPOSER_SQL, [composerIds]),
    bubbles: await db.all<Row>(BUBBLE_SQL, [composerIds]),
  }));
}

/**
 * Runs `read` on the database as one snapshot (a composer and its bubbles as of the same moment); nothing
 * when the database holds no chats (VS Code's own `state.vscdb`, which may well be in rollback-journal mode).
 */
function query<T>(file: string, read: (db: Db) => Promise<T>): Promise<T | undefined> {
  return readSnapshot(file, 'Cursor', async (db) => ((await db.get(HAS_TABLE_SQL)) ? read(db) : undefined), mayHoldChats);
}

/**
 * Whether a `state.vscdb` that cannot be read is Cursor's, to be reported: it names Cursor's chat table, or it
 * lies in Cursor's own user-data folder and is empty or damaged (then nothing in it says whose it is). VS Code's
 * own holds no chats and is passed over.
 */
async function mayHoldChats(file: string): Promise<boolean> {
  if (await namesChatTable(file)) return true;
  const userData = path.basename(path.dirname(path.dirname(path.dirname(file))));
  return /^Cursor( |$)/.test(userData) && (await databaseHeader(file)) !== 'rollback-journal';
}

/** The folder a composer records as its workspace (recent Cursor versions). */
function projectOf(composer: JsonRecord): string | undefined {
  const id = obj(composer['workspaceIdentifier']);
  const uri = obj(id?.['uri']) ?? obj(id?.['configPath']);
  if (!uri) return undefined;
  const fsPath = str(uri['fsPath']) ?? (str(uri['external']) && uriToPath(str(uri['external'])!)) ?? str(uri['path']);
  if (!fsPath) return undefined;
  // a multi-root workspace is named by its .code-workspace file: the folder it lies in
  return obj(id?.['uri']) ? fsPath : path.dirname(fsPath);
}

/**
 * Older Cursor versions record a conversation's workspace only in that workspace's own storage:
 * `workspaceStorage/<id>/state.vscdb` `ItemTable` key `composer.composerData` lists its composers, and
 * `workspaceStorage/<id>/workspace.json` names the folder. Read once per run, only when needed.
 */
class WorkspaceStorage {
  private map: Promise<Map<string, string>> | undefined;

  constructor(private readonly dir: string) {}

  async projectOf(composerId: string): Promise<string | undefined> {
    this.map ??= this.read();
    return (await this.map).get(composerId);
  }

  private async read(): Promise<Map<string, string>> {
    const map = new Map<string, string>();
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const folder = path.join(this.dir, e.name);
      const ws = obj(jsonOrUndefined(await readSideFile(path.join(folder, 'workspace.json')).catch(() => null)));
      const project = uriToPath(str(ws?.['folder']) ?? '');
      if (!project) continue;
      for (const id of await composerIdsIn(path.join(folder, 'state.vscdb'))) map.set(id, project);
    }
    return map;
  }
}

async function composerIdsIn(file: string): Promise<string[]> {
  const read = async (db: Db): Promise<string[]> => {
    const row = await db.get<{ v: string }>("SELECT CAST(value AS TEXT) AS v FROM ItemTable WHERE key = 'composer.composerData'");
    return arr(obj(jsonOrUndefined(row?.v ?? null))?.['allComposers']).map((c) => str(obj(c)?.['composerId'])).filter((id): id is string => !!id);
  };
  // a workspace's own database is only a hint: one that cannot be read names no composer
  return readSnapshot(file, 'Cursor', read).catch(() => []);
}

/**
 * Whether a database's first page (its schema, read as bytes, without SQLite and so without any lock) names
 * Cursor's chat table.
 */
export async function namesChatTable(file: string): Promise<boolean> {
  const { handle } = await openTranscript(file);
  try {
    const page = Buffer.alloc(SCHEMA_PAGE_BYTES);
    const { bytesRead } = await handle.read(page, 0, SCHEMA_PAGE_BYTES, 0);
    return page.subarray(0, bytesRead).includes('cursorDiskKV');
  } finally {
    await handle.close();
  }
}

function splitOnce(s: string, sep: string): [string, string] | [] {
  const i = s.indexOf(sep);
  return i < 0 ? [] : [s.slice(0, i), s.slice(i + 1)];
}
