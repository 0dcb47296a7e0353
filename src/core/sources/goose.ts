import * as path from 'node:path';
import { stableId } from '../ids';
import type { Conversation, ConversationMeta, LineRange, Message, MessageKind, RecordedTouch, ToolCall, ToolResult } from '../model';
import { arr, headRecords, num, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { gooseFingerprints, MAX_RESULT_CHARS, readGooseGroups } from './gooseDb';
import { recordLines, type SourceLine } from './lines';
import { appendText, hasContent, isoFromUnixSeconds, linesFromZeroOffset, spanMessage } from './message';

/**
 * Goose (block/goose), in its sessions folder `<data>/sessions/` (data: `$XDG_DATA_HOME/goose` or
 * `~/.local/share/goose` on Linux and macOS, `%APPDATA%\Block\goose\data` on Windows, `$GOOSE_PATH_ROOT/data`):
 * - `sessions.db` (Goose 1.10 and later, gooseDb.ts): every project's sessions, each kept or left out by its own
 *   `working_dir`. Lines mean nothing there: an exchange's "lines" are the positions of its first and last record
 *   in its session (1 is the session record), as for OpenCode's and Cursor's databases.
 * - `<session>.jsonl` (older versions, left in place after Goose imported them into the database): line 1 the
 *   session's metadata `{working_dir, description, message_count, ...}`, then one message per line.
 * A message either way: `{role: user | assistant, created (Unix seconds), content[], metadata{userVisible}}`, content
 * blocks `text`, `image`, `toolRequest` `{id, toolCall{status, value{name, arguments}}}`, `toolResponse` `{id,
 * toolResult{status, value{content[], isError} | content[] | error}}`, `thinking`, `redactedThinking`,
 * `toolConfirmationRequest`, `actionRequired`, `systemNotification` (block/goose `conversation/message.rs`). A
 * message the user never saw (`userVisible: false`: a compaction's summary) is context. The same session in both
 * forms is one memory: a message's id is made of its session, time, role and text, never of a row id.
 */

type JsonRecord = Record<string, unknown>;

/** `sessions/sessions.db` in Goose's data folder (`goose/` or, on Windows and under GOOSE_PATH_ROOT, `data/`). */
const DATABASE_RE = /(?:^|[\\/])(?:goose|data)[\\/]sessions[\\/]sessions\.db$/;
const LEGACY_RE = /[\\/]goose[\\/](?:data[\\/])?sessions[\\/][^\\/]+\.jsonl$/;
/** Blocks that hold no conversation: reasoning, the UI's confirmations and notices. */
const SILENT_BLOCKS = new Set(['thinking', 'redactedThinking', 'toolConfirmationRequest', 'actionRequired', 'systemNotification', 'conversationCompacted']);

export const gooseDbAdapter: SourceAdapter = {
  agent: 'goose',
  lineFormat: 'sqlite',
  holdsManyProjects: true,
  readRecords: async (file) => recordLines((await readGooseGroups(file)).flatMap((g) => g.records)),
  recordGroups: { fingerprints: gooseFingerprints, read: readGooseGroups },
  matchesPath: isGooseDatabase,
  claimsPath: isGooseDatabase,
  sniff: () => false,
  probeProject: () => undefined,
  parse: parseDatabase,
};

export const gooseLegacyAdapter: SourceAdapter = {
  agent: 'goose',
  lineFormat: 'jsonl',
  matchesPath: (file) => file.endsWith('.jsonl'),
  claimsPath: (file) => LEGACY_RE.test(file),
  sniff: (head) => isMetadata(headRecords(head)[0]),
  probeProject: (head) => {
    const first = headRecords(head)[0];
    return isMetadata(first) ? str(first!['working_dir']) || undefined : undefined;
  },
  parse: parseLegacy,
};

export function isGooseDatabase(file: string): boolean {
  return DATABASE_RE.test(file);
}

/** A legacy file's first line: the session's metadata (Goose's own reader requires `description` and `message_count`). */
function isMetadata(rec: JsonRecord | undefined): boolean {
  return rec !== undefined && !('role' in rec) && typeof rec['description'] === 'string' && typeof rec['message_count'] === 'number';
}

/** The database's records: each `{session}` record starts a conversation, its `{message}` records follow. */
function parseDatabase(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const conversations: Conversation[] = [];
  let current: { session: JsonRecord; messages: GooseMessages } | undefined;
  let hidden = false;
  const close = (): void => {
    const kept = current?.messages.list.filter(hasContent) ?? [];
    if (current && kept.length > 0) conversations.push({ sourceFile: input.file, meta: databaseMeta(current.session, kept), messages: kept });
    current = undefined;
  };
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const session = obj(rec['session']);
    const message = obj(rec['message']);
    if (session) {
      close();
      // a session Goose keeps out of its own lists (its internal work), not a conversation of the user's
      hidden = session['sessionType'] === 'hidden';
      if (!hidden) current = { session, messages: new GooseMessages(str(session['id']) ?? '', skips, line.line) };
    } else if (message && current) {
      if (rec['damaged'] === true) skips.add('malformed-json', line.line);
      else current.messages.add(message, line);
    } else if (!(message && hidden)) skips.add('unknown-record', line.line);
  }
  close();
  return { conversations, skipped: skips.lines };
}

