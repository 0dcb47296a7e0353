import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, ToolResult } from '../model';
import { arr, headRecords, obj, type ParseOutput, type SourceAdapter, str } from './adapter';
import { JsonlConversationParser } from './jsonlParser';
import type { SourceLine } from './lines';
import { appendText, newMessage } from './message';
import { RecordIds } from './recordIds';
import { type SessionFacts, sessionMeta } from './sessionMeta';
import { diffHunkRanges } from './unifiedDiff';

/**
 * Qwen Code (QwenLM/qwen-code `packages/core/src/services/chatRecordingService.ts`): `~/.qwen/projects/<project>/
 * chats/<sessionId>.jsonl`, one record per line, appended as the session runs: `{uuid, parentUuid, sessionId,
 * timestamp, type, cwd, version, gitBranch, message{role, parts[]}, model, toolCallResult, subtype,
 * systemPayload}` with `type` `user` (role `user`), `assistant` (role `model`), `tool_result` (the function
 * responses sent back, role `user`) or `system` (compression checkpoints, slash commands, telemetry, titles...).
 * Parts are Gemini API parts: `{text, thought?}`, `{functionCall{id, name, args}}`, `{functionResponse{id, name,
 * response{output | error}}}`, `{inlineData}`. Older versions wrote tool results as `user` records whose parts are
 * only function responses. The project is each record's `cwd`; the folder name (the cwd with separators made
 * dashes) is never decoded.
 */

type JsonRecord = Record<string, unknown>;

const CHATS_PATH_RE = /[\\/]projects[\\/][^\\/]+[\\/]chats[\\/][^\\/]+\.jsonl$/;
const RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);
const MAX_RESULT_CHARS = 20_000;

export const qwenAdapter: SourceAdapter = {
  agent: 'qwen-code',
  lineFormat: 'jsonl',
  skipsRepeatedIds: true,
  matchesPath: (file) => file.endsWith('.jsonl'),
  // Claude Code's projects hold `<project>/<session>.jsonl`, never a `chats` folder
  claimsPath: (file) => CHATS_PATH_RE.test(file),
  // Claude Code's records look alike (uuid, sessionId, cwd, type user): Qwen's message is Gemini parts, never content
  sniff: (head) => headRecords(head).some((rec) => RECORD_TYPES.has(str(rec['type']) ?? '') && Array.isArray(obj(rec['message'])?.['parts'])),
  probeProject: (head) => headRecords(head).map((rec) => str(rec['cwd'])).find(Boolean),
  parse: (input) => new ChatLogParser(input).run(),
};

/** One pass over a chat log: consecutive model records make one reply, consecutive results one message. */
class ChatLogParser extends JsonlConversationParser {
  private readonly facts: SessionFacts = {};
  private readonly seen = new RecordIds(this.input.seenIds);

  override run(): ParseOutput {
    return { ...super.run(), idsBefore: (offset) => this.seen.before(offset) };
  }

  protected consume(rec: Record<string, unknown>, line: SourceLine): void {
    const uuid = str(rec['uuid']);
    if (uuid !== undefined) {
      // a resumed session may write a record again with its uuid
      if (!this.seen.firstRead(uuid, line)) return this.skips.add('duplicate-uuid', line.line);
    }
    this.observe(rec);
    const type = str(rec['type']);
    if (type === 'system') return this.onSystem(rec);
    if (type !== 'user' && type !== 'assistant' && type !== 'tool_result') return this.skips.add('unknown-record', line.line);
    const parts = arr(obj(rec['message'])?.['parts']).map(obj).filter((p): p is JsonRecord => p !== undefined);
    if (!obj(rec['message'])) return this.skips.add('unknown-record', line.line);
    if (type === 'assistant') this.onModel(rec, parts, line);
    else this.onUserSide(rec, parts, line, type === 'tool_result');
  }

