import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, ToolCall, ToolResult } from '../model';
import { arr, headRecords, obj, type SourceAdapter, str } from './adapter';
import { JsonlConversationParser } from './jsonlParser';
import { readFlatYaml } from './flatYaml';
import { readSideFile, type SourceLine } from './lines';
import { appendText, newMessage, parseToolArguments } from './message';
import { type SessionFacts, sessionMeta } from './sessionMeta';
import { diffHunkRanges } from './unifiedDiff';

/**
 * GitHub Copilot CLI: `${COPILOT_HOME:-~/.copilot}/session-state/<id>/events.jsonl` with `workspace.yaml` beside
 * it (older builds: a bare `session-state/<id>.jsonl`; when both exist the folder's log is read). One event per
 * line, `{type, data, id, parentId, timestamp, agentId?}`, appended as the session runs; every payload is under
 * `data` (github/copilot-sdk `session-events.ts` declares them):
 * - `session.start` `{sessionId, startTime, selectedModel, context{cwd, branch, gitRoot}}`, `session.resume`
 *   `{context}`, `session.model_change` `{newModel}`;
 * - `user.message` `{content, source, attachments[{type: "file", path}], isAutopilotContinuation}`;
 * - `assistant.message` `{content, reasoningText, toolRequests[{toolCallId, name, arguments}], model}`;
 * - `tool.execution_start` `{toolCallId, toolName, arguments}`, `tool.execution_complete` `{toolCallId, success,
 *   result{content, detailedContent} | error{message}}`.
 * Tool calls are read from both places (the request, else the start event; arguments a JSON string or an
 * object), results by call id (a result without one answers the oldest unanswered call). Project: the
 * `session.start` context's cwd, else `workspace.yaml`'s `cwd`; title: its `name` (else `summary`).
 */

type JsonRecord = Record<string, unknown>;

/** `session-state/<id>/events.jsonl` or the older `session-state/<id>.jsonl`. */
const SESSION_RE = /[\\/]session-state[\\/](?:[^\\/]+[\\/]events|[^\\/]+)\.jsonl$/;
const EVENTS_FILE = 'events.jsonl';
const WORKSPACE_FILE = 'workspace.yaml';
/** Namespaces of events that carry no conversation (lifecycle, telemetry, hooks, subagent bookkeeping). */
const SILENT_PREFIXES = ['session.', 'assistant.', 'system.', 'hook.', 'subagent.', 'skill.', 'tool_search.', 'pending_messages.', 'model.', 'permission.'];
const SILENT_TOOL_EVENTS = new Set(['tool.user_requested', 'tool.execution_partial_result', 'tool.execution_progress']);
/** `user.message` sources that no person typed: a skill injected into the prompt, another agent's prompt. */
const SYNTHETIC_SOURCE_RE = /^(?:skill-|agent-)/;
const SKILL_CONTEXT = '<skill-context';
const MAX_RESULT_CHARS = 20_000;

export const copilotCliAdapter: SourceAdapter = {
  agent: 'copilot-cli',
  lineFormat: 'jsonl',
  sideFiles: [WORKSPACE_FILE],
  matchesPath: (file) => file.endsWith('.jsonl'),
  claimsPath: (file) => SESSION_RE.test(file),
  preferredCopy: (file) => {
    if (path.basename(file) === EVENTS_FILE) return undefined;
    return path.join(path.dirname(file), path.basename(file, '.jsonl'), EVENTS_FILE);
  },
  sniff: (head) => headRecords(head).some((rec) => isEvent(rec) && (rec['type'] === 'session.start' || rec['type'] === 'user.message')),
  probeProject,
  locateProject: async (file) => {
    const yaml = await readSideFile(path.join(path.dirname(file), WORKSPACE_FILE), 1024 * 1024).catch(() => undefined);
    return yaml === undefined ? undefined : readFlatYaml(yaml).get('cwd') || undefined;
  },
  parse: (input) => new EventLogParser(input).run(),
};

/** An event of the log: a dotted type and its payload under `data`. */
function isEvent(rec: JsonRecord): boolean {
  return typeof rec['type'] === 'string' && rec['type'].includes('.') && obj(rec['data']) !== undefined;
}

function probeProject(head: readonly SourceLine[]): string | undefined {
  for (const rec of headRecords(head)) {
    if (rec['type'] === 'session.start' || rec['type'] === 'session.resume') {
      const cwd = str(obj(obj(rec['data'])?.['context'])?.['cwd']);
      if (cwd) return cwd;
    }
  }
  return undefined;
}

/** One pass over the events: consecutive assistant events make one reply, consecutive results one message. */
class EventLogParser extends JsonlConversationParser {
  private readonly facts: SessionFacts = {};
  /** Calls by id, to complete a request's call from its start event. */
  private readonly calls = new Map<string, BuiltCall>();
  /** Calls recorded without an id (some builds' start events), oldest first, until a result answers them. */
  private readonly unanswered: ToolCall[] = [];

  protected consume(rec: Record<string, unknown>, line: SourceLine): void {
    const type = str(rec['type']) ?? '';
    const data = obj(rec['data']);
    if (!data) return this.skips.add('unknown-record', line.line);
    const at = { line, timestamp: str(rec['timestamp']), uuid: str(rec['id']) };
    switch (type) {
      case 'session.start':
      case 'session.resume':
        return this.onSession(data, type === 'session.start');
      case 'session.model_change':
        this.facts.model ??= str(data['newModel']);
        return;
      case 'user.message':
        return this.onUser(rec, data, at);
      case 'assistant.message':
        return this.onAssistant(data, at);
      case 'tool.execution_start':
        return this.onToolStart(data, at);
      case 'tool.execution_complete':
        return this.onToolComplete(data, at);
      default:
        if (!SILENT_TOOL_EVENTS.has(type) && !SILENT_PREFIXES.some((p) => type.startsWith(p))) this.skips.add('unknown-record', line.line);
    }
  }

