import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { RecallError } from '../errors';
import type { AgentKind, Conversation, ConversationMeta, Message } from '../model';
import { arr, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { readSideFile, recordLines, type SourceLine } from './lines';
import { appendText, hasContent, isoFromAny, spanMessage } from './message';
import { MAX_RESULT_CHARS, openCodeFingerprints, readOpenCodeDbGroups, readOpenCodeDbRecords } from './opencodeDb';
import { isKiloDb } from './kiloPaths';

/**
 * OpenCode (`$XDG_DATA_HOME/opencode`, by default `~/.local/share/opencode` on every platform). Two layouts:
 * - JSON files (older versions): `storage/session/<projectID>/<sessionID>.json` (`{id, directory, title,
 *   parentID, time{created, updated}}`), `storage/message/<sessionID>/<messageID>.json` (`{id, role: user |
 *   assistant, time{created}, modelID, providerID, error}`), `storage/part/<messageID>/<partID>.json`
 *   (`{type: text | reasoning | tool | file | step-start | step-finish | patch | snapshot | agent | subtask |
 *   compaction | retry, ...}`; a tool part is `{callID, tool, state{status, input, output | error}}`).
 *   A source is one session file; its message and part files are read with it.
 * - SQLite (current versions, opencodeDb.ts): `opencode.db` (`opencode-<channel>.db` for other channels) with
 *   tables session, message and part holding the same objects. The database is one source holding every
 *   project's sessions, each kept or left out by its own `directory`.
 * Either way the records are a `{session}` line, then each message's line followed by its parts' lines, in
 * id order. Lines mean nothing here: an exchange's "lines" are the positions of its records in its session
 * (1 is the session record), its byte offset the record's place in the order read; "open raw" shows those
 * records. Project: the session's `directory`, never the project id (a commit hash).
 */

type JsonRecord = Record<string, unknown>;

/** A session file of OpenCode's storage, or of Kilo's (its fork, in its own data folder `kilo`). */
const SESSION_FILE_RE = /[\\/](opencode|kilo)[\\/]storage[\\/]session[\\/][^\\/]+[\\/][^\\/]+\.json$/;
/** `opencode.db`, or `opencode-<channel>.db` for another release channel. */
export const OPENCODE_DB_RE = /^opencode(?:-[\w.-]+)?\.db$/;
/** Parts that are bookkeeping (steps, snapshots, diffs the tool parts already name), not what was said or done. */
const SILENT_PARTS = new Set(['step-start', 'step-finish', 'snapshot', 'patch', 'compaction', 'retry', 'agent', 'reasoning']);
/** Titles OpenCode gives a session before it has one. */
const PLACEHOLDER_TITLE_RE = /^(?:New|Child) session - \d{4}-/;
const DIRECTORY_RE = /"directory"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** How the agent is named in messages about its database. */
const DB_OWNER: Partial<Record<AgentKind, string>> = { opencode: 'OpenCode', kilo: 'Kilo Code' };

export const openCodeAdapter: SourceAdapter = filesAdapter('opencode');
export const openCodeDbAdapter: SourceAdapter = databaseAdapter('opencode', isOpenCodeDb);
/** Kilo Code since it was rebuilt on OpenCode's core (its CLI and its new VS Code extension share the database). */
export const kiloAdapter: SourceAdapter = filesAdapter('kilo');
export const kiloDbAdapter: SourceAdapter = databaseAdapter('kilo', isKiloDb);

/** The JSON-file layout of OpenCode's storage (`opencode/storage/...`) or Kilo's (`kilo/storage/...`). */
function filesAdapter(agent: AgentKind): SourceAdapter {
  const isOwn = (file: string): boolean => SESSION_FILE_RE.exec(file)?.[1] === (agent === 'kilo' ? 'kilo' : 'opencode');
  return {
    agent,
    lineFormat: 'files',
    readRecords: async (file) => recordLines(await readSessionFiles(file)),
    recordsState: sessionFilesState,
    matchesPath: isOwn,
    claimsPath: isOwn,
    sniff: () => false,
    probeProject: (head) => {
      // the head of a pretty-printed file without its last newline: the field, not the whole document
      const m = DIRECTORY_RE.exec(head.map((l) => l.text).join('\n'));
      return m ? str(safeJson(m[1]!)) || undefined : undefined;
    },
    parse: (input) => parse(agent, input),
  };
}

/** The SQLite layout: one database of every project's sessions. */
function databaseAdapter(agent: AgentKind, isOwn: (file: string) => boolean): SourceAdapter {
  const owner = DB_OWNER[agent] ?? agent;
  return {
    agent,
    lineFormat: 'sqlite',
    holdsManyProjects: true,
    readRecords: async (file) => recordLines(await readOpenCodeDbRecords(file, undefined, owner)),
    recordGroups: { fingerprints: (file) => openCodeFingerprints(file, owner), read: (file, ids) => readOpenCodeDbGroups(file, ids, owner) },
    matchesPath: isOwn,
    claimsPath: isOwn,
    sniff: () => false,
    probeProject: () => undefined,
    parse: (input) => parse(agent, input),
  };
}

function isOpenCodeDb(file: string): boolean {
  return OPENCODE_DB_RE.test(path.basename(file)) && path.basename(path.dirname(file)) === 'opencode';
}

/** A session's records, for "open raw": from its session file, or from the database by its id. */
export async function openCodeSessionRecords(file: string, sessionId: string): Promise<unknown[]> {
  if (isOpenCodeDb(file)) return readOpenCodeDbRecords(file, sessionId);
  if (isKiloDb(file)) return readOpenCodeDbRecords(file, sessionId, 'Kilo Code');
  return readSessionFiles(file);
}

/** The JSON-file layout: the session file's record, then each message's followed by its parts'. */
async function readSessionFiles(file: string): Promise<JsonRecord[]> {
  const records: JsonRecord[] = [];
  for (const f of await sessionFiles(file)) {
    const kind = f === file ? 'session' : path.basename(path.dirname(path.dirname(f))) === 'message' ? 'message' : 'part';
    records.push({ [kind]: await readRecord(f) });
  }
  return records;
}

/** The session changes when any of its files does: their sizes summed, their latest mtime. */
async function sessionFilesState(file: string): Promise<{ size: number; mtimeMs: number }> {
  let size = 0;
  let mtimeMs = 0;
  for (const f of await sessionFiles(file)) {
    const st = await stat(f);
    size += st.size;
    mtimeMs = Math.max(mtimeMs, st.mtimeMs);
  }
  return { size, mtimeMs };
}

/** The session file, then each message file followed by its part files, all in id order. */
async function sessionFiles(file: string): Promise<string[]> {
  const storage = path.dirname(path.dirname(path.dirname(file)));
  const sessionId = path.basename(file, '.json');
  const out = [file];
  for (const m of await jsonNames(path.join(storage, 'message', sessionId))) {
    out.push(path.join(storage, 'message', sessionId, m));
    const partDir = path.join(storage, 'part', path.basename(m, '.json'));
    for (const p of await jsonNames(partDir)) out.push(path.join(partDir, p));
  }
  return out;
}

async function jsonNames(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.json')).sort();
}

/** One storage file. OpenCode rewrites a part many times while it streams: one that does not parse is read again next run. */
async function readRecord(file: string): Promise<JsonRecord> {
  const text = await readSideFile(file);
  try {
    const rec = obj(JSON.parse(text));
    if (rec) return rec;
  } catch {
    // below
  }
  throw new RecallError('source-unreadable', `${file} is not a complete JSON object; it is probably being written and will be read again on the next run.`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A message being built from its record and the part records after it. */
interface Turn {
  readonly info: JsonRecord;
  readonly out: Message[];
}

/** A record's place: its position in its session (what an exchange's "lines" are) and its offset as read. */
interface At {
  readonly position: number;
  readonly line: SourceLine;
}

/** One conversation per `{session}` record, made of the message and part records after it. */
function parse(agent: AgentKind, input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const conversations: Conversation[] = [];
  let session: { record: JsonRecord; firstLine: number; messages: Message[]; models: string[] } | undefined;
  let turn: Turn | undefined;
  const closeTurn = (): void => {
    if (turn && session) session.messages.push(...turn.out);
    turn = undefined;
  };
  const closeSession = (): void => {
    closeTurn();
    const kept = session?.messages.filter(hasContent) ?? [];
    if (session && kept.length > 0) {
      conversations.push({ sourceFile: input.file, meta: buildMeta(agent, session.record, session.models, kept), messages: kept });
    }
    session = undefined;
  };
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const [kind] = Object.keys(rec);
    const value = obj(rec[kind ?? '']);
    if (kind === 'session' && value) {
      closeSession();
      session = { record: value, firstLine: line.line, messages: [], models: [] };
      continue;
    }
    const at = session && { position: line.line - session.firstLine + 1, line };
    if (kind === 'message' && value && at) {
      closeTurn();
      turn = startTurn(value, at, skips);
      const model = str(value['modelID']) ?? str(obj(value['model'])?.['modelID']);
      if (model) session!.models.push(model);
      // the oldest layout kept the parts inside the message
      for (const p of arr(value['parts'])) if (obj(p)) addPart(turn, obj(p)!, at, skips);
    } else if (kind === 'part' && value && turn && at) addPart(turn, value, at, skips);
    else skips.add('unknown-record', line.line);
  }
  closeSession();
  return { conversations, skipped: skips.lines };
}

function buildMeta(agent: AgentKind, session: JsonRecord, models: readonly string[], messages: readonly Message[]): ConversationMeta {
  const title = str(session['title'])?.trim();
  const project = str(session['directory']);
  const parent = str(session['parentID']);
  const startedAt = isoFromAny(obj(session['time'])?.['created']) ?? messages[0]?.timestamp;
  return {
    agent,
    sessionId: str(session['id']) ?? 'unknown',
    line: 1,
    // a session a task tool started for a subagent
    isSubagent: parent !== undefined,
    ...(parent ? { parentSessionId: parent } : {}),
    ...(project ? { project } : {}),
    ...(title && !PLACEHOLDER_TITLE_RE.test(title) ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(models[0] ? { model: models[0] } : {}),
  };
}

/** A user message becomes the prompt (and context for what OpenCode injected); an assistant one a reply, its results, its error. */
function startTurn(info: JsonRecord, { position, line }: At, skips: SkipCounter): Turn {
  const id = str(info['id']);
  const timestamp = isoFromAny(obj(info['time'])?.['created']);
  const span = { line: position, lineEnd: position, offset: line.offset };
  const at = (suffix: string): { timestamp: string | undefined; uuid: string | undefined } => ({ timestamp, uuid: id && `${id}${suffix}` });
  if (info['role'] === 'user') {
    return { info, out: [spanMessage('prompt', span, '', at('')), spanMessage('context', span, '', at('#context'))] };
  }
  if (info['role'] === 'assistant') {
    const turn = { info, out: [spanMessage('reply', span, '', at('')), spanMessage('tool-results', span, '', at('#results'))] };
    const error = obj(info['error']);
    if (error) {
      const message = str(obj(error['data'])?.['message']) ?? str(error['name']) ?? 'error';
      turn.out.push(spanMessage('context', span, `[opencode error] ${message}`, at('#error')));
    }
    return turn;
  }
  skips.add('unknown-record', line.line);
  return { info, out: [] };
}

function addPart(turn: Turn, part: JsonRecord, { position, line }: At, skips: SkipCounter): void {
  for (const m of turn.out) m.lineEnd = position;
  const [first, second] = turn.out;
  if (!first || !second) return; // a message of an unknown role: already counted
  const type = str(part['type']);
  const user = turn.info['role'] === 'user';
  if (type === 'text') {
    const text = (str(part['text']) ?? '').trim();
    // text OpenCode itself added to a prompt (a file's content, a tool's output) is context, not the human's words
    appendText(user && part['synthetic'] === true ? second : first, text);
  } else if (type === 'tool' && !user) {
    const state = obj(part['state']) ?? {};
    const id = str(part['callID']);
    first.toolCalls.push({ ...(id ? { id } : {}), name: str(part['tool']) ?? 'tool', input: state['input'] });
    const status = str(state['status']);
    if (status === 'completed' || status === 'error') {
      const text = str(state['output']) ?? str(state['error']) ?? '';
      second.toolResults.push({ ...(id ? { toolUseId: id } : {}), text: text.slice(0, MAX_RESULT_CHARS), isError: status === 'error' });
    }
  } else if (type === 'file') {
    const source = obj(part['source']);
    const name = str(source?.['path']) ?? str(part['filename']);
    if (name) appendText(second, `[file ${name}]`);
  } else if (type === 'subtask') {
    appendText(second, `[subtask ${str(part['agent']) ?? ''}] ${str(part['prompt']) ?? ''}`.trim());
  } else if (!SILENT_PARTS.has(type ?? '')) {
    skips.add('unknown-record', line.line); // a part type of a later version: counted, not guessed at
  }
}
