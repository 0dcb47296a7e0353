import * as path from 'node:path';
import type { Conversation, ConversationMeta, Message, MessageKind, ToolCall, ToolResult } from '../model';
import { arr, jsonOrUndefined, num, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { crushFingerprints, readCrushGroups } from './crushDb';
import { readSideFile, recordLines, type SourceLine } from './lines';
import { hasContent, isoFromUnixSeconds, linesFromZeroOffset, parseToolArguments, spanMessage } from './message';

/**
 * Crush (charmbracelet/crush): one SQLite database per project, `<project>/.crush/crush.db` (crushDb.ts); a
 * project's data directory can be set elsewhere (`--data-dir`, `options.data_directory`). Since December 2025 Crush
 * lists every project it ran in, with its data directory, in `projects.json` in its global data folder
 * (`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, `~/.local/share/crush`; `%LOCALAPPDATA%\crush` on Windows):
 * discovery reads the databases listed there too. A database's project is the folder holding its `.crush`, else
 * the project `projects.json` lists with it (its sessions record no folder of their own).
 *
 * Messages, in order: `user` (text parts; attached files as `binary` parts; `!` shell commands the user ran as
 * `shell_command` parts), `assistant` (text and `tool_call` parts; `reasoning` is not the reply; a `finish` part
 * with reason `error` says why the turn failed; a summary message Crush wrote when it compacted the session is
 * context), `tool` (`tool_result` parts). Lines mean nothing in a database: an exchange's "lines" are the positions
 * of its first and last record in its session (1 is the session record), as for OpenCode's database. A session
 * Crush made to ask a model for a title (`title-<session id>`) is no conversation; a task's session (its id the
 * agent tool's call id, with a parent) is a subagent's.
 */

type JsonRecord = Record<string, unknown>;

const DATABASE_NAME = 'crush.db';
const DATA_DIR = '.crush';
const REGISTRY_NAME = 'projects.json';
/** Parts that hold no conversation: reasoning, and a turn's end when it is not an error. */
const SILENT_PARTS = new Set(['reasoning', 'finish']);

export const crushAdapter: SourceAdapter = {
  agent: 'crush',
  lineFormat: 'sqlite',
  readRecords: async (file) => recordLines((await readCrushGroups(file)).flatMap((g) => g.records)),
  recordGroups: { fingerprints: crushFingerprints, read: readCrushGroups },
  matchesPath: isCrushDatabase,
  claimsPath: isCrushDatabase,
  sniff: () => false,
  probeProject: () => undefined,
  locateProject: async (file) => crushProjectOf(file),
  parse,
};

/** Crush's database, by its name (its folder is `.crush` unless the user set another). */
export function isCrushDatabase(file: string): boolean {
  return path.basename(file) === DATABASE_NAME;
}

/** The database of a project's default data directory, `<project>/.crush/crush.db`: the only one looked for inside a workspace. */
export function isDefaultCrushDatabase(file: string): boolean {
  return isCrushDatabase(file) && path.basename(path.dirname(file)) === DATA_DIR;
}

/** The project a database in a default data directory belongs to: the folder holding its `.crush`. */
export function crushProjectOf(file: string): string | undefined {
  return isDefaultCrushDatabase(file) ? path.dirname(path.dirname(file)) : undefined;
}

/** Crush's list of the projects it ran in (`projects.json` in its global data folder), by name. */
export function isCrushRegistry(file: string): boolean {
  return path.basename(file) === REGISTRY_NAME;
}

/**
 * The databases `projects.json` lists (`{projects: [{path, data_dir, last_accessed}]}`), each with its project: the
 * folder holding its `.crush`, else the `path` Crush ran in. A file that is not Crush's list (or not whole) lists none.
 */
export async function crushDatabasesListedIn(registry: string): Promise<Array<{ file: string; project: string }>> {
  const list = obj(jsonOrUndefined(await readSideFile(registry, 4 * 1024 * 1024).catch(() => undefined)));
  const out = new Map<string, string>();
  for (const entry of arr(list?.['projects']).map(obj)) {
    const dataDir = str(entry?.['data_dir']);
    const ranIn = str(entry?.['path']);
    if (!dataDir || !ranIn || !path.isAbsolute(dataDir)) continue;
    const file = path.join(dataDir, DATABASE_NAME);
    // several folders Crush ran in can share one data directory (it looks for `.crush` upwards): the first listed, the latest
    if (!out.has(file)) out.set(file, crushProjectOf(file) ?? ranIn);
  }
  return [...out].map(([file, project]) => ({ file, project }));
}

/** Each `{session}` record starts a conversation, its `{message}` records follow. */
function parse(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const conversations: Conversation[] = [];
  let current: { session: JsonRecord; firstLine: number; messages: Message[]; model?: string } | undefined;
  let skipping = false;
  const close = (): void => {
    const kept = current?.messages.filter(hasContent) ?? [];
    if (current && kept.length > 0) conversations.push({ sourceFile: input.file, meta: buildMeta(current.session, current.model, kept), messages: kept });
    current = undefined;
  };
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const session = obj(rec['session']);
    const message = obj(rec['message']);
    if (session) {
      close();
      skipping = (str(session['id']) ?? '').startsWith('title-');
      if (!skipping) current = { session, firstLine: line.line, messages: [] };
    } else if (message && current) {
      if (rec['damaged'] === true) skips.add('malformed-json', line.line);
      else {
        const model = addMessage(current.messages, message, line, line.line - current.firstLine + 1, skips);
        current.model ??= model;
      }
    } else if (!(message && skipping)) skips.add('unknown-record', line.line);
  }
  close();
  return { conversations, skipped: skips.lines };
}

