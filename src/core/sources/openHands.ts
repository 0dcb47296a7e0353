import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Conversation, ConversationMeta, LineRange, Message, MessageKind, TouchKind } from '../model';
import { arr, jsonOrUndefined, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { cutLongStrings } from './boundedRecords';
import { readSideFile, recordLines } from './lines';
import { appendText, hasContent, parseToolArguments, spanMessage } from './message';

/**
 * OpenHands CLI (OpenHands/OpenHands-CLI over the software-agent-sdk, `conversation/state.py`, `event/`): a conversation is
 * a folder `${OPENHANDS_CONVERSATIONS_DIR:-$OPENHANDS_PERSISTENCE_DIR/conversations}/<id>/` (default `~/.openhands`)
 * holding `base_state.json` (`{id, agent{llm{model}}, workspace{working_dir}, ...}`, rewritten as it changes) and
 * `events/event-<index, 5+ digits>-<event id>.json`, one event a file, written once each. An event is `{kind, id,
 * timestamp, source, ...}`: `MessageEvent` (`llm_message{role, content[{type: text, text}]}`, `extended_content` the
 * agent's context added to a user message), `ActionEvent` (`thought[]`, `tool_name`, `tool_call_id`, `tool_call{name,
 * arguments}`, `action{command, path, ...}`, `llm_response_id` shared by the calls of one model response),
 * `ObservationEvent` (`tool_call_id`, `observation{content[], is_error}`), `UserRejectObservation`, `AgentErrorEvent`,
 * `CondensationSummaryEvent` (`summary`), and bookkeeping events. `timestamp` is Python's local `isoformat()`, without a
 * zone: kept as written. A source is the `base_state.json`; its events are read with it, in index order. "Lines" are
 * positions in the conversation (1 is the state record); "open raw" shows those records.
 */

type JsonRecord = Record<string, unknown>;

const STATE_FILE = 'base_state.json';
const EVENT_FILE_RE = /^event-(\d{5,})-[0-9A-Fa-f-]{8,}\.json$/;
const MAX_RESULT_CHARS = 20_000;
/** Events that hold no conversation: the system prompt, condenser and state bookkeeping, streaming, usage. */
const SILENT_EVENTS = new Set([
  'SystemPromptEvent', 'Condensation', 'CondensationRequest', 'ConversationStateUpdateEvent', 'PauseEvent', 'InterruptEvent',
  'TokenEvent', 'LLMCompletionLogEvent', 'HookExecutionEvent', 'StreamingDeltaEvent', 'ConversationErrorEvent', 'ACPToolCallEvent',
]);
const RESULT_EVENTS = new Set(['ObservationEvent', 'UserRejectObservation', 'AgentErrorEvent']);
/** The file editor's commands and what they do to the file its `path` names. */
const EDITOR_TOUCH: Record<string, TouchKind> = { view: 'read', create: 'write', str_replace: 'edit', insert: 'edit', undo_edit: 'edit' };
const EDITOR_TOOLS = new Set(['file_editor', 'str_replace_editor']);

export const openHandsAdapter: SourceAdapter = {
  agent: 'openhands',
  lineFormat: 'files',
  readRecords: async (file) => recordLines(await readConversation(file)),
  recordsState: conversationState,
  matchesPath: isStateFile,
  claimsPath: isStateFile,
  sniff: () => false,
  probeProject: () => undefined,
  locateProject: async (file) => workingDir(obj(jsonOrUndefined(await readSideFile(file).catch(() => undefined)))),
  parse,
};

/** `<conversation>/base_state.json`, the SDK's name for a conversation's state. */
function isStateFile(file: string): boolean {
  return path.basename(file) === STATE_FILE;
}

/** A folder of OpenHands's conversation (its state file is in it): its events are read with it, not walked as sources. */
export function isOpenHandsConversation(names: readonly string[]): boolean {
  return names.includes(STATE_FILE);
}

/** The conversation's records: its state, then each event file's in index order (one that does not parse says so). */
export async function readConversation(file: string): Promise<unknown[]> {
  const state = obj(jsonOrUndefined(await readSideFile(file).catch(() => undefined)));
  const records: unknown[] = [state ? { state: stateSummary(state) } : { state: { id: path.basename(path.dirname(file)) }, damaged: `${STATE_FILE} is not a JSON object` }];
  for (const event of await eventFiles(file)) {
    const value = jsonOrUndefined(await readSideFile(event).catch(() => undefined));
    const rec = obj(value);
    records.push(rec ? { event: cutLongStrings(rec) } : { event: null, damaged: `${path.basename(event)} is not a complete JSON object`, file: path.basename(event) });
  }
  return records;
}

/** What changes whenever the conversation does: its state file's and event files' sizes summed, their latest mtime. */
async function conversationState(file: string): Promise<{ size: number; mtimeMs: number }> {
  let size = 0;
  let mtimeMs = 0;
  for (const f of [file, ...(await eventFiles(file))]) {
    const st = await stat(f).catch(() => undefined);
    if (!st) continue;
    size += st.size;
    mtimeMs = Math.max(mtimeMs, st.mtimeMs);
  }
  return { size, mtimeMs };
}

async function eventFiles(file: string): Promise<string[]> {
  const dir = path.join(path.dirname(file), 'events');
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .map((n) => ({ n, i: EVENT_FILE_RE.exec(n)?.[1] }))
    .filter((e): e is { n: string; i: string } => e.i !== undefined)
    .sort((a, b) => Number(a.i) - Number(b.i) || a.n.localeCompare(b.n))
    .map((e) => path.join(dir, e.n));
}

/** The state fields a conversation needs (the whole state holds the agent's tool definitions and secrets' names). */
function stateSummary(state: JsonRecord): JsonRecord {
  const model = str(obj(obj(state['agent'])?.['llm'])?.['model']);
  const cwd = workingDir(state);
  return { id: state['id'], ...(model ? { model } : {}), ...(cwd ? { working_dir: cwd } : {}) };
}

/** The folder the agent worked in: the workspace's `working_dir` (other names in other workspace kinds). */
function workingDir(state: JsonRecord | undefined): string | undefined {
  const ws = obj(state?.['workspace']);
  for (const key of ['working_dir', 'cwd', 'path', 'root']) if (str(ws?.[key])?.trim()) return str(ws![key])!.trim();
  return undefined;
}

function parse(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const messages: Message[] = [];
  let header: JsonRecord | undefined;
  let lastResponse: string | undefined;
  for (const [i, line] of input.lines.entries()) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const span = { line: i + 1, lineEnd: i + 1, offset: line.offset };
    if (i === 0 && obj(rec['state'])) {
      if (rec['damaged'] !== undefined) skips.add('malformed-json', line.line);
      header = obj(rec['state']);
      continue;
    }
    const event = obj(rec['event']);
    if (!event) {
      skips.add(rec['damaged'] !== undefined ? 'malformed-json' : 'unknown-record', line.line);
      continue;
    }
    const kind = str(event['kind']) ?? '';
    const push = (k: MessageKind, text: string): Message => {
      const m = spanMessage(k, span, text, { timestamp: str(event['timestamp']), uuid: str(event['id']) });
      messages.push(m);
      return m;
    };
    const responseOf = str(event['llm_response_id']);
    if (kind === 'MessageEvent') {
      lastResponse = undefined;
      const message = obj(event['llm_message']);
      const text = contentText(message?.['content']).trim();
      if (message?.['role'] === 'assistant') push('reply', text);
      else if (message?.['role'] === 'user') {
        // a message the human typed; anything else (another agent's, a hook's) is context
        push(event['source'] === 'user' && !str(event['sender']) ? 'prompt' : 'context', text);
        const added = contentText(event['extended_content']).trim();
        if (added) push('context', added);
      } else skips.add('unknown-record', line.line);
    } else if (kind === 'ActionEvent') {
      const last = messages[messages.length - 1];
      // the calls of one model response are one reply
      const reply = last?.kind === 'reply' && responseOf !== undefined && responseOf === lastResponse ? last : push('reply', '');
      reply.lineEnd = span.line;
      appendText(reply, contentText(event['thought']).trim());
      addToolCall(reply, event);
      lastResponse = responseOf;
    } else if (RESULT_EVENTS.has(kind)) {
      const last = messages[messages.length - 1];
      const results = last?.kind === 'tool-results' ? last : push('tool-results', '');
      results.lineEnd = span.line;
      results.toolResults.push(toolResult(kind, event));
    } else if (kind === 'CondensationSummaryEvent') {
      const summary = (str(event['summary']) ?? '').trim();
      if (summary) push('context', summary);
    } else if (!SILENT_EVENTS.has(kind)) skips.add('unknown-record', line.line);
  }
  const kept = messages.filter(hasContent);
  const conversations: Conversation[] = kept.length ? [{ sourceFile: input.file, meta: buildMeta(input.file, header, kept), messages: kept }] : [];
  return { conversations, skipped: skips.lines };
}

