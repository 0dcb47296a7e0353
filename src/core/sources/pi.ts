import * as path from 'node:path';
import type { ConversationMeta, LineRange, Message, MessageKind, ToolCall, ToolResult } from '../model';
import { arr, headRecords, num, obj, type SourceAdapter, str } from './adapter';
import { JsonlConversationParser } from './jsonlParser';
import type { SourceLine } from './lines';
import { appendText, isoFromAny, newMessage } from './message';
import { type SessionFacts, sessionMeta } from './sessionMeta';

/**
 * Pi (badlogic/pi-mono `packages/coding-agent`, `docs/session.md`, `src/core/session-manager.ts`):
 * `${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/--<cwd with separators as dashes>--/<timestamp>_<uuid>.jsonl`, appended
 * as the session runs. Line 1 is the header `{type: "session", version, id, timestamp, cwd, parentSession?}`; then
 * entries `{type, id, parentId, timestamp}` (a tree: going back to an earlier entry starts a branch, the old one
 * stays in the file): `message` (`message.role` `user` | `assistant` | `toolResult` | `bashExecution` | `custom`),
 * `compaction` and `branch_summary` (`summary`), `session_info` (`name`), `model_change`, `thinking_level_change`,
 * `label`, `custom`, `custom_message`. Assistant content holds `text`, `thinking` and `toolCall{id, name,
 * arguments}` blocks; a tool result `{toolCallId, toolName, content[], details, isError}`, an edit's `details.diff`
 * numbering each changed line. Oh My Pi (a fork) writes a `{type: "title"}` line before the header.
 */

type JsonRecord = Record<string, unknown>;

const SESSION_PATH_RE = /[\\/]sessions[\\/]--[^\\/]*--[\\/][^\\/]+\.jsonl$/;
/** Entries that hold no conversation: settings, bookmarks, extensions' state, context bookkeeping. */
const SILENT_ENTRIES = new Set(['model_change', 'thinking_level_change', 'label', 'custom', 'context_transform', 'ephemeral', 'title']);
const MAX_RESULT_CHARS = 20_000;

export const piAdapter: SourceAdapter = {
  agent: 'pi',
  lineFormat: 'jsonl',
  matchesPath: (file) => file.endsWith('.jsonl'),
  claimsPath: (file) => SESSION_PATH_RE.test(file),
  sniff: (head) => headRecords(head).some((rec) => rec['type'] === 'session' && typeof rec['id'] === 'string' && typeof rec['cwd'] === 'string'),
  probeProject: (head) => str(headRecords(head).find((rec) => rec['type'] === 'session')?.['cwd']) || undefined,
  parse: (input) => new PiSessionParser(input).run(),
};

class PiSessionParser extends JsonlConversationParser {
  private readonly facts: SessionFacts = {};

  protected consume(rec: Record<string, unknown>, line: SourceLine): void {
    const type = str(rec['type']) ?? '';
    switch (type) {
      case 'session':
        return this.onHeader(rec);
      case 'message':
        return this.onMessage(rec, line);
      case 'compaction':
      case 'branch_summary': {
        // the agent's summary of what came before (or of the branch left): context, nobody's words now
        const summary = (str(rec['summary']) ?? '').trim();
        if (summary) this.push('context', rec, line, summary);
        return;
      }
      case 'custom_message':
        return this.onInjected(rec, rec['content'], line);
      case 'session_info':
        this.facts.title = str(rec['name'])?.trim() || this.facts.title;
        return;
      default:
        if (type === 'title') this.facts.title ??= str(rec['title'])?.trim() || undefined;
        if (!SILENT_ENTRIES.has(type)) this.skips.add('unknown-record', line.line);
    }
  }

  private onHeader(rec: JsonRecord): void {
    this.facts.sessionId ??= str(rec['id']);
    this.facts.project ??= str(rec['cwd']) || undefined;
    this.facts.startedAt ??= str(rec['timestamp']);
    this.facts.model ??= str(rec['modelId']);
    // a forked session names its origin by its file (`parentSession`, older `branchedFrom`)
    const origin = str(rec['parentSession']) ?? str(rec['branchedFrom']);
    if (origin) this.facts.parentSessionId ??= sessionIdOfFile(origin);
  }

  private onMessage(rec: JsonRecord, line: SourceLine): void {
    const message = obj(rec['message']);
    if (!message) return this.skips.add('unknown-record', line.line);
    switch (message['role']) {
      case 'user': {
        const text = contentText(message['content']).trim();
        if (text) this.push('prompt', rec, line, text);
        return;
      }
      case 'assistant':
        return this.onAssistant(rec, message, line);
      case 'toolResult':
        this.continueOrPush('tool-results', rec, line).toolResults.push(toolResult(message));
        return;
      case 'bashExecution': {
        // a command the user ran themselves (`!` in the terminal UI): what it showed is context
        const command = str(message['command']) ?? '';
        const output = str(message['output']) ?? '';
        if (command) this.push('context', rec, line, `$ ${command}${output ? `\n${output.slice(0, MAX_RESULT_CHARS)}` : ''}`);
        return;
      }
      case 'custom':
      case 'hookMessage':
        return this.onInjected(rec, message['content'], line);
      default:
        this.skips.add('unknown-record', line.line);
    }
  }

