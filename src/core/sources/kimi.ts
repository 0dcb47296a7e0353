import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, ToolCall } from '../model';
import { arr, headRecords, jsonOrUndefined, num, obj, type SourceAdapter, str } from './adapter';
import { JsonlConversationParser } from './jsonlParser';
import { readSideFile, type SourceLine } from './lines';
import { isoFromAny, newMessage, parseToolArguments } from './message';

/**
 * Kimi Code (MoonshotAI/kimi-code, `packages/agent-core/src/agent/records/types.ts`, `loop/events.ts`,
 * `docs/en/configuration/data-locations.md`): `${KIMI_CODE_HOME:-~/.kimi-code}/sessions/<workDirKey>/<sessionId>/` holds
 * `state.json` (`{title, createdAt, updatedAt, ...}`) and `agents/main/wire.jsonl`, the main agent's record log, appended
 * as the session runs (sub-agents: `agents/agent-<n>/wire.jsonl`). A record is `{type, time (epoch ms), ...}`: `metadata`
 * (`protocol_version`, `created_at`), `config.update` (`cwd`, `modelAlias`), `context.append_message` (`message{role,
 * content[{type: text | think | image_url, ...}], toolCalls, toolCallId}`, `origin{kind}`: `user` the human's prompt,
 * others skills, injections, summaries), `context.append_loop_event` (`event`: `step.begin{uuid}` opens a reply,
 * `content.part{stepUuid, part}` and `tool.call{stepUuid, toolCallId, name, args}` fill it, `tool.result{toolCallId,
 * result{output, isError}}`), `context.apply_compaction` (`summary`), `usage.record` (`model`), and state bookkeeping.
 * `turn.prompt` repeats the prompt the next `context.append_message` records (the agent's own replay reads only the
 * latter). Project: the `cwd` of `config.update`, else `state.json`'s `workDir`, else `session_index.jsonl`.
 */

type JsonRecord = Record<string, unknown>;

const WIRE_RE = /[\\/]agents[\\/][^\\/]+[\\/]wire\.jsonl$/;
const SUBAGENT_RE = /[\\/]agents[\\/](?!main[\\/])[^\\/]+[\\/]wire\.jsonl$/;
const STATE_FILE = path.join('..', '..', 'state.json');
const MAX_RESULT_CHARS = 20_000;
/** Records of the agent's state (settings, permissions, plans, tools, goals, request traces): nothing said or done. */
const SILENT_RECORDS = new Set([
  'metadata', 'forked', 'turn.prompt', 'turn.steer', 'turn.cancel', 'profile.bind', 'tools.reset_active_tools', 'permission.set_mode',
  'permission.record_approval_result', 'full_compaction.begin', 'full_compaction.cancel', 'full_compaction.complete', 'micro_compaction.apply',
  'plan_mode.enter', 'plan_mode.cancel', 'plan_mode.exit', 'swarm_mode.enter', 'swarm_mode.exit', 'tower_mode.enter', 'tower_mode.exit',
  'tools.register_user_tool', 'tools.unregister_user_tool', 'tools.set_active_tools', 'tools.update_store', 'context.update_token_count',
  'context.clear', 'context.undo', 'goal.create', 'goal.update', 'goal.clear', 'llm.tools_snapshot', 'llm.request', 'mcp.tools_discovered',
]);
/** Loop events recorded for timing and usage only. */
const SILENT_LOOP_EVENTS = new Set(['step.end']);

export const kimiAdapter: SourceAdapter = {
  agent: 'kimi',
  lineFormat: 'jsonl',
  sideFiles: [STATE_FILE],
  matchesPath: (file) => WIRE_RE.test(file),
  claimsPath: (file) => WIRE_RE.test(file) && path.basename(path.dirname(path.dirname(path.dirname(path.dirname(path.dirname(file)))))) === 'sessions',
  sniff: (head) => {
    const first = headRecords(head)[0];
    return first?.['type'] === 'metadata' && typeof first['protocol_version'] === 'string';
  },
  probeProject: (head) => str(headRecords(head).find((r) => r['type'] === 'config.update' && str(r['cwd']))?.['cwd']),
  locateProject,
  parse: (input) => new KimiWireParser(input).run(),
};