  private observe(rec: JsonRecord): void {
    const f = this.facts;
    f.sessionId ??= str(rec['sessionId']);
    f.project ??= str(rec['cwd']) || undefined;
    f.gitBranch ??= str(rec['gitBranch']) || undefined;
    f.startedAt ??= str(rec['timestamp']);
    if (rec['type'] === 'assistant') f.model ??= str(rec['model']);
  }

  /** A title the user or the CLI gave the session (the last one wins); the rest is bookkeeping. */
  private onSystem(rec: JsonRecord): void {
    if (rec['subtype'] === 'custom_title') this.facts.title = str(obj(rec['systemPayload'])?.['customTitle']) ?? this.facts.title;
  }

  private onModel(rec: JsonRecord, parts: readonly JsonRecord[], line: SourceLine): void {
    const reply = this.continueOrPush('reply', rec, line);
    appendText(reply, partsText(parts).trim());
    for (const part of parts) {
      const call = obj(part['functionCall']);
      const name = str(call?.['name']);
      if (!call || !name) continue;
      const id = str(call['id']);
      reply.toolCalls.push({ ...(id !== undefined ? { id } : {}), name, input: call['args'] });
    }
  }

  /** A user-side record: function responses are tool results, the rest a prompt (or a subagent's task: context). */
  private onUserSide(rec: JsonRecord, parts: readonly JsonRecord[], line: SourceLine, resultRecord: boolean): void {
    const results = parts.filter((p) => obj(p['functionResponse'])).map((p) => toolResult(obj(p['functionResponse'])!, obj(rec['toolCallResult'])));
    if (results.length > 0) this.continueOrPush('tool-results', rec, line).toolResults.push(...results);
    const text = partsText(parts).trim();
    if (!text || resultRecord) return;
    const sidechain = rec['isSidechain'] === true || rec['agentId'] !== undefined;
    this.push(sidechain ? 'context' : 'prompt', rec, line, text);
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
    const uuid = str(rec['uuid']);
    const m = { ...newMessage(kind, line, text, str(rec['timestamp'])), ...(uuid !== undefined ? { uuid } : {}) };
    this.messages.push(m);
    return m;
  }

  protected buildMeta(messages: readonly Message[]): ConversationMeta {
    return sessionMeta('qwen-code', this.input, this.facts, (file) => path.basename(file, '.jsonl'), messages);
  }
}

/** The text parts (not the model's thoughts); inline data as a placeholder, never its bytes. */
function partsText(parts: readonly JsonRecord[]): string {
  const out: string[] = [];
  for (const p of parts) {
    if (p['thought'] === true) continue;
    if (typeof p['text'] === 'string') out.push(p['text']);
    else if (p['inlineData'] || p['fileData']) out.push('[attachment]');
  }
  return out.join('\n');
}

/**
 * A function response: its `output` (or `error`), failed when the response or the record's `toolCallResult` says
 * so; an edit's `resultDisplay.fileDiff` (a unified diff) gives the lines it changed.
 */
function toolResult(response: JsonRecord, callResult: JsonRecord | undefined): ToolResult {
  const id = str(response['id']);
  const body = obj(response['response']);
  const error = str(body?.['error']) ?? str(obj(callResult?.['error'])?.['message']);
  const output = body ? (str(body['output']) ?? error ?? JSON.stringify(body)) : '';
  // the record's call result describes one call: this one when its id matches (or it names none)
  const own = callResult && [undefined, id].includes(str(callResult['callId'])) ? callResult : undefined;
  const diff = str(obj(own?.['resultDisplay'])?.['fileDiff']);
  const editedLines = diff ? diffHunkRanges(diff) : [];
  const failed = error !== undefined || own?.['status'] === 'error';
  return {
    ...(id !== undefined ? { toolUseId: id } : {}),
    text: output.length > MAX_RESULT_CHARS ? output.slice(0, MAX_RESULT_CHARS) : output,
    isError: failed,
    ...(editedLines.length ? { editedLines } : {}),
  };
}