  private onAssistant(rec: JsonRecord, message: JsonRecord, line: SourceLine): void {
    this.facts.model ??= str(message['model']);
    const reply = this.continueOrPush('reply', rec, line);
    const content = message['content'];
    if (typeof content === 'string') appendText(reply, content.trim());
    for (const raw of arr(content)) {
      const block = obj(raw);
      if (block?.['type'] === 'text') appendText(reply, (str(block['text']) ?? '').trim());
      else if (block?.['type'] === 'toolCall') reply.toolCalls.push(toolCall(block));
    }
    // a turn that ended in an error says so where the answer would be
    const error = str(message['errorMessage']);
    if (error && message['stopReason'] === 'error') appendText(reply, `[error] ${error}`);
  }

  /** Text an extension put into the model's context: context, not a prompt. */
  private onInjected(rec: JsonRecord, content: unknown, line: SourceLine): void {
    const text = contentText(content).trim();
    if (text) this.push('context', rec, line, text);
  }

  private continueOrPush(kind: 'reply' | 'tool-results', rec: JsonRecord, line: SourceLine): Message {
    const last = this.messages[this.messages.length - 1];
    if (last?.kind === kind) {
      last.lineEnd = line.line;
      return last;
    }
    return this.push(kind, rec, line, '');
  }

  private push(kind: MessageKind, rec: JsonRecord, line: SourceLine, text: string): Message {
    const id = str(rec['id']);
    const timestamp = str(rec['timestamp']) ?? isoFromAny(obj(rec['message'])?.['timestamp']);
    // entry ids are short and per session: the session's id makes them one memory across a fork's copies
    const uuid = id !== undefined && this.sessionKey() !== undefined ? `${this.sessionKey()}#${id}` : undefined;
    const m = { ...newMessage(kind, line, text, timestamp), ...(uuid !== undefined ? { uuid } : {}) };
    this.messages.push(m);
    return m;
  }

  private sessionKey(): string | undefined {
    return this.input.resume?.sessionId ?? this.facts.sessionId;
  }

  protected buildMeta(messages: readonly Message[]): ConversationMeta {
    return sessionMeta('pi', this.input, this.facts, sessionIdOfFile, messages);
  }
}

/** `<timestamp>_<uuid>.jsonl`: the uuid is the session's id. */
function sessionIdOfFile(file: string): string {
  const base = path.basename(file.replace(/\\/g, '/'), '.jsonl');
  return /_([0-9a-f-]{36})$/i.exec(base)?.[1] ?? base;
}

/** A user or injected message's content: a string, or text blocks with images as placeholders. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map(obj)
    .map((b) => (b?.['type'] === 'text' ? (str(b['text']) ?? '') : b?.['type'] === 'image' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n');
}

/** A tool call; `read`'s offset counts from 1 (pi's read tool), so its lines are named here, not guessed later. */
function toolCall(block: JsonRecord): ToolCall {
  const id = str(block['id']);
  const name = str(block['name']) ?? 'unknown';
  const input = block['arguments'];
  const args = obj(input);
  const offset = num(args?.['offset']);
  const limit = num(args?.['limit']);
  const lines = name === 'read' && offset !== undefined && limit !== undefined && limit > 0 ? [{ start: Math.max(1, offset), end: Math.max(1, offset) + limit - 1 }] : undefined;
  return { ...(id !== undefined ? { id } : {}), name, input, ...(lines ? { lines } : {}) };
}

function toolResult(message: JsonRecord): ToolResult {
  const id = str(message['toolCallId']);
  const text = contentText(message['content']);
  const details = obj(message['details']);
  const editedLines = numberedDiffRanges(str(details?.['diff']), num(details?.['firstChangedLine']));
  return {
    ...(id !== undefined ? { toolUseId: id } : {}),
    text: text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text,
    isError: message['isError'] === true,
    ...(editedLines.length ? { editedLines } : {}),
  };
}

/**
 * The new-file lines of pi's edit diff, whose added lines read `+<line> <text>` (removed ones `-<old line>`); a
 * diff that only removes marks its first changed line.
 */
function numberedDiffRanges(diff: string | undefined, firstChanged: number | undefined): LineRange[] {
  if (!diff) return [];
  const added = [...diff.matchAll(/^\+\s*(\d+) /gm)].map((m) => Number(m[1]));
  if (added.length === 0) return firstChanged !== undefined ? [{ start: firstChanged, end: firstChanged }] : [];
  const ranges: LineRange[] = [];
  for (const n of added) {
    const last = ranges[ranges.length - 1];
    if (last && n === last.end + 1) ranges[ranges.length - 1] = { start: last.start, end: n };
    else ranges.push({ start: n, end: n });
  }
  return ranges;
}
