import * as path from 'node:path';
import type { Conversation, Message } from '../model';
import { arr, num, obj, type ParseInput, type ParseOutput, type SourceAdapter, str } from './adapter';
import { type GroupSpan, parseRecordGroups } from './groupedRecords';
import { resultText } from './kiro';
import { kiroFingerprints, readKiroGroups } from './kiroDb';
import { KIRO_DB_NAME } from './kiroPaths';
import { kiroToolTouches } from './kiroTools';
import { recordLines } from './lines';
import { appendText, isoFromAny, spanMessage } from './message';

/**
 * Kiro CLI's conversations from its database (kiroDb.ts reads them): a `{conversation}` record starts one, a `{turn}`
 * record per entry of its `history` follows. A turn is `{user, assistant, request_metadata}` (older versions: the
 * pair `[user, assistant]`); `user.content` is `{Prompt{prompt}}` (the human), `{ToolUseResults{tool_use_results}}`
 * or `{CancelledToolUses{prompt, tool_use_results}}` (results `{tool_use_id, content[{Text} | {Json}], status}`: a
 * shape read from the CLI's source, not from a capture), `user.timestamp` an ISO time; `assistant` is
 * `{Response{message_id, content}}` or `{ToolUse{message_id, content, tool_uses[{id, name, args}]}}`, ended at
 * `request_metadata.stream_end_timestamp_ms`. Project: the key the conversation was saved under (its working
 * directory), else the turn's `env_context.env_state.current_working_directory`. "Lines" are positions in the
 * conversation (1 is the conversation record).
 */

type JsonRecord = Record<string, unknown>;

export const kiroDbAdapter: SourceAdapter = {
  agent: 'kiro',
  lineFormat: 'sqlite',
  holdsManyProjects: true,
  readRecords: async (file) => recordLines((await readKiroGroups(file)).flatMap((g) => g.records)),
  recordGroups: { fingerprints: kiroFingerprints, read: readKiroGroups },
  matchesPath: isKiroDb,
  claimsPath: isKiroDb,
  sniff: () => false,
  probeProject: () => undefined,
  parse,
};

/** `kiro-cli/data.sqlite3` (the Amazon Q Developer CLI's `amazon-q/data.sqlite3` has the same table but is another agent's). */
function isKiroDb(file: string): boolean {
  return path.basename(file) === KIRO_DB_NAME && path.basename(path.dirname(file)) === 'kiro-cli';
}

function parse(input: ParseInput): ParseOutput {
  return parseRecordGroups(input, {
    header: 'conversation',
    open: (header) => ({ conversation: startConversation(input.file, header) }),
    item: (rec, { conversation }, span) => (rec['turn'] === undefined ? 'unknown-record' : (turnMessages(rec['turn'], conversation, span) ?? 'unknown-record')),
  });
}

function startConversation(file: string, header: JsonRecord): Conversation {
  const key = str(header['key']);
  const startedAt = isoFromAny(header['created_at']);
  const model = str(header['model']);
  return {
    sourceFile: file,
    meta: {
      agent: 'kiro',
      sessionId: str(header['id']) ?? '',
      line: 1,
      isSubagent: false,
      ...(key ? { project: key } : {}),
      ...(startedAt ? { startedAt } : {}),
      ...(model ? { model } : {}),
    },
    messages: [],
  };
}

/** A history entry's messages: the user side (a prompt and/or tool results), then the assistant's reply. */
function turnMessages(turn: unknown, conversation: Conversation, span: GroupSpan): Message[] | undefined {
  const pair = Array.isArray(turn) ? turn : undefined;
  const entry = obj(turn);
  const user = obj(pair ? pair[0] : entry?.['user']);
  const assistant = obj(pair ? pair[1] : entry?.['assistant']);
  if (!user && !assistant) return undefined;
  const id = `${conversation.meta.sessionId}#${span.line}`;
  const out: Message[] = [];
  if (user) {
    const timestamp = isoFromAny(user['timestamp']);
    const content = obj(user['content']) ?? {};
    const prompt = obj(content['Prompt']) ?? obj(content['CancelledToolUses']);
    const results = obj(content['ToolUseResults']) ?? obj(content['CancelledToolUses']);
    const toolResults = spanMessage('tool-results', span, '', { timestamp, uuid: `${id}#results` });
    for (const r of arr(results?.['tool_use_results']).map(obj)) {
      if (!r) continue;
      const useId = str(r['tool_use_id']);
      toolResults.toolResults.push({ ...(useId ? { toolUseId: useId } : {}), text: resultText(r['content']), isError: str(r['status'])?.toLowerCase() === 'error' });
    }
    out.push(toolResults);
    if (prompt) out.push(spanMessage('prompt', span, (str(prompt['prompt']) ?? '').trim(), { timestamp, uuid: id }));
    const cwd = str(obj(obj(user['env_context'])?.['env_state'])?.['current_working_directory']);
    if (cwd && conversation.meta.project === undefined) conversation.meta = { ...conversation.meta, project: cwd };
  }
  if (assistant) out.push(assistantMessage(assistant, obj(entry?.['request_metadata']), span, id));
  return out;
}

function assistantMessage(assistant: JsonRecord, metadata: JsonRecord | undefined, span: GroupSpan, id: string): Message {
  const body = obj(assistant['ToolUse']) ?? obj(assistant['Response']) ?? {};
  const end = num(metadata?.['stream_end_timestamp_ms']);
  const reply = spanMessage('reply', span, '', { timestamp: isoFromAny(end), uuid: str(body['message_id']) ?? `${id}#reply` });
  appendText(reply, (str(body['content']) ?? '').trim());
  const touched: NonNullable<Message['touched']>[number][] = [];
  for (const use of arr(body['tool_uses']).map(obj)) {
    if (!use) continue;
    const useId = str(use['id']);
    const name = str(use['name']) ?? 'tool';
    reply.toolCalls.push({ ...(useId ? { id: useId } : {}), name, input: use['args'] });
    touched.push(...kiroToolTouches(name, use['args']));
  }
  if (touched.length) reply.touched = touched;
  return reply;
}
