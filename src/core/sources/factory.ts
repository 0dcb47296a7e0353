import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, ToolCall, ToolResult } from '../model';
import { arr, headRecords, jsonOrUndefined, num, obj, type SourceAdapter, str } from './adapter';
import { JsonlConversationParser } from './jsonlParser';
import type { SourceLine } from './lines';
import { appendText, linesFromZeroOffset, newMessage } from './message';

/**
 * Factory Droid (factory.ai's `droid`; its source is not public, so this follows other projects' readers, one of
 * them checked against real sessions): `~/.factory/sessions/<cwd with separators as dashes>/<id>.jsonl` (earlier
 * builds: `~/.factory/sessions/<id>.jsonl`), appended as the session runs, with `<id>.settings.json` beside it
 * (`model`, `reasoningEffort`, `autonomyMode`, `tokenUsage`). Lines: `{type: "session_start", id, title, owner,
 * cwd}`, then `{type: "message", id, timestamp, parentId, message{role: user | assistant, content}}`, the content a
 * string or Anthropic-shaped blocks (`text`, `thinking`, `tool_use{id, name, input}`, `tool_result{tool_use_id,
 * content, is_error}`, `image`); `todo_state` lines hold the todo list. Text Droid injects into a user message
 * (`<system-reminder>` blocks) is context, not the prompt. A subagent's session (the Task tool's) has a title
 * starting `# Task Tool Invocation`. Project: `session_start`'s `cwd`; without one, the workspace folder whose
 * path, separators as dashes, is the session's folder name (a name is never decoded: `-` stands for `/` and `-`).
 */

type JsonRecord = Record<string, unknown>;

const SESSION_PATH_RE = /[\\/]\.factory[\\/]sessions[\\/](?:[^\\/]+[\\/])?[^\\/]+\.jsonl$/;
const SETTINGS_SUFFIX = '.settings.json';
/** Lines that hold no conversation: the todo list's state. */
const SILENT_TYPES = new Set(['todo_state']);
const SUBAGENT_TITLE = '# Task Tool Invocation';
const REMINDER_RE = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
const MAX_RESULT_CHARS = 20_000;

export const factoryDroidAdapter: SourceAdapter = {
  agent: 'factory-droid',
  lineFormat: 'jsonl',
  sideFiles: (file) => [settingsName(file)],
  matchesPath: (file) => file.endsWith('.jsonl'),
  claimsPath: (file) => SESSION_PATH_RE.test(file),
  sniff: (head) =>
    headRecords(head).some((rec) => rec['type'] === 'session_start' || (rec['type'] === 'message' && typeof obj(rec['message'])?.['role'] === 'string')),
  probeProject: (head) => str(headRecords(head).find((rec) => rec['type'] === 'session_start')?.['cwd']) || undefined,
  locateProject: async (file, _head, workspaceRoots) => {
    const folder = path.basename(path.dirname(file));
    return workspaceRoots.find((root) => root.replace(/[\\/]/g, '-') === folder);
  },
  parse: (input) => new DroidSessionParser(input).run(),
};

/** `<id>.settings.json` beside `<id>.jsonl`. */
function settingsName(file: string): string {
  return `${path.basename(file.replace(/\\/g, '/'), '.jsonl')}${SETTINGS_SUFFIX}`;
}

interface DroidFacts {
  sessionId?: string;
  project?: string;
  title?: string;
  subagent?: boolean;
}

class DroidSessionParser extends JsonlConversationParser {
  private readonly facts: DroidFacts = {};

  protected consume(rec: Record<string, unknown>, line: SourceLine): void {
    const type = str(rec['type']) ?? '';
    if (type === 'session_start') {
      const title = (str(rec['title']) ?? str(rec['sessionTitle']))?.trim();
      this.facts.sessionId ??= str(rec['id']);
      this.facts.project ??= str(rec['cwd']) || undefined;
      this.facts.title ??= title || undefined;
      this.facts.subagent ??= title?.startsWith(SUBAGENT_TITLE) ?? false;
    } else if (type === 'message') this.onMessage(rec, line);
    else if (!SILENT_TYPES.has(type)) this.skips.add('unknown-record', line.line);
  }

