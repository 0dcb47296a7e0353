import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, ToolCall, ToolResult } from '../model';
import { arr, headRecords, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import type { SourceLine } from './lines';
import { appendText, hasContent, newMessage, parseToolArguments } from './message';
import { type SessionFacts, sessionMeta } from './sessionMeta';

/**
 * OpenAI Codex CLI rollouts: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, one
 * session per file, in two layouts:
 * - envelope (cli 0.63+): `{timestamp, type, payload}` lines of type session_meta, turn_context,
 *   response_item, event_msg and compacted;
 * - legacy: a `{id, timestamp, instructions, git}` header, `{"record_type":"state"}` lines and bare
 *   response items (`{type: "message", role, content}`, `{type: "function_call", ...}`).
 * Only response items become messages: event_msg lines repeat them for the terminal UI.
 */

type JsonRecord = Record<string, unknown>;

const ENVELOPE_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
/** Response items that are known but shown nowhere: reasoning (like thinking), git snapshots, encrypted compactions. */
const SILENT_ITEMS = new Set(['reasoning', 'ghost_snapshot', 'compaction']);
/** Item types a legacy rollout writes bare, used to recognise the layout. */
const LEGACY_ITEMS = new Set(['message', 'function_call', 'function_call_output', 'reasoning', 'local_shell_call']);
/**
 * User-role messages Codex writes itself (workspace facts, AGENTS.md, aborted turns, `!` shell escapes):
 * nobody typed them as a prompt. Compared case-insensitively after leading whitespace, as Codex does.
 */
const INJECTED_PREFIXES = [
  '<environment_context>', '<user_instructions>', '# agents.md instructions for', '<turn_aborted>',
  '<user_shell_command>', '<skill>', '<subagent_notification>', '<context_update>',
];
/** `<cwd>/x</cwd>` (newer) or `Current working directory: /x` (2025-08 versions) inside `<environment_context>`. */
const CWD_RE = /<cwd>([^<]+)<\/cwd>|^Current working directory: (.+)$/m;
const EXIT_CODE_RE = /^Exit code: (\d+)/;
/**
 * The lines Codex writes above a command's output for the model (cli 0.5x+): `Exit code: N`, `Wall time: X
 * seconds`, `Total output lines: N`, then `Output:` (shell_command, apply_patch); the unified exec tools'
 * `Chunk ID: …`, `Wall time: …`, `Process exited with code N` or `Process running with session ID N`,
 * `Original token count: N`, `Output:`. Not what the command printed: the legacy layout keeps them in JSON
 * metadata, which is left out too.
 */
const HEADER_EXIT_RE = /^(?:Exit code: |Process exited with code )(-?\d+)$/m;
const EXEC_HEADER_RE =
  /^(?:(?:Chunk ID|Wall time|Total output lines|Original token count): [^\n]*\n|(?:Exit code: |Process exited with code )-?\d+\n|Process running with session ID [^\n]*\n)+Output:(?:\n|$)/;
/** Codex's own wording when a call could not run (sandbox refusal, bad arguments). */
const FAILURE_RE = /^(?:error|failed|execution error|unsupported call)\b/i;
const ROLLOUT_UUID_RE = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;
const IMAGE_PLACEHOLDER = '[image]';

export const codexAdapter: SourceAdapter = {
  agent: 'codex',
  lineFormat: 'jsonl',
  matchesPath: (file) => file.endsWith('.jsonl'),
  sniff,
  probeProject,
  parse: (input) => new RolloutParser(input).run(),
};

/** Codex shapes only: Claude Code records (`type` user/assistant/..., with sessionId/uuid) never match. */
function sniff(head: readonly SourceLine[]): boolean {
  for (const rec of headRecords(head)) {
    if ('sessionId' in rec || 'uuid' in rec) return false;
    if (isEnvelope(rec) || isLegacyHeader(rec) || 'record_type' in rec || LEGACY_ITEMS.has(str(rec['type']) ?? '')) {
      return true;
    }
  }
  return false;
}

function probeProject(head: readonly SourceLine[]): string | undefined {
  const scratch = new SkipCounter();
  for (const line of head) {
    const rec = parseJsonLine(line, scratch);
    if (!rec) continue;
    const payload = isEnvelope(rec) ? obj(rec['payload']) : undefined;
    const type = rec['type'];
    const cwd =
      payload && (type === 'session_meta' || type === 'turn_context')
        ? str(payload['cwd'])
        : environmentCwd(payload ?? rec);
    if (cwd) return cwd;
  }
  return undefined;
}

function isEnvelope(rec: JsonRecord): boolean {
  return ENVELOPE_TYPES.has(str(rec['type']) ?? '') && obj(rec['payload']) !== undefined;
}

/** The legacy first line: `{id, timestamp, instructions, git}`, with no `type`. */
function isLegacyHeader(rec: JsonRecord): boolean {
  return !('type' in rec) && str(rec['id']) !== undefined && ('instructions' in rec || 'timestamp' in rec);
}

/** The cwd inside an injected `<environment_context>` user message (the legacy layout's only cwd). */
function environmentCwd(item: JsonRecord): string | undefined {
  if (item['type'] !== 'message' || item['role'] !== 'user') return undefined;
  const m = CWD_RE.exec(contentText(item['content']));
  return (m?.[1] ?? m?.[2])?.trim() || undefined;
}

/** One pass over a rollout's lines; consecutive assistant items merge into one reply, outputs into one message. */
class RolloutParser {
  private readonly skips = new SkipCounter();
  private readonly messages: Message[] = [];
  private readonly facts: SessionFacts = {};

  constructor(private readonly input: ParseInput) {}

  run(): ParseOutput {
    for (const line of this.input.lines) this.consume(line);
    const messages = this.messages.filter(hasContent);
    const conversations =
      messages.length === 0 ? [] : [{ sourceFile: this.input.file, meta: this.buildMeta(messages), messages }];
    return { conversations, skipped: this.skips.lines };
  }

  private consume(line: SourceLine): void {
    const rec = parseJsonLine(line, this.skips);
    if (!rec) return;
    if (isEnvelope(rec)) return this.onEnvelope(str(rec['type'])!, obj(rec['payload'])!, str(rec['timestamp']), line);
    if ('record_type' in rec) return; // legacy state snapshots: bookkeeping only
    if (isLegacyHeader(rec)) return this.onSessionHeader(rec, obj(rec['git']), str(rec['timestamp']));
    if (typeof rec['type'] === 'string') return this.onItem(rec, str(rec['timestamp']), line);
    this.skips.add('unknown-record', line.line);
  }

  private onEnvelope(type: string, payload: JsonRecord, timestamp: string | undefined, line: SourceLine): void {
    switch (type) {
      case 'session_meta':
        this.facts.project ??= str(payload['cwd']);
        return this.onSessionHeader(payload, obj(payload['git']), str(payload['timestamp']) ?? timestamp);
      case 'turn_context':
        this.facts.project ??= str(payload['cwd']);
        this.facts.model ??= str(payload['model']);
        return;
      case 'response_item':
        return this.onItem(payload, timestamp, line);
      case 'compacted': {
        const summary = str(payload['message'])?.trim();
        if (summary) this.push('context', line, summary, timestamp);
        return;
      }
      // event_msg: the UI's copy of the response items (plus token counts): reading it would duplicate them.
    }
  }

  /** A forked or resumed rollout may repeat the header of its origin: the first one names the session. */
  private onSessionHeader(header: JsonRecord, git: JsonRecord | undefined, timestamp: string | undefined): void {
    this.facts.sessionId ??= str(header['id']);
    this.facts.startedAt ??= timestamp;
    this.facts.gitBranch ??= str(git?.['branch']) || undefined;
  }

  private onItem(item: JsonRecord, timestamp: string | undefined, line: SourceLine): void {
    const type = str(item['type']) ?? '';
    if (type === 'message') return this.onMessage(item, timestamp, line);
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      this.continueOrPush('tool-results', line, timestamp).toolResults.push(toolResult(item));
      return;
    }
    const call = toolCallOf(item);
    if (call) this.continueOrPush('reply', line, timestamp).toolCalls.push(call);
    else if (!SILENT_ITEMS.has(type)) this.skips.add('unknown-record', line.line);
  }

  private onMessage(item: JsonRecord, timestamp: string | undefined, line: SourceLine): void {
    const role = item['role'];
    const text = contentText(item['content']).trim();
    if (role === 'assistant') {
      if (text) appendText(this.continueOrPush('reply', line, timestamp), text);
    } else if (role === 'user') {
      if (isInjected(text)) this.facts.project ??= environmentCwd(item);
      else if (text) this.push('prompt', line, text, timestamp);
    } else if (role !== 'developer' && role !== 'system') {
      this.skips.add('unknown-record', line.line);
    }
    // developer/system messages are instructions Codex sends the model, not conversation.
  }

  /**
   * Assistant items between two user-side items form one reply (as one model turn would), and consecutive
   * outputs one tool-results message; the message's line range widens to cover them.
   */
  private continueOrPush(kind: 'reply' | 'tool-results', line: SourceLine, timestamp: string | undefined): Message {
    const last = this.messages[this.messages.length - 1];
    if (last?.kind === kind) {
      last.lineEnd = line.line;
      return last;
    }
    return this.push(kind, line, '', timestamp);
  }

  private push(kind: MessageKind, line: SourceLine, text: string, timestamp: string | undefined): Message {
    const m = newMessage(kind, line, text, timestamp);
    this.messages.push(m);
    return m;
  }

  private buildMeta(messages: readonly Message[]): ConversationMeta {
    return sessionMeta('codex', this.input, this.facts, sessionIdFromPath, messages);
  }
}