function databaseMeta(session: JsonRecord, messages: readonly Message[]): ConversationMeta {
  const project = str(session['workingDir']) || undefined;
  const title = str(session['name'])?.trim() || str(session['description'])?.trim() || undefined;
  const startedAt = sqliteTime(session['createdAt']) ?? messages[0]?.timestamp;
  const model = str(session['model']);
  const parent = str(session['parentSessionId']) || undefined;
  return {
    agent: 'goose',
    sessionId: str(session['id']) ?? 'unknown',
    line: 1,
    isSubagent: session['sessionType'] === 'sub_agent' || parent !== undefined,
    ...(parent ? { parentSessionId: parent } : {}),
    ...(project ? { project } : {}),
    ...(title ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/** A legacy session file: its metadata line, then its messages; a resumed parse takes the metadata from `resume`. */
function parseLegacy(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const resume = input.resume;
  const sessionId = resume?.sessionId ?? path.basename(input.file.replace(/\\/g, '/'), '.jsonl');
  const messages = new GooseMessages(sessionId, skips, 1);
  let metadata: JsonRecord | undefined;
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    if (line.line === 1 && isMetadata(rec)) metadata = rec;
    else if ('role' in rec) messages.add(rec, line);
    else skips.add('unknown-record', line.line);
  }
  const kept = messages.list.filter(hasContent);
  if (kept.length === 0) return { conversations: [], skipped: skips.lines };
  const project = resume?.project ?? (str(metadata?.['working_dir']) || undefined);
  const title = resume?.title ?? (str(metadata?.['description'])?.trim() || undefined);
  const startedAt = resume?.startedAt ?? sqliteTime(metadata?.['created_at']) ?? kept[0]?.timestamp;
  const meta: ConversationMeta = {
    agent: 'goose',
    sessionId,
    line: resume?.line ?? 1,
    isSubagent: false,
    ...(project ? { project } : {}),
    ...(title ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
  };
  return { conversations: [{ sourceFile: input.file, meta, messages: kept }], skipped: skips.lines };
}

/** One session's messages as they are read, each spanning its record (its position in the session from `firstLine`). */
class GooseMessages {
  readonly list: Message[] = [];

  constructor(
    private readonly sessionId: string,
    private readonly skips: SkipCounter,
    private readonly firstLine: number,
  ) {}

  add(msg: JsonRecord, line: SourceLine): void {
    const role = msg['role'];
    if (role !== 'user' && role !== 'assistant') return this.skips.add('unknown-record', line.line);
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    const results: ToolResult[] = [];
    const touched: RecordedTouch[] = [];
    let unknown = false;
    for (const raw of arr(msg['content'])) {
      const block = obj(raw);
      const type = str(block?.['type']) ?? '';
      if (type === 'text') texts.push((str(block!['text']) ?? '').trim());
      else if (type === 'image') texts.push('[image]');
      else if (type === 'toolRequest' || type === 'frontendToolRequest') {
        const call = toolCall(block!);
        if (call) {
          calls.push(call);
          touched.push(...touchesOf(call.name, obj(call.input)));
        }
      } else if (type === 'toolResponse') results.push(toolResult(block!));
      else if (!SILENT_BLOCKS.has(type)) unknown = true;
    }
    // a block of a later version: the line counted once, what was understood kept
    if (unknown) this.skips.add('unknown-record', line.line);
    const text = texts.filter(Boolean).join('\n\n');
    const timestamp = isoFromUnixSeconds(msg['created']);
    const uuid = `${this.sessionId}#${stableId(num(msg['created']), role, text)}`;
    const push = (kind: MessageKind, body: string, suffix = ''): Message => {
      const position = line.line - this.firstLine + 1;
      const m = spanMessage(kind, { line: position, lineEnd: position, offset: line.offset }, body, { timestamp, uuid: uuid + suffix });
      this.list.push(m);
      return m;
    };
    // a message the user never saw (a compaction's summary, a continuation Goose wrote): nobody's words now
    if (obj(msg['metadata'])?.['userVisible'] === false) {
      if (text) push('context', text);
      return;
    }
    if (role === 'user') {
      if (results.length) push('tool-results', '', '#results').toolResults.push(...results);
      if (text) push('prompt', text);
      return;
    }
    const reply = push('reply', '');
    appendText(reply, text);
    reply.toolCalls.push(...calls);
    if (touched.length) reply.touched = touched;
  }
}

/** A tool request Goose could parse (`status: success`); a malformed one the model sent carries no call. */
function toolCall(block: JsonRecord): ToolCall | undefined {
  const call = obj(block['toolCall']);
  const value = obj(call?.['value']);
  const name = str(value?.['name']);
  if (call?.['status'] !== 'success' || !name) return undefined;
  const id = str(block['id']);
  return { ...(id ? { id } : {}), name, input: value!['arguments'] ?? {} };
}

/** A tool response: the text meant for the model (content items for the user alone are the UI's copy), or the error. */
function toolResult(block: JsonRecord): ToolResult {
  const id = str(block['id']);
  const result = obj(block['toolResult']);
  if (result?.['status'] !== 'success') {
    return { ...(id ? { toolUseId: id } : {}), text: (str(result?.['error']) ?? '').slice(0, MAX_RESULT_CHARS), isError: true };
  }
  const value = result['value'];
  const content = Array.isArray(value) ? value : arr(obj(value)?.['content']);
  const text = content
    .map(obj)
    .filter((c) => {
      const audience = obj(c?.['annotations'])?.['audience'];
      return !Array.isArray(audience) || audience.includes('assistant');
    })
    .map((c) => str(c?.['text']) ?? str(obj(c?.['resource'])?.['text']) ?? (c?.['type'] === 'image' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n');
  return { ...(id ? { toolUseId: id } : {}), text: text.slice(0, MAX_RESULT_CHARS), isError: obj(value)?.['isError'] === true };
}

/**
 * The file a developer tool touched, and how. Goose names a tool `<extension>__<tool>`: `text_editor` says what
 * it did by its `command` (`view` with `view_range` [first, last], 1-based; `write`; `str_replace`, `insert` after
 * `insert_line`, `undo_edit`), the newer `read` (`offset` counted from 0, `limit`), `edit` and `write` by their names.
 */
function touchesOf(name: string, args: JsonRecord | undefined): RecordedTouch[] {
  const file = str(args?.['path']);
  if (!file) return [];
  const tool = name.includes('__') ? name.slice(name.lastIndexOf('__') + 2) : name;
  const command = tool === 'text_editor' ? str(args!['command']) : tool;
  if (command === 'view') return [{ path: file, how: 'read', ...lines(viewRange(args!['view_range'])) }];
  if (command === 'read') return [{ path: file, how: 'read', ...lines(linesFromZeroOffset(num(args!['offset']), num(args!['limit']))) }];
  if (command === 'write') return [{ path: file, how: 'write' }];
  if (command === 'insert') return [{ path: file, how: 'edit', ...lines(insertedLines(num(args!['insert_line']), str(args!['new_str']))) }];
  if (command === 'str_replace' || command === 'undo_edit' || command === 'edit') return [{ path: file, how: 'edit' }];
  return [];
}

function lines(ranges: LineRange[] | undefined): { lines?: LineRange[] } {
  return ranges ? { lines: ranges } : {};
}

/** `[first, last]`, 1-based; a last of -1 reads to the end, which is no known line. */
function viewRange(v: unknown): LineRange[] | undefined {
  const [start, end] = arr(v);
  return typeof start === 'number' && typeof end === 'number' && end >= start && start >= 1 ? [{ start, end }] : undefined;
}

/** The lines `text` takes once inserted after line `after` (0: at the top). */
function insertedLines(after: number | undefined, text: string | undefined): LineRange[] | undefined {
  if (after === undefined || after < 0 || !text) return undefined;
  const count = text.replace(/\n$/, '').split('\n').length;
  return [{ start: after + 1, end: after + count }];
}

/**
 * A session's `created_at` as Goose's database holds it: SQLite's `CURRENT_TIMESTAMP` / `datetime('now')` text
 * (`2025-07-24 11:00:00`, UTC without a zone), an RFC 3339 string, or Unix seconds.
 */
function sqliteTime(v: unknown): string | undefined {
  if (typeof v === 'number') return isoFromUnixSeconds(v);
  const s = str(v)?.trim();
  if (!s) return undefined;
  const utc = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?$/.test(s) ? `${s.replace(' ', 'T')}Z` : s;
  const t = Date.parse(utc);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}