/** A sub-agent's log (`agents/agent-<n>/wire.jsonl`): a conversation of its own, its session's child. */
export function isKimiSubagent(file: string): boolean {
  return SUBAGENT_RE.test(file);
}

/**
 * A Kimi Code session's folder (`state.json` and `agents/` in it): only its agents' logs are transcripts; its tasks,
 * cron jobs and logs are not walked (nor watched).
 */
export function isKimiSession(names: readonly string[]): boolean {
  return names.includes('state.json') && names.includes('agents');
}

/** The session's work folder from its `state.json`, else from the home folder's `session_index.jsonl`. */
async function locateProject(file: string): Promise<string | undefined> {
  const session = path.dirname(path.dirname(path.dirname(file)));
  const state = obj(jsonOrUndefined(await readSideFile(path.join(session, 'state.json')).catch(() => undefined)));
  if (str(state?.['workDir'])) return str(state!['workDir']);
  // <home>/sessions/<workDirKey>/<id>: the index is in <home>
  const index = await readSideFile(path.join(path.dirname(path.dirname(path.dirname(session))), 'session_index.jsonl')).catch(() => '');
  const id = path.basename(session);
  let workDir: string | undefined;
  for (const line of index.split('\n')) {
    const rec = obj(jsonOrUndefined(line));
    if (rec?.['sessionId'] === id && str(rec['workDir'])) workDir = str(rec['workDir']);
  }
  return workDir;
}

interface KimiFacts {
  project?: string;
  model?: string;
  startedAt?: string;
}

class KimiWireParser extends JsonlConversationParser {
  private readonly facts: KimiFacts = {};
  /** The reply each open step fills, by its uuid. */
  private readonly steps = new Map<string, Message>();
  /** Tool results already read (a result may be recorded as a loop event and as a context message). */
  private readonly results = new Set<string>();

  protected override finish(): void {
    // a streamed reply is its parts joined as they came
    for (const m of this.messages) m.text = m.text.trim();
  }

  protected consume(rec: Record<string, unknown>, line: SourceLine): void {
    const type = str(rec['type']) ?? '';
    const time = isoFromAny(num(rec['time']));
    switch (type) {
      case 'context.append_message':
        return this.onMessage(obj(rec['message']), line, time);
      case 'context.append_loop_event':
        return this.onLoopEvent(obj(rec['event']), line, time);
      case 'context.apply_compaction': {
        const summary = (str(rec['summary']) ?? '').trim();
        if (summary) this.push('context', line, summary, time);
        return;
      }
      case 'config.update':
        this.facts.project = str(rec['cwd']) || this.facts.project;
        this.facts.model = str(rec['modelAlias']) || this.facts.model;
        return;
      case 'usage.record':
        this.facts.model ??= str(rec['model']);
        return;
      default:
        if (type === 'metadata') this.facts.startedAt ??= isoFromAny(num(rec['created_at']));
        if (!SILENT_RECORDS.has(type)) this.skips.add('unknown-record', line.line);
    }
  }

  private onMessage(message: JsonRecord | undefined, line: SourceLine, time: string | undefined): void {
    const text = contentText(message?.['content']).trim();
    switch (message?.['role']) {
      case 'user': {
        // the human's words; a skill's body, an injected reminder or a summary are context
        const origin = str(obj(message['origin'])?.['kind']);
        if (text) this.push(origin === undefined || origin === 'user' ? 'prompt' : 'context', line, text, time);
        return;
      }
      case 'assistant': {
        const reply = this.push('reply', line, text, time);
        for (const call of arr(message['toolCalls']).map(obj)) if (call) reply.toolCalls.push(toolCall(str(call['id']), str(call['name']), call['arguments']));
        return;
      }
      case 'tool':
        return this.addResult(line, time, str(message['toolCallId']), text, message['isError'] === true);
      case 'system':
        return;
      default:
        this.skips.add('unknown-record', line.line);
    }
  }