function isInjected(text: string): boolean {
  const lower = text.trimStart().slice(0, 40).toLowerCase();
  return INJECTED_PREFIXES.some((p) => lower.startsWith(p));
}

/** A session without a header line is named by the uuid in its file name, which Codex derives from the id. */
function sessionIdFromPath(file: string): string {
  return ROLLOUT_UUID_RE.exec(file)?.[1] ?? path.basename(file, '.jsonl');
}

/** Text parts of a message, images as placeholders (never base64). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const raw of arr(content)) {
    const part = obj(raw);
    const type = part?.['type'];
    if (type === 'input_text' || type === 'output_text' || type === 'text') {
      const text = str(part?.['text']);
      if (text) parts.push(text);
    } else if (type === 'input_image') parts.push(IMAGE_PLACEHOLDER);
  }
  return parts.join('\n');
}

/** The tool call an assistant-side item makes, if it is one. */
function toolCallOf(item: JsonRecord): ToolCall | undefined {
  const name = str(item['name']) ?? 'unknown';
  switch (item['type']) {
    case 'function_call':
      return withId({ name, input: parseToolArguments(item['arguments']) }, item['call_id']);
    case 'custom_tool_call': // apply_patch: `input` is the raw patch text
      return withId({ name, input: item['input'] }, item['call_id']);
    case 'local_shell_call':
      return withId({ name: 'local_shell', input: item['action'] }, item['call_id'] ?? item['id']);
    case 'web_search_call':
      return withId({ name: 'web_search', input: item['action'] }, item['id']);
    default:
      return undefined;
  }
}