  private onSession(data: JsonRecord, start: boolean): void {
    const context = obj(data['context']);
    this.facts.project ??= str(context?.['cwd']) || undefined;
    this.facts.gitBranch ??= str(context?.['branch']) || undefined;
    if (!start) return;
    this.facts.sessionId ??= str(data['sessionId']);
    this.facts.startedAt ??= str(data['startTime']);
    this.facts.model ??= str(data['selectedModel']);
  }

  private onUser(rec: JsonRecord, data: JsonRecord, at: EventAt): void {
    const text = (str(data['content']) ?? '').trim();
    const source = str(data['source']) ?? '';
    // a skill's body injected as a user turn: known, and nobody's words
    if (source.startsWith('skill-') || text.startsWith(SKILL_CONTEXT)) return;
    const attached = arr(data['attachments'])
      .map(obj)
      .filter((a) => a?.['type'] === 'file' && typeof a['path'] === 'string')
      .map((a) => ({ path: a!['path'] as string, how: 'mention' as const }));
    if (!text && attached.length === 0) return;
    // another agent's prompt, a subagent's task, autopilot's "continue": context, not a person's prompt
    const human = !SYNTHETIC_SOURCE_RE.test(source) && rec['agentId'] === undefined && data['isAutopilotContinuation'] !== true;
    const m = this.push(human ? 'prompt' : 'context', at, text);
    if (attached.length) m.touched = attached;
  }

  private onAssistant(data: JsonRecord, at: EventAt): void {
    this.facts.model ??= str(data['model']);
    const reply = this.continueOrPush('reply', at);
    appendText(reply, (str(data['content']) ?? '').trim());
    for (const raw of arr(data['toolRequests'])) {
      const request = obj(raw);
      const name = str(request?.['name']);
      if (!request || !name) continue;
      this.addCall(reply, str(request['toolCallId']), name, request['arguments']);
    }
  }

  /** A start event names the call its request made (kept once), or is the only record of the call. */
  private onToolStart(data: JsonRecord, at: EventAt): void {
    const id = str(data['toolCallId']);
    const known = id === undefined ? undefined : this.calls.get(id);
    if (known) {
      if (known.input === undefined && data['arguments'] !== undefined) known.input = parseToolArguments(data['arguments']);
      return;
    }
    const name = str(data['toolName']);
    if (!name) return;
    this.addCall(this.continueOrPush('reply', at), id, name, data['arguments']);
  }

  private onToolComplete(data: JsonRecord, at: EventAt): void {
    const id = str(data['toolCallId']) ?? this.unanswered.shift()?.id;
    const result = data['result'];
    const failed = data['success'] === false;
    const error = str(obj(data['error'])?.['message']);
    const text = failed && error ? error : resultText(result);
    const detailed = str(obj(result)?.['detailedContent']);
    const editedLines = detailed ? diffHunkRanges(detailed) : [];
    const toolResult: ToolResult = {
      ...(id !== undefined ? { toolUseId: id } : {}),
      text: text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text,
      isError: failed,
      ...(editedLines.length ? { editedLines } : {}),
    };
    this.continueOrPush('tool-results', at).toolResults.push(toolResult);
  }

  private addCall(reply: Message, id: string | undefined, name: string, args: unknown): void {
    const call: BuiltCall = { ...(id !== undefined ? { id } : {}), name, input: parseToolArguments(args) };
    reply.toolCalls.push(call);
    if (id !== undefined) this.calls.set(id, call);
    else this.unanswered.push(call);
  }

  /** Events of one kind in a row (a reply's chunks, parallel calls' results) make one message, its lines widened. */
  private continueOrPush(kind: 'reply' | 'tool-results', at: EventAt): Message {
    const last = this.messages[this.messages.length - 1];
    if (last?.kind === kind) {
      last.lineEnd = at.line.line;
      return last;
    }
    return this.push(kind, at, '');
  }

  private push(kind: MessageKind, at: EventAt, text: string): Message {
    const m = { ...newMessage(kind, at.line, text, at.timestamp), ...(at.uuid !== undefined ? { uuid: at.uuid } : {}) };
    this.messages.push(m);
    return m;
  }

  protected buildMeta(messages: readonly Message[]): ConversationMeta {
    const workspace = readFlatYaml(this.input.side?.get(WORKSPACE_FILE) ?? '');
    const facts = {
      ...this.facts,
      project: this.facts.project ?? (workspace.get('cwd') || undefined),
      title: workspace.get('name') || workspace.get('summary'),
    };
    return sessionMeta('copilot-cli', this.input, facts, sessionIdFromPath, messages);
  }
}

/** A tool call while the log is read: a start event may still fill in the input its request left out. */
type BuiltCall = { -readonly [K in keyof ToolCall]: ToolCall[K] };

interface EventAt {
  readonly line: SourceLine;
  readonly timestamp: string | undefined;
  readonly uuid: string | undefined;
}

/** A session's folder name (the log of an older build: its file name); the start event's id comes first. */
function sessionIdFromPath(file: string): string {
  const base = path.basename(file, '.jsonl');
  return base === 'events' ? path.basename(path.dirname(file)) : base;
}

/** A result as the CLI recorded it: `{content}` (current), a plain string, or other JSON (older builds). */
function resultText(result: unknown): string {
  if (typeof result === 'string') return result;
  const rec = obj(result);
  const content = str(rec?.['content']);
  if (content !== undefined) return content;
  if (result === undefined || result === null) return '';
  return JSON.stringify(result);
}
