import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { RecallError } from '../errors';
import type { ConversationMeta, Message, RecordedTouch, TouchKind } from '../model';
import { arr, jsonOrUndefined, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { cutLongStrings } from './boundedRecords';
import { KIRO_IDE_DIR } from './kiroPaths';
import { readSideFile, recordLines, type SourceLine } from './lines';
import { appendText, hasContent, isoFromAny, spanMessage } from './message';

/**
 * The Kiro IDE's agent chats (Kiro is a VS Code fork whose agent descends from Continue), in
 * `<Kiro user data>/User/globalStorage/kiro.kiroagent/` (read from AV's parser only: medium confidence):
 * - sessions: `workspace-sessions/<base64 of the workspace path>/<sessionId>.json`, a Continue-like document
 *   `{sessionId, title, workspaceDirectory, history[{message{role: user | assistant | tool, content, id},
 *   promptLogs[{completion}], executionId}]}`, beside `sessions.json` (`[{sessionId, title, dateCreated,
 *   workspaceDirectory}]`). What the agent said and did is in the execution log an assistant entry names:
 *   `<sha256(workspace path)[:32]>/414d1636299d2b9e4ce7e17fb11f63e9/<file>`, `{executionId, actions[{actionId,
 *   actionType: say | replace | create | readCode, input{file, originalContent, modifiedContent}, output{message}}]}`;
 *   without it, the entry's own content, else its prompt logs' completions.
 * - older chats: `<sha256(workspace path)[:32]>/<hash>.chat`, `{executionId, chat[{role: human | bot | tool,
 *   content}], metadata{modelId, startTime, endTime}}` (kiroIdeChat.ts).
 * A session is a source read with the files it names (a `files` source): a `{session}` record, then an `{entry}`
 * record per history entry with its execution's actions. No message carries a time: a session is dated by its
 * `sessions.json` entry. Kiro's system prompt, its rules and the `<kiro-ide-message>` wrapper are not the human's words.
 */

type JsonRecord = Record<string, unknown>;

const EXECUTIONS_DIR = '414d1636299d2b9e4ce7e17fb11f63e9';
const SESSION_RE = new RegExp(`[\\\\/]${KIRO_IDE_DIR.replace('.', '\\.')}[\\\\/]workspace-sessions[\\\\/][^\\\\/]+[\\\\/][^\\\\/]+\\.json$`);
const INDEX_FILE = 'sessions.json';
/** What Kiro puts before the human's words in a chat (its system prompt, the steering rules). */
const SYSTEM_RE = /^(?:# System Prompt|# Identity|<identity>|## Included Rules|You are operating in a workspace)/;
const WRAPPER_RE = /^<kiro-ide-message>\s*([\s\S]*?)\s*<\/kiro-ide-message>$/;
/** Kiro's reply to its rules message, not an answer. */
const ACKNOWLEDGEMENT = 'I will follow these instructions.';
const DIRECTORY_RE = /"workspaceDirectory"\s*:\s*("(?:[^"\\]|\\.)*")/;
const ACTION_TOUCH: Record<string, { tool: string; how: TouchKind }> = {
  replace: { tool: 'replace', how: 'edit' },
  create: { tool: 'create', how: 'write' },
  readCode: { tool: 'readCode', how: 'read' },
};

export const kiroIdeAdapter: SourceAdapter = {
  agent: 'kiro',
  lineFormat: 'files',
  readRecords: async (file) => recordLines(await readKiroIdeSession(file)),
  recordsState: sessionState,
  matchesPath: isKiroIdeSession,
  claimsPath: isKiroIdeSession,
  sniff: () => false,
  probeProject: (head) => {
    const m = DIRECTORY_RE.exec(head.map((l) => l.text).join('\n'));
    return m ? str(jsonOrUndefined(m[1]!)) || undefined : undefined;
  },
  // the session folder's name is the workspace path in base64
  locateProject: async (file) => decodeFolder(path.basename(path.dirname(file))),
  parse,
};

export function isKiroIdeSession(file: string): boolean {
  return SESSION_RE.test(file) && path.basename(file) !== INDEX_FILE;
}

function decodeFolder(name: string): string | undefined {
  const decoded = Buffer.from(name.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  return /^(?:\/|[A-Za-z]:[\\/])/.test(decoded) ? decoded : undefined;
}

/** The workspace's folder of Kiro's storage: the first 32 hex digits of sha256 of its path. */
export function kiroWorkspaceHash(workspace: string): string {
  return createHash('sha256').update(workspace).digest('hex').slice(0, 32);
}

/** A session's records: the session (with its `sessions.json` entry), then each history entry with its execution. */
export async function readKiroIdeSession(file: string): Promise<JsonRecord[]> {
  const doc = obj(jsonOrUndefined(await readSideFile(file)));
  if (!doc) throw new RecallError('source-unreadable', `${file} is not a complete JSON object; it is probably being written and will be read again on the next run.`);
  const sessionId = str(doc['sessionId']) ?? path.basename(file, '.json');
  const workspace = str(doc['workspaceDirectory']);
  const index = arr(jsonOrUndefined(await readSideFile(path.join(path.dirname(file), INDEX_FILE)).catch(() => undefined))).map(obj);
  const listed = index.find((e) => e?.['sessionId'] === sessionId);
  const executions = workspace ? await readExecutions(executionsDir(file, workspace)) : new Map<string, JsonRecord>();
  const records: JsonRecord[] = [{ session: { sessionId, title: doc['title'], workspaceDirectory: workspace, ...(listed ? { dateCreated: listed['dateCreated'] } : {}) } }];
  for (const raw of arr(doc['history'])) {
    const entry = obj(raw);
    const execution = executions.get(str(entry?.['executionId']) ?? '');
    records.push({ entry: cutLongStrings(raw), ...(execution ? { execution: cutLongStrings(execution) } : {}) });
  }
  return records;
}

function executionsDir(file: string, workspace: string): string {
  const base = path.dirname(path.dirname(path.dirname(file)));
  return path.join(base, kiroWorkspaceHash(workspace), EXECUTIONS_DIR);
}

/** The execution logs of a workspace, by execution id (a log that does not parse is left out: it adds what it would). */
async function readExecutions(dir: string): Promise<Map<string, JsonRecord>> {
  const map = new Map<string, JsonRecord>();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue;
    const log = obj(jsonOrUndefined(await readSideFile(path.join(dir, name)).catch(() => undefined)));
    const id = str(log?.['executionId']);
    if (log && id) map.set(id, { executionId: id, actions: log['actions'] });
  }
  return map;
}

/** A session changes with its file, its index and its workspace's execution logs (sizes summed, latest time). */
async function sessionState(file: string): Promise<{ size: number; mtimeMs: number }> {
  const own = await stat(file);
  let size = own.size;
  let mtimeMs = own.mtimeMs;
  const add = async (f: string): Promise<void> => {
    const st = await stat(f).catch(() => undefined);
    if (st?.isFile()) {
      size += st.size;
      mtimeMs = Math.max(mtimeMs, st.mtimeMs);
    }
  };
  await add(path.join(path.dirname(file), INDEX_FILE));
  const workspace = decodeFolder(path.basename(path.dirname(file)));
  if (workspace) {
    const dir = executionsDir(file, workspace);
    for (const name of await readdir(dir).catch(() => [] as string[])) await add(path.join(dir, name));
  }
  return { size, mtimeMs };
}

function parse(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  let meta: ConversationMeta | undefined;
  const messages: Message[] = [];
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const session = obj(rec['session']);
    if (session) {
      meta = sessionMeta(session);
      continue;
    }
    const entry = obj(rec['entry']);
    const made = entry && meta ? entryMessages(entry, obj(rec['execution']), meta.sessionId, line) : undefined;
    if (!made) skips.add('unknown-record', line.line);
    else messages.push(...made.filter(hasContent));
  }
  if (!meta || messages.length === 0) return { conversations: [], skipped: skips.lines };
  return { conversations: [{ sourceFile: input.file, meta, messages }], skipped: skips.lines };
}