  private onLoopEvent(event: JsonRecord | undefined, line: SourceLine, time: string | undefined): void {
    const type = str(event?.['type']) ?? '';
    switch (type) {
      case 'step.begin': {
        const reply = this.push('reply', line, '', time);
        const uuid = str(event!['uuid']);
        if (uuid) this.steps.set(uuid, reply);
        return;
      }
      case 'content.part': {
        const part = obj(event!['part']);
        const reply = this.stepReply(event!, line, time);
        if (part?.['type'] === 'text') reply.text += str(part['text']) ?? '';
        return;
      }
      case 'tool.call': {
        const reply = this.stepReply(event!, line, time);
        reply.toolCalls.push(toolCall(str(event!['toolCallId']), str(event!['name']), event!['args']));
        return;
      }
      case 'tool.result': {
        const result = obj(event!['result']);
        const output = contentText(result?.['output']) || (str(result?.['message']) ?? '');
        return this.addResult(line, time, str(event!['toolCallId']), output, result?.['isError'] === true);
      }
      default:
        if (!SILENT_LOOP_EVENTS.has(type)) this.skips.add('unknown-record', line.line);
    }
  }

  /** The reply a step's part belongs to (its step's, else the last reply, else a new one), widened to this line. */
  private stepReply(event: JsonRecord, line: SourceLine, time: string | undefined): Message {
    const last = this.messages[this.messages.length - 1];
    const reply = this.steps.get(str(event['stepUuid']) ?? '') ?? (last?.kind === 'reply' ? last : this.push('reply', line, '', time));
    reply.lineEnd = Math.max(reply.lineEnd, line.line);
    return reply;
  }

  private addResult(line: SourceLine, time: string | undefined, id: string | undefined, text: string, isError: boolean): void {
    if (id !== undefined && this.results.has(id)) return;
    if (id !== undefined) this.results.add(id);
    const last = this.messages[this.messages.length - 1];
    const results = last?.kind === 'tool-results' ? last : this.push('tool-results', line, '', time);
    results.lineEnd = line.line;
    results.toolResults.push({ ...(id !== undefined ? { toolUseId: id } : {}), text: text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text, isError });
  }

  private push(kind: MessageKind, line: SourceLine, text: string, time: string | undefined): Message {
    const m = newMessage(kind, line, text, time);
    this.messages.push(m);
    return m;
  }

  protected buildMeta(messages: readonly Message[]): ConversationMeta {
    const file = this.input.file;
    const resume = this.input.resume;
    const session = path.basename(path.dirname(path.dirname(path.dirname(file))));
    const sub = isKimiSubagent(file);
    const state = obj(jsonOrUndefined(this.input.side?.get(STATE_FILE)));
    const title = str(state?.['title'])?.trim();
    const project = resume?.project ?? this.facts.project ?? (str(state?.['workDir']) || undefined);
    const startedAt = resume?.startedAt ?? this.facts.startedAt ?? messages.find((m) => m.timestamp)?.timestamp;
    const model = resume?.model ?? this.facts.model;
    return {
      agent: 'kimi',
      sessionId: resume?.sessionId ?? (sub ? `${session}/${path.basename(path.dirname(file))}` : session),
      line: resume?.line ?? 1,
      isSubagent: sub,
      ...(sub ? { parentSessionId: session } : {}),
      ...(project ? { project } : {}),
      ...(title && !sub ? { title } : {}),
      ...(startedAt ? { startedAt } : {}),
      ...(model ? { model } : {}),
    };
  }
}

/** A tool call; Read's `line_offset` counts from 1 and `n_lines` is how many, so the lines it reads are named here. */
function toolCall(id: string | undefined, name: string | undefined, args: unknown): ToolCall {
  const input = parseToolArguments(args);
  const a = obj(input);
  const offset = num(a?.['line_offset']);
  const count = num(a?.['n_lines']);
  const lines = name === 'Read' && offset !== undefined && count !== undefined && offset > 0 && count > 0 ? [{ start: offset, end: offset + count - 1 }] : undefined;
  return { ...(id !== undefined ? { id } : {}), name: name ?? 'tool', input, ...(lines ? { lines } : {}) };
}

/** A content list's text parts (thinking left out, images as a placeholder), or a string as it is. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map(obj)
    .map((c) => (c?.['type'] === 'text' ? (str(c['text']) ?? '') : c?.['type'] === 'image_url' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n');
}