function withId(call: ToolCall, id: unknown): ToolCall {
  const callId = str(id);
  return callId !== undefined ? { id: callId, ...call } : call;
}


/**
 * Outputs come as plain text (`Exit code: N\n...`), as JSON text `{output, metadata: {exit_code}}` (legacy
 * shell and apply_patch), as `{content, success}` or as content parts (newer versions).
 */
function toolResult(item: JsonRecord): ToolResult {
  const callId = str(item['call_id']);
  const { text, isError } = outputText(item['output']);
  return { ...(callId !== undefined ? { toolUseId: callId } : {}), text, isError };
}

function outputText(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') {
    const wrapped = output.startsWith('{') ? obj(parseToolArguments(output)) : undefined;
    const inner = wrapped && str(wrapped['output']);
    if (wrapped && inner !== undefined) {
      const exit = obj(wrapped['metadata'])?.['exit_code'];
      return { text: inner, isError: typeof exit === 'number' && exit !== 0 };
    }
    const stripped = withoutHeader(output, false);
    if (stripped) return stripped;
    const exit = EXIT_CODE_RE.exec(output)?.[1];
    return { text: output, isError: exit !== undefined ? exit !== '0' : FAILURE_RE.test(output) };
  }
  const rec = obj(output);
  if (rec) {
    const text = str(rec['content']) ?? contentText(rec['content']);
    const failed = rec['success'] === false;
    return withoutHeader(text, failed) ?? { text, isError: failed };
  }
  const text = contentText(output);
  return withoutHeader(text, false) ?? { text, isError: false };
}

/**
 * A command's output without the exec header it opens with (EXEC_HEADER_RE, holding a wall time): what the command
 * printed; undefined when it opens with none. A failing command's exit code stays in front of it (`Exit code: 1`),
 * and flags the output as an error, as does a call Codex reports failed.
 */
function withoutHeader(text: string, failed: boolean): { text: string; isError: boolean } | undefined {
  const header = EXEC_HEADER_RE.exec(text)?.[0];
  if (!header?.includes('Wall time: ')) return undefined;
  const body = text.slice(header.length);
  const exit = HEADER_EXIT_RE.exec(header)?.[1];
  const exited = exit !== undefined && exit !== '0';
  return { text: exited ? `Exit code: ${exit}\n${body}` : body, isError: exited || failed };
}