function buildMeta(session: JsonRecord, model: string | undefined, messages: readonly Message[]): ConversationMeta {
  const title = str(session['title'])?.trim();
  const parent = str(session['parentSessionId']) || undefined;
  const startedAt = isoFromUnixSeconds(session['createdAt']) ?? messages[0]?.timestamp;
  return {
    agent: 'crush',
    sessionId: str(session['id']) ?? 'unknown',
    line: 1,
    isSubagent: parent !== undefined,
    ...(parent ? { parentSessionId: parent } : {}),
    ...(title ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/**
 * A message's parts as the message(s) they make: a user's prompt (and the commands it ran), a reply, tool results.
 * Returns the model of a reply.
 */
function addMessage(out: Message[], message: JsonRecord, line: SourceLine, position: number, skips: SkipCounter): string | undefined {
  const role = message['role'];
  const texts: string[] = [];
  const context: string[] = [];
  const attached: string[] = [];
  const calls: ToolCall[] = [];
  const results: ToolResult[] = [];
  let unknown = false;
  for (const raw of arr(message['parts'])) {
    const part = obj(raw);
    const type = str(part?.['type']) ?? '';
    // Crush wraps each part (`{type, data}`); a flat part, as another project's reader assumed, is read the same
    const data = obj(part?.['data']) ?? part ?? {};
    if (type === 'text') texts.push((str(data['text']) ?? '').trim());
    else if (type === 'image_url') texts.push('[image]');
    else if (type === 'binary') {
      const file = str(data['Path']);
      if (file) attached.push(file);
      else texts.push('[attachment]');
    } else if (type === 'shell_command') context.push(shellCommand(data));
    else if (type === 'tool_call') calls.push(toolCall(data));
    else if (type === 'tool_result') results.push(toolResult(data));
    else if (type === 'finish' && data['reason'] === 'error') texts.push(`[error] ${str(data['message']) ?? ''}`.trim());
    else if (!SILENT_PARTS.has(type)) unknown = true;
  }
  // a part type of a later version: the record counted once, what was understood kept
  if (unknown) skips.add('unknown-record', line.line);
  const id = str(message['id']);
  const timestamp = isoFromUnixSeconds(message['createdAt']);
  const push = (kind: MessageKind, text: string, suffix = ''): Message => {
    const m = spanMessage(kind, { line: position, lineEnd: position, offset: line.offset }, text, { timestamp, uuid: id && id + suffix });
    out.push(m);
    return m;
  };
  const text = texts.filter(Boolean).join('\n\n');
  if (role === 'user') {
    const prompt = push('prompt', text);
    if (attached.length) prompt.touched = attached.map((p) => ({ path: p, how: 'mention' as const }));
    // `!` commands the user ran in Crush's prompt: what the model was shown, nobody's words
    if (context.length) push('context', context.join('\n\n'), '#shell');
  } else if (role === 'assistant' && message['isSummary'] === true) push('context', text);
  else if (role === 'assistant') {
    push('reply', text).toolCalls.push(...calls);
    return str(message['model']) || undefined;
  } else if (role === 'tool') push('tool-results', '').toolResults.push(...results);
  else if (role === 'system') push('context', text);
  else skips.add('unknown-record', line.line);
  return undefined;
}

/** A tool call; `view`'s `offset` counts lines from 0 (Crush's view tool), so its lines are named here. */
function toolCall(data: JsonRecord): ToolCall {
  const id = str(data['id']);
  const name = str(data['name']) ?? 'unknown';
  const input = parseToolArguments(data['input']);
  const args = obj(input);
  const lines = name === 'view' ? linesFromZeroOffset(num(args?.['offset']), num(args?.['limit'])) : undefined;
  return { ...(id ? { id } : {}), name, input, ...(lines ? { lines } : {}) };
}

function toolResult(data: JsonRecord): ToolResult {
  const id = str(data['tool_call_id']);
  return { ...(id ? { toolUseId: id } : {}), text: str(data['content']) ?? '', isError: data['is_error'] === true };
}

function shellCommand(data: JsonRecord): string {
  const output = (str(data['output']) ?? '').trimEnd();
  const code = num(data['exit_code']);
  return `$ ${str(data['command']) ?? ''}${output ? `\n${output}` : ''}${code ? `\n(exit code ${code})` : ''}`;
}
