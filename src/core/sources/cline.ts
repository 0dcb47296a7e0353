import * as path from 'node:path';
import type { AgentKind, ConversationMeta, Message } from '../model';
import { arr, jsonOrUndefined, obj, type ParseInput, type ParseOutput, parseJsonArray, SkipCounter, type SourceAdapter, str } from './adapter';
import { sideTouches, TASK_METADATA, UI_MESSAGES } from './clineSide';
import { arraySpans } from './jsonSpans';
import { readSideFile } from './lines';
import { appendText, hasContent, isoFromAny, type RecordSpan, spanMessage } from './message';

/**
 * Cline, Roo Code and the legacy Kilo Code extension (forks: the same task files): `<ud>/User/globalStorage/
 * saoudrizwan.claude-dev/tasks/<taskId>/`, `.../rooveterinaryinc.roo-cline/tasks/<taskId>/` and
 * `.../kilocode.kilo-code/tasks/<taskId>/` (VS Code writes the folder lower-case; Kilo's tasks stopped appearing
 * there when Kilo moved to its OpenCode-based database, kilo.ts). `api_conversation_history.json` is the
 * conversation as sent to the model: an Anthropic message array (`{role, content: string | [text | tool_use |
 * tool_result]}`) written whole, on one line, at every save. User turns carry what the extension injected:
 * `<environment_details>` (context, not the human's words), tool results as text (`[read_file for 'x']
 * Result:`), the human's words wrapped in `<task>`, `<feedback>`, `<answer>` or `<user_message>`.
 * Project: Roo's `history_item.json` `workspace`, Cline's `state/taskHistory.json` `cwdOnTaskInitialization`,
 * else the `# Current Working Directory (…)` (Kilo: `Current Workspace Directory (…)`) the extension itself wrote
 * into the first environment details. Kilo's task ids are UUIDs and its history may carry no `ts`: its start is
 * then the first UI message's time (`ui_messages.json`), a session date.
 * Locator: the file is one line, so an exchange's lines are 1–1 and its byte offset is the message's.
 */

type JsonRecord = Record<string, unknown>;