function sessionMeta(session: JsonRecord): ConversationMeta {
  const title = str(session['title'])?.trim();
  const project = str(session['workspaceDirectory']);
  const created = session['dateCreated'];
  const startedAt = isoFromAny(typeof created === 'string' && /^\d+$/.test(created) ? Number(created) : created);
  return {
    agent: 'kiro',
    sessionId: str(session['sessionId']) ?? '',
    line: 1,
    isSubagent: false,
    ...(project ? { project } : {}),
    ...(title ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
  };
}

/** The text of Kiro's (Continue's) message content: a string, or parts `{type: text, text}`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content.trim();
  return arr(content).map(obj).filter((p) => p?.['type'] === 'text').map((p) => (str(p!['text']) ?? '').trim()).filter(Boolean).join('\n');
}

/** The human's words of a user message: Kiro's system prompt and rules are context; its wrapper is dropped. */
export function humanText(text: string): { prompt: string } | { context: string } {
  if (SYSTEM_RE.test(text)) return { context: text };
  return { prompt: WRAPPER_RE.exec(text)?.[1] ?? text };
}

export function isAcknowledgement(text: string): boolean {
  return text === ACKNOWLEDGEMENT;
}

function entryMessages(entry: JsonRecord, execution: JsonRecord | undefined, sessionId: string, line: SourceLine): Message[] | undefined {
  const message = obj(entry['message']);
  const role = str(message?.['role']);
  const position = line.line;
  const span = { line: position, lineEnd: position, offset: line.offset };
  const uuid = `${sessionId}:${str(message?.['id']) ?? `#${position}`}`;
  const text = contentText(message?.['content']);
  if (role === 'user') {
    const human = humanText(text);
    return 'prompt' in human ? [spanMessage('prompt', span, human.prompt, { uuid })] : [spanMessage('context', span, human.context, { uuid })];
  }
  if (role === 'tool') return [spanMessage('context', span, text, { uuid })];
  if (role !== 'assistant') return undefined;
  if (isAcknowledgement(text)) return [];
  const reply = spanMessage('reply', span, '', { uuid });
  const touched: RecordedTouch[] = [];
  for (const action of arr(execution?.['actions']).map(obj)) {
    if (!action) continue;
    const type = str(action['actionType']) ?? '';
    if (type === 'say') appendText(reply, (str(obj(action['output'])?.['message']) ?? '').trim());
    const touch = ACTION_TOUCH[type];
    const file = str(obj(action['input'])?.['file']);
    if (touch && file) {
      const id = str(action['actionId']);
      reply.toolCalls.push({ ...(id ? { id } : {}), name: touch.tool, input: { file } });
      touched.push({ path: file, how: touch.how });
    }
  }
  if (!reply.text) appendText(reply, text);
  if (!reply.text) for (const log of arr(entry['promptLogs']).map(obj)) appendText(reply, (str(log?.['completion']) ?? '').trim());
  if (touched.length) reply.touched = touched;
  return [reply];
}