function buildMeta(file: string, state: JsonRecord | undefined, messages: readonly Message[]): ConversationMeta {
  const project = str(state?.['working_dir']);
  const model = str(state?.['model']);
  const startedAt = messages.find((m) => m.timestamp)?.timestamp;
  return {
    agent: 'openhands',
    sessionId: str(state?.['id']) ?? path.basename(path.dirname(file)),
    line: 1,
    isSubagent: false,
    ...(project ? { project } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/** A tool call: the action as the agent's tool received it, else the model's arguments; the file editor's file touched. */
function addToolCall(reply: Message, event: JsonRecord): void {
  const toolCall = obj(event['tool_call']);
  const name = str(event['tool_name']) ?? str(toolCall?.['name']) ?? 'tool';
  const id = str(event['tool_call_id']) ?? str(toolCall?.['id']);
  const action = obj(event['action']);
  const input = action ? withoutKind(action) : parseToolArguments(toolCall?.['arguments']);
  reply.toolCalls.push({ ...(id ? { id } : {}), name, input });
  const args = obj(input);
  const how = EDITOR_TOOLS.has(name) ? EDITOR_TOUCH[str(args?.['command']) ?? ''] : undefined;
  const file = str(args?.['path']);
  if (!how || !file) return;
  const range = arr(args?.['view_range']);
  const [start, end] = [range[0], range[1]];
  // `[start, -1]` reads to the file's end, which the call does not say
  const lines: LineRange[] | undefined = how === 'read' && typeof start === 'number' && typeof end === 'number' && start > 0 && end >= start ? [{ start, end }] : undefined;
  reply.touched = [...(reply.touched ?? []), { path: file, how, ...(lines ? { lines } : {}) }];
}

function withoutKind(action: JsonRecord): JsonRecord {
  const { kind: _kind, ...rest } = action;
  return rest;
}

function toolResult(kind: string, event: JsonRecord): Message['toolResults'][number] {
  const id = str(event['tool_call_id']);
  const observation = obj(event['observation']);
  const text =
    kind === 'AgentErrorEvent' ? (str(event['error']) ?? '')
    : kind === 'UserRejectObservation' ? (str(event['rejection_reason']) ?? 'rejected')
    : contentText(observation?.['content']);
  const isError = kind !== 'ObservationEvent' || observation?.['is_error'] === true;
  return { ...(id ? { toolUseId: id } : {}), text: text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text, isError };
}

/** A content list's text (`[{type: text, text}]`, images as a placeholder), or a string as it is. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map(obj)
    .map((c) => (c?.['type'] === 'image' ? '[image]' : (str(c?.['text']) ?? '')))
    .filter(Boolean)
    .join('\n');
}