  private onMessage(rec: JsonRecord, line: SourceLine): void {
    const message = obj(rec['message']);
    const role = message?.['role'];
    if (role !== 'user' && role !== 'assistant') return this.skips.add('unknown-record', line.line);
    const content = message!['content'];
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : arr(content);
    const texts: string[] = [];
    const injected: string[] = [];
    const calls: ToolCall[] = [];
    const results: ToolResult[] = [];
    for (const raw of blocks) {
      const block = obj(raw);
      const type = block?.['type'];
      if (type === 'text') {
        const text = str(block!['text']) ?? '';
        injected.push(...[...text.matchAll(REMINDER_RE)].map((m) => m[0]));
        texts.push(text.replace(REMINDER_RE, '').trim());
      } else if (type === 'image') texts.push('[image]');
      else if (type === 'tool_use') calls.push(toolCall(block!));
      else if (type === 'tool_result') results.push(toolResult(block!));
    }
    const text = texts.filter(Boolean).join('\n\n');
    if (role === 'assistant') {
      const reply = this.continueOrPush('reply', rec, line);
      appendText(reply, text);
      reply.toolCalls.push(...calls);
      const created = calls.filter((c) => c.name === 'Create').map((c) => str(obj(c.input)?.['file_path'])).filter((p): p is string => !!p);
      if (created.length) reply.touched = [...(reply.touched ?? []), ...created.map((p) => ({ path: p, how: 'write' as const }))];
      return;
    }
    if (results.length) this.continueOrPush('tool-results', rec, line).toolResults.push(...results);
    if (injected.length) this.push('context', rec, line, injected.join('\n\n'), '#context');
    if (text) this.push('prompt', rec, line, text);
  }

  /** A reply or tool results right after one of their kind (one model turn written as several lines) continue it. */
  private continueOrPush(kind: 'reply' | 'tool-results', rec: JsonRecord, line: SourceLine): Message {
    const last = this.messages[this.messages.length - 1];
    if (last?.kind === kind) {
      last.lineEnd = line.line;
      return last;
    }
    return this.push(kind, rec, line, '', kind === 'tool-results' ? '#results' : '');
  }

  private push(kind: MessageKind, rec: JsonRecord, line: SourceLine, text: string, suffix = ''): Message {
    const id = str(rec['id']);
    const m = { ...newMessage(kind, line, text, str(rec['timestamp'])), ...(id ? { uuid: id + suffix } : {}) };
    this.messages.push(m);
    return m;
  }

  protected buildMeta(messages: readonly Message[]): ConversationMeta {
    const f = this.facts;
    const resume = this.input.resume;
    const settings = obj(jsonOrUndefined(this.input.side?.get(settingsName(this.input.file))));
    const identity = resume
      ? { sessionId: resume.sessionId, line: resume.line }
      : { sessionId: f.sessionId ?? path.basename(this.input.file.replace(/\\/g, '/'), '.jsonl'), line: this.input.lines[0]?.line ?? 1 };
    const project = resume?.project ?? f.project;
    const title = resume?.title ?? f.title;
    const startedAt = resume?.startedAt ?? messages[0]?.timestamp;
    const model = str(settings?.['model']) ?? resume?.model;
    const subagent = resume?.isSubagent ?? f.subagent ?? false;
    return {
      agent: 'factory-droid',
      ...identity,
      isSubagent: subagent,
      ...(project !== undefined ? { project } : {}),
      ...(title ? { title } : {}),
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(model ? { model } : {}),
    };
  }
}

/** A tool call; Droid's `Read` counts its `offset` from 0 (Claude Code's from 1), so its lines are named here. */
function toolCall(block: JsonRecord): ToolCall {
  const id = str(block['id']);
  const name = str(block['name']) ?? 'unknown';
  const input = block['input'];
  const args = obj(input);
  const lines = name === 'Read' ? linesFromZeroOffset(num(args?.['offset']), num(args?.['limit'])) : undefined;
  return { ...(id ? { id } : {}), name, input, ...(lines ? { lines } : {}) };
}

function toolResult(block: JsonRecord): ToolResult {
  const id = str(block['tool_use_id']);
  const content = block['content'];
  const text = typeof content === 'string' ? content : arr(content).map((c) => str(obj(c)?.['text']) ?? '').filter(Boolean).join('\n');
  return { ...(id ? { toolUseId: id } : {}), text: text.slice(0, MAX_RESULT_CHARS), isError: block['is_error'] === true };
}