const HISTORY_FILE = 'api_conversation_history.json';
/** The fork's extension folder (Cline: any other); VS Code lower-cases it on disk. */
const FORK_DIR_RE: Partial<Record<AgentKind, RegExp>> = {
  'roo-code': /[\\/]rooveterinaryinc\.roo-cline[\\/]/i,
  kilo: /[\\/]kilocode\.kilo-code[\\/]/i,
};
const HUMAN_TAGS = ['task', 'feedback', 'answer', 'user_message'];
const HUMAN_RE = new RegExp(`<(${HUMAN_TAGS.join('|')})>\\s*([\\s\\S]*?)\\s*</\\1>`, 'g');
const ENV_RE = /<environment_details>[\s\S]*?(?:<\/environment_details>|$)/g;
const THINKING_RE = /<thinking>[\s\S]*?<\/thinking>\s*/g;
const TOOL_RESULT_RE = /^\[[\w-]+(?: for [^\]]*)?\] Result:/;
const CWD_RE = /(?:# )?Current (?:Working Directory|Workspace Directory) \(([^)\n]+)\)/;
/** Task ids of Cline are the epoch milliseconds the task started at. */
const EPOCH_ID_RE = /^\d{13}$/;

export const clineAdapter: SourceAdapter = adapterFor('cline');
export const rooCodeAdapter: SourceAdapter = adapterFor('roo-code');
export const kiloLegacyAdapter: SourceAdapter = adapterFor('kilo');

/** Whose task a history file is, by the extension folder it lies in. */
function taskAgent(file: string): AgentKind {
  const fork = Object.entries(FORK_DIR_RE).find(([, re]) => re.test(file));
  return (fork?.[0] as AgentKind | undefined) ?? 'cline';
}

function adapterFor(agent: AgentKind): SourceAdapter {
  return {
    agent,
    lineFormat: 'json',
    sideFiles: [UI_MESSAGES, TASK_METADATA],
    recordsPath: [],
    matchesPath: (file) => path.basename(file) === HISTORY_FILE,
    claimsPath: (file) => path.basename(file) === HISTORY_FILE && taskAgent(file) === agent,
    sniff: () => false,
    probeProject: () => undefined,
    locateProject,
    parse: (input) => parse(agent, input),
  };
}

async function locateProject(file: string): Promise<string | undefined> {
  const taskDir = path.dirname(file);
  const taskId = path.basename(taskDir);
  const json = async (p: string): Promise<unknown> => JSON.parse(await readSideFile(p));
  const roo = await json(path.join(taskDir, 'history_item.json')).catch(() => undefined);
  const workspace = str(obj(roo)?.['workspace']);
  if (workspace) return workspace;
  const history = await json(path.join(taskDir, '..', '..', 'state', 'taskHistory.json')).catch(() => undefined);
  const item = arr(history).map(obj).find((h) => h?.['id'] === taskId);
  const cwd = str(item?.['cwdOnTaskInitialization']);
  if (cwd) return cwd;
  return CWD_RE.exec(await readStart(file))?.[1]?.trim();
}

/** The first 64 KB of a file as text (the environment details of the first turn are near the start). */
async function readStart(file: string): Promise<string> {
  const text = await readSideFile(file, 64 * 1024).catch(() => '');
  return text.replace(/\\n/g, '\n');
}

function parse(agent: AgentKind, input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const records = parseJsonArray(input.file, input.lines);
  const spans = arraySpans(input.lines, []);
  const whole: RecordSpan = { line: 1, lineEnd: input.lines[input.lines.length - 1]?.line ?? 1, offset: 0 };
  const taskId = path.basename(path.dirname(input.file));
  const touches = sideTouches(input.side, records);
  const messages: Message[] = [];
  for (const [i, raw] of records.entries()) {
    const rec = obj(raw);
    // one line holds every record: the record's byte offset names it (earlier records never move: the file
    // is rewritten with the same history plus new messages)
    const at = spans[i] ?? whole;
    const span = { ...at, uuid: `${taskId}@${at.offset}`, timestamp: isoFromAny(rec?.['ts']) };
    const made: Message[] = [];
    if (!rec) skips.add('not-an-object', span.line);
    else if (rec['role'] === 'user') made.push(...userMessages(rec, span));
    else if (rec['role'] === 'assistant') made.push(assistantMessage(rec, span));
    else skips.add('unknown-record', span.line);
    messages.push(...made.filter(hasContent));
    // the side files' touches go on the record's message, else on the message before it
    const touched = touches.get(i);
    const holder = messages[messages.length - 1];
    if (touched && holder) holder.touched = [...(holder.touched ?? []), ...touched];
  }
  if (messages.length === 0) return { conversations: [], skipped: skips.lines };
  return { conversations: [{ sourceFile: input.file, meta: buildMeta(agent, input.file, messages, input.side), messages }], skipped: skips.lines };
}

function buildMeta(agent: AgentKind, file: string, messages: readonly Message[], side: ParseInput['side']): ConversationMeta {
  const taskId = path.basename(path.dirname(file));
  const startedAt = EPOCH_ID_RE.test(taskId) ? isoFromAny(Number(taskId)) : (messages[0]?.timestamp ?? firstUiTime(side));
  return { agent, sessionId: taskId, line: 1, isSubagent: false, ...(startedAt ? { startedAt } : {}) };
}

/** The time of the task's first UI message (its task prompt), when the history itself has none. */
function firstUiTime(side: ParseInput['side']): string | undefined {
  const first = obj(arr(jsonOrUndefined(side?.get(UI_MESSAGES)))[0]);
  return isoFromAny(first?.['ts']);
}

/** The blocks of a message's content: a string is one text block. */
function blocks(content: unknown): JsonRecord[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return arr(content).map(obj).filter((b): b is JsonRecord => b !== undefined);
}

/**
 * A user turn: the human's words (inside the extension's wrapper tags) become the prompt, tool results their
 * own message, and everything else the extension injected (environment details, resumption notices) context.
 */
/** A record's place, id and time (Roo Code, and newer Cline, stamp each message with `ts`). */
type RecordAt = RecordSpan & { uuid: string; timestamp: string | undefined };

function userMessages(rec: JsonRecord, span: RecordAt): Message[] {
  const { timestamp } = span;
  const prompt = spanMessage('prompt', span, '', { uuid: `${span.uuid}#prompt`, timestamp });
  const results = spanMessage('tool-results', span, '', { uuid: `${span.uuid}#results`, timestamp });
  const context = spanMessage('context', span, '', { uuid: `${span.uuid}#context`, timestamp });
  for (const b of blocks(rec['content'])) {
    if (b['type'] === 'tool_result') {
      const id = str(b['tool_use_id']);
      results.toolResults.push({ ...(id ? { toolUseId: id } : {}), text: blocks(b['content']).map((x) => str(x['text']) ?? '').join('\n'), isError: b['is_error'] === true });
      continue;
    }
    if (b['type'] === 'image') {
      appendText(prompt, '[image]');
      continue;
    }
    const text = (str(b['text']) ?? '').replace(ENV_RE, '').trim();
    if (!text) continue;
    const human = [...text.matchAll(HUMAN_RE)].map((m) => m[2]!.trim()).filter(Boolean);
    if (TOOL_RESULT_RE.test(text)) {
      // a tool's output, possibly followed by the human's feedback on it
      results.toolResults.push({ text: text.replace(HUMAN_RE, '').trim(), isError: /\bError\b/.test(text.slice(0, 200)) });
      for (const h of human) appendText(prompt, h);
    } else if (human.length > 0) {
      for (const h of human) appendText(prompt, h);
    } else {
      appendText(context, text);
    }
  }
  return [context, results, prompt].filter(hasContent);
}

/** An assistant turn: its text without `<thinking>`, and its tool calls. */
function assistantMessage(rec: JsonRecord, span: RecordAt): Message {
  const reply = spanMessage('reply', span, '', { uuid: span.uuid, timestamp: span.timestamp });
  for (const b of blocks(rec['content'])) {
    if (b['type'] === 'text') appendText(reply, (str(b['text']) ?? '').replace(THINKING_RE, '').trim());
    else if (b['type'] === 'tool_use') {
      const id = str(b['id']);
      reply.toolCalls.push({ ...(id ? { id } : {}), name: str(b['name']) ?? 'tool', input: b['input'] });
    }
  }
  return reply;
}
