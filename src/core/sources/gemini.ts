import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { AgentKind, ConversationMeta, Message, ToolCall, ToolResult } from '../model';
import {
  arr, obj, type ParseInput, type ParseOutput, parseJsonDocument, parseJsonLine, SkipCounter, type SourceAdapter, str,
} from './adapter';
import { arraySpans } from './jsonSpans';
import { readSideFile, readSideFileSync, type SourceLine } from './lines';
import { hasContent, isoFromAny, type RecordSpan, spanMessage } from './message';

/**
 * Gemini CLI chat recordings: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.json`, one pretty-printed
 * document `{sessionId, projectHash, startTime, lastUpdated, messages[], summary}`, or, in newer versions,
 * `session-*.jsonl`: a metadata line, then message records where a repeated id replaces the earlier
 * version, `{$set: {...}}` patches and `{$rewindTo: id}` (the user undid that message and everything after).
 * Messages: `{id, timestamp, type: user|gemini|info|error|warning, content, toolCalls[{id, name, args,
 * result, status}], thoughts, model}`.
 * Project: `<project>/.project_root` (newer folders are slugs) or the folder's sha256 `projectHash` of the
 * project root, checked against the workspace folders; never guessed from the folder name.
 * A subagent's chat (`kind: "subagent"`) is a conversation of its own, marked with its parent session: since 0.37 in
 * `chats/<parent session id>/<agent id>.json(l)` (chatRecordingService.ts), in 0.31-0.36 a `session-*.json` beside
 * its parent's that carries the parent's session id.
 * A tool output the CLI masked (0.29+, toolOutputMaskingService.ts) is read back from the log's earlier version of the
 * record or from its `tool-outputs/session-<id>/` file (below).
 */

type JsonRecord = Record<string, unknown>;

const CHAT_PATH_RE = /[\\/]\.gemini[\\/]tmp[\\/][^\\/]+[\\/]chats[\\/]session-[^\\/]+\.jsonl?$/;
/** A subagent's chat since 0.37: `chats/<parent session id>/<agent id>.json(l)`, the folder name sanitised (`[A-Za-z0-9_-]`). */
const SUBAGENT_PATH_RE = /[\\/]chats[\\/]([\w-]+)[\\/][^\\/]+\.jsonl?$/;
const GEMINI_SUBAGENT_PATH_RE = /[\\/]\.gemini[\\/]tmp[\\/][^\\/]+[\\/]chats[\\/][\w-]+[\\/][^\\/]+\.jsonl?$/;
/**
 * Qwen Code (a Gemini CLI fork) wrote the same document under `~/.qwen/tmp/<hash>/chats/` before its JSONL
 * logs, its model's messages typed `qwen` (franken_agent_detection's reader; no capture seen here).
 */
const QWEN_DOC_PATH_RE = /[\\/]\.qwen[\\/]tmp[\\/][^\\/]+[\\/]chats[\\/]session-[^\\/]+\.json$/;
const PROJECT_HASH_RE = /"projectHash"\s*:\s*"([0-9a-f]{64})"/;
/** Notices of the CLI itself (login, memory refresh): nobody said them. */
const NOTICE_TYPES = new Set(['info', 'warning']);
/**
 * User records the CLI writes itself, which it leaves out when it shows a resumed session (`isIgnoredUserContent`):
 * the session's context (date, system, folders, GEMINI.md) and a hook's added context.
 */
const INJECTED_PREFIXES = ['<session_context>', '<hook_context>'];
const HOOK_CONTEXT_RE = /<hook_context>[\s\S]*?<\/hook_context>/g;
/** The CLI's nudge after a broken stream (client.ts): never typed. */
const SYSTEM_NUDGE = 'System: Please continue.';
/** Its nudge after the next-speaker check, recorded (0.28+) with the prompt it continues as display. */
const NUDGE = 'Please continue.';
/** Where an @ reference's file contents start in what the model got (atCommandProcessor.ts), and each file's label. */
const REFERENCES_START = '\n--- Content from referenced files ---';
const REFERENCE_RE = /^Content from @(.+):$/gm;
const MAX_RESULT_CHARS = 20_000;
/**
 * What read_file writes above a file it cut short, for the model (read-file.ts: `IMPORTANT: The file content has been
 * truncated.`, `Status: Showing lines 1-50 of 158 total lines.`, how to read on, `--- FILE CONTENT (truncated) ---`):
 * not the file's text, which follows it.
 */
const TRUNCATION_NOTE_RE = /^\s*IMPORTANT: The file content has been truncated\.\nStatus: [^\n]*\nAction: [^\n]*\n\n--- FILE CONTENT \(truncated\) ---\n/;

export const geminiAdapter: SourceAdapter = {
  agent: 'gemini',
  lineFormat: 'json',
  matchesPath: (file) => /(?:^|[\\/])session-[^\\/]*\.json$/.test(file) || (SUBAGENT_PATH_RE.test(file) && file.endsWith('.json')),
  claimsPath: (file) => (CHAT_PATH_RE.test(file) || GEMINI_SUBAGENT_PATH_RE.test(file)) && file.endsWith('.json'),
  sniff: (head) => {
    const text = head.map((l) => l.text).join('\n');
    return text.includes('"sessionId"') && PROJECT_HASH_RE.test(text);
  },
  probeProject: () => undefined,
  locateProject,
  locatesFrom,
  parse: (input) => parseDocument(input, GEMINI),
};

/** Who wrote a chat recording: the agent, and the type of its model's messages. */
interface ChatFlavour {
  readonly agent: AgentKind;
  readonly replyType: string;
}

const GEMINI: ChatFlavour = { agent: 'gemini', replyType: 'gemini' };
const QWEN: ChatFlavour = { agent: 'qwen-code', replyType: 'qwen' };

/** Qwen Code's older documents: sniffed before Gemini's by its model's message type. */
export const qwenDocumentAdapter: SourceAdapter = {
  agent: 'qwen-code',
  lineFormat: 'json',
  matchesPath: (file) => /(?:^|[\\/])session-[^\\/]*\.json$/.test(file),
  claimsPath: (file) => QWEN_DOC_PATH_RE.test(file),
  sniff: (head) => {
    const text = head.map((l) => l.text).join('\n');
    return text.includes('"sessionId"') && PROJECT_HASH_RE.test(text) && /"type"\s*:\s*"qwen"/.test(text);
  },
  probeProject: () => undefined,
  locateProject,
  locatesFrom,
  parse: (input) => parseDocument(input, QWEN),
};

export const geminiLogAdapter: SourceAdapter = {
  agent: 'gemini',
  lineFormat: 'jsonl',
  replaysLog: true,
  matchesPath: (file) => /(?:^|[\\/])session-[^\\/]*\.jsonl$/.test(file) || (SUBAGENT_PATH_RE.test(file) && file.endsWith('.jsonl')),
  claimsPath: (file) => (CHAT_PATH_RE.test(file) || GEMINI_SUBAGENT_PATH_RE.test(file)) && file.endsWith('.jsonl'),
  sniff: (head) => {
    const first = head.find((l) => l.text.trim() !== '');
    return first !== undefined && first.text.includes('"sessionId"') && PROJECT_HASH_RE.test(first.text);
  },
  probeProject: () => undefined,
  locateProject,
  locatesFrom,
  parse: (input) => parseLog(input, GEMINI),
};

/** The file beside a chat that locateProject reads: `<project>/.project_root` (the rest is the head's and the roots'). */
function locatesFrom(file: string): string[] {
  return [path.join(projectDirOf(file), '.project_root')];
}

/** `<project>/.project_root` when the CLI wrote one, else the workspace folder whose sha256 is the projectHash. */
async function locateProject(file: string, head: readonly SourceLine[], workspaceRoots: readonly string[]): Promise<string | undefined> {
  const projectDir = projectDirOf(file);
  const recorded = await readSideFile(path.join(projectDir, '.project_root'), 64 * 1024).then((t) => t.trim(), () => '');
  if (recorded) return recorded;
  const hash = PROJECT_HASH_RE.exec(head.map((l) => l.text).join('\n'))?.[1];
  if (!hash) return undefined;
  return workspaceRoots.find((root) => sha256(root) === hash || sha256(stripSlash(root)) === hash);
}

/** A Gemini CLI subagent's chat since 0.37, `chats/<parent session id>/<agent id>.json(l)` (discovery's includeSubagents). */
export function isGeminiSubagentPath(file: string): boolean {
  return SUBAGENT_PATH_RE.test(file) && !/[\\/]session-[^\\/]*$/.test(file);
}

/** `~/.gemini/tmp/<project>/`: above the `chats/` folder (a subagent's chat is one folder deeper). */
function projectDirOf(file: string): string {
  const chats = path.dirname(file);
  return isGeminiSubagentPath(file) ? path.dirname(path.dirname(chats)) : path.dirname(chats);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function stripSlash(p: string): string {
  return p.length > 1 ? p.replace(/[\\/]+$/, '') : p;
}

/** The `.json` form: one document, each message located by the lines of its record. */
function parseDocument(input: ParseInput, flavour: ChatFlavour): ParseOutput {
  const doc = parseJsonDocument(input.file, input.lines);
  const records = arr(doc['messages']);
  const spans = arraySpans(input.lines, ['messages']);
  const skips = new SkipCounter();
  const whole: RecordSpan = { line: input.lines[0]?.line ?? 1, lineEnd: input.lines[input.lines.length - 1]?.line ?? 1, offset: 0 };
  const outputs = maskedOutputs(input.file, doc);
  const messages = records.flatMap((raw, i) => toMessages(obj(raw), spans[i] ?? whole, skips, flavour, outputs));
  return output(input.file, doc, records, messages, skips, flavour);
}

interface LoggedMessage {
  record: JsonRecord;
  span: { line: number; lineEnd: number; offset: number };
}

/** The `.jsonl` form, replayed as the CLI loads it: upserts by id, `$set` patches, `$rewindTo` truncation. */
function parseLog(input: ParseInput, flavour: ChatFlavour): ParseOutput {
  const skips = new SkipCounter();
  let meta: JsonRecord = {};
  const byId = new Map<string, LoggedMessage>();
  const upsert = (rec: JsonRecord, line: SourceLine, listed = false): void => {
    const id = str(rec['id'])!;
    const seen = byId.get(id);
    if (seen) {
      const next = unmaskedFrom(seen.record, rec);
      // written again unchanged (in a whole list, or only masked): that line adds nothing to the message
      if ((listed || next !== rec) && JSON.stringify(next) === JSON.stringify(seen.record)) return;
      seen.record = next;
      seen.span.lineEnd = line.line;
    } else byId.set(id, { record: rec, span: { line: line.line, lineEnd: line.line, offset: line.offset } });
  };
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const rewindTo = rec['$rewindTo'];
    const set = obj(rec['$set']);
    if (typeof rewindTo === 'string') {
      const ids = [...byId.keys()];
      const at = ids.indexOf(rewindTo);
      for (const id of at < 0 ? ids : ids.slice(at)) byId.delete(id);
    } else if (set) {
      meta = { ...meta, ...set };
      // a whole message list (session start, compression) is taken as upserts: history is never dropped by it
      for (const m of arr(set['messages'])) if (str(obj(m)?.['id'])) upsert(obj(m)!, line, true);
    } else if (typeof rec['id'] === 'string' && typeof rec['type'] === 'string') {
      upsert(rec, line);
    } else if (byId.size === 0 && typeof rec['sessionId'] === 'string') {
      meta = { ...meta, ...rec };
    } else {
      skips.add('unknown-record', line.line);
    }
  }
  const records = [...byId.values()];
  const outputs = maskedOutputs(input.file, meta);
  const messages = records.flatMap(({ record, span }) => toMessages(record, span, skips, flavour, outputs));
  return output(input.file, meta, records.map((r) => r.record), messages, skips, flavour);
}

function output(file: string, doc: JsonRecord, records: readonly unknown[], messages: Message[], skips: SkipCounter, flavour: ChatFlavour): ParseOutput {
  const kept = messages.filter(hasContent);
  if (kept.length === 0) return { conversations: [], skipped: skips.lines };
  return { conversations: [{ sourceFile: file, meta: buildMeta(file, doc, records, kept, flavour.agent), messages: kept }], skipped: skips.lines };
}

function buildMeta(file: string, doc: JsonRecord, records: readonly unknown[], messages: readonly Message[], agent: AgentKind): ConversationMeta {
  const startedAt = isoFromAny(doc['startTime']) ?? messages[0]?.timestamp;
  const title = str(doc['summary'])?.trim();
  const model = records.map((r) => str(obj(r)?.['model'])).find(Boolean);
  return {
    agent,
    ...identity(file, doc),
    line: 1,
    ...(title ? { title } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/**
 * A subagent's chat is its own conversation, `<parent session id>/<its id>` (distinct from its parent's, as Claude
 * Code's subagents are): since 0.37 its folder names the parent; in 0.31-0.36 it lies beside the parent's and carries
 * the parent's session id, and its file name tells it apart.
 */
function identity(file: string, doc: JsonRecord): Pick<ConversationMeta, 'sessionId' | 'isSubagent' | 'parentSessionId'> {
  const base = path.basename(file).replace(/\.jsonl?$/, '');
  const own = str(doc['sessionId']) ?? base;
  const parent = (isGeminiSubagentPath(file) ? SUBAGENT_PATH_RE.exec(file)?.[1] : undefined) ?? (doc['kind'] === 'subagent' ? own : undefined);
  if (parent === undefined) return { sessionId: own, isSubagent: false };
  return { sessionId: `${parent}/${parent === own ? base : own}`, isSubagent: true, parentSessionId: parent };
}

/**
 * One record -> its messages: a user prompt, or a reply (text and tool calls) followed by the results of
 * those calls, which Gemini stores inside the same record. Errors the CLI shows are kept as context.
 */
function toMessages(rec: JsonRecord | undefined, span: RecordSpan, skips: SkipCounter, flavour: ChatFlavour, outputs: MaskedOutputs): Message[] {
  if (!rec) {
    skips.add('not-an-object', span.line);
    return [];
  }
  const type = str(rec['type']);
  const id = str(rec['id']);
  const timestamp = isoFromAny(rec['timestamp']);
  const text = contentText(rec['content']).trim();
  if (type === flavour.replyType) return replyMessages(rec, span, text, timestamp, id, outputs);
  switch (type) {
    case 'user':
      return userMessages(rec, span, text, timestamp, id);
    case 'error':
      return text ? [spanMessage('context', span, `[${flavour.replyType} error] ${text}`, { timestamp, uuid: id })] : [];
    default:
      if (!NOTICE_TYPES.has(type ?? '')) skips.add('unknown-record', span.line);
      return [];
  }
}

/**
 * A user record: the prompt as the person typed it, which 0.28+ keeps as `displayContent` when the model got other
 * text (`content`: an @ reference's files, a slash command's prompt, a hook's context). Files an @ reference sent are
 * mentioned by the prompt, not its text; a slash command's prompt is context after it (as Claude Code's are).
 * Older versions keep only what the model got: the typed part is what comes before the referenced files.
 */
function userMessages(rec: JsonRecord, span: RecordSpan, sent: string, timestamp: string | undefined, id: string | undefined): Message[] {
  if (!sent || INJECTED_PREFIXES.some((p) => sent.startsWith(p))) return [];
  const display = rec['displayContent'] === undefined ? '' : contentText(rec['displayContent']).trim();
  if (sent === SYSTEM_NUDGE || (sent === NUDGE && display !== '' && display !== sent)) return [];
  const refAt = sent.indexOf(REFERENCES_START);
  const asked = (refAt < 0 ? sent : sent.slice(0, refAt)).replace(HOOK_CONTEXT_RE, '').trim();
  const typed = display || asked;
  if (!typed) return [];
  const prompt = spanMessage('prompt', span, typed, { timestamp, uuid: id });
  if (refAt >= 0) {
    const files = [...sent.slice(refAt).matchAll(REFERENCE_RE)].map((m) => m[1]!.trim()).filter(Boolean);
    if (files.length) prompt.touched = files.map((p) => ({ path: p, how: 'mention' as const }));
  }
  // without references, text the model got that the person did not type: a command's prompt
  const expansion = refAt < 0 && display !== '' && asked !== display ? asked : '';
  return expansion ? [prompt, spanMessage('context', span, expansion, { timestamp, uuid: id && `${id}#sent` })] : [prompt];
}

/** The model's message: a reply (text and tool calls) followed by the results of those calls, kept in the same record. */
function replyMessages(rec: JsonRecord, span: RecordSpan, text: string, timestamp: string | undefined, id: string | undefined, outputs: MaskedOutputs): Message[] {
  const reply = spanMessage('reply', span, text, { timestamp, uuid: id });
  const results = spanMessage('tool-results', span, '', { timestamp, uuid: id && `${id}#results` });
  for (const raw of arr(rec['toolCalls'])) {
    const call = obj(raw);
    if (!call) continue;
    const callId = str(call['id']);
    reply.toolCalls.push({ ...(callId ? { id: callId } : {}), name: str(call['name']) ?? 'unknown', input: call['args'] } satisfies ToolCall);
    const result = toolResult(call, callId, outputs);
    if (result) results.toolResults.push(result);
  }
  return results.toolResults.length > 0 ? [reply, results] : [reply];
}

/**
 * `content`: a string, or Gemini API parts (`[{text}]`, possibly with inline data shown as a placeholder; a function
 * call's or response's part, which newer versions record in the turn, is no text).
 */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((p) => {
      const part = obj(p);
      if (!part) return typeof p === 'string' ? p : '';
      // a thought the model's turn carries (the whole turn is recorded since 0.5x): left out, as `thoughts` are
      if (part['thought'] === true) return '';
      if (typeof part['text'] === 'string') return part['text'];
      return part['inlineData'] || part['fileData'] ? '[attachment]' : '';
    })
    .filter(Boolean)
    .join('\n');
}

/** The function response's output (or error); the display text when the response is not recorded. */
function toolResult(call: JsonRecord, callId: string | undefined, masked: MaskedOutputs): ToolResult | undefined {
  const outputs: string[] = [];
  for (const raw of arr(call['result'])) {
    const response = obj(obj(obj(raw)?.['functionResponse'])?.['response']);
    const out = response ? responseText(response) : undefined;
    if (out) outputs.push((out.includes(MASK_OPEN) ? unmask(out, masked) : out).replace(TRUNCATION_NOTE_RE, ''));
  }
  if (outputs.length === 0 && typeof call['resultDisplay'] === 'string') outputs.push(call['resultDisplay']);
  if (outputs.length === 0 && call['status'] === undefined) return undefined;
  const text = outputs.join('\n').slice(0, MAX_RESULT_CHARS);
  return { ...(callId ? { toolUseId: callId } : {}), text, isError: call['status'] === 'error' || call['status'] === 'cancelled' };
}

/** What a function response said: its `output` (or `error`), else the whole response. */
function responseText(response: JsonRecord): string {
  return str(response['output']) ?? str(response['error']) ?? JSON.stringify(response);
}

/**
 * Tool outputs the CLI masked (0.29+): once the session's older outputs pass a bound (~80K tokens), each is replaced,
 * for the model and in the record, by `<tool_output_masked>` around a preview and the path of a file holding the whole
 * response (toolOutputMaskingService.ts: `Full output available at: …`, the response as indented JSON; its newer
 * context pipeline, toolMaskingProcessor.ts: `Full string saved to: …`, the string itself), written to
 * `<project>/tool-outputs/session-<session id>/`. The path in a transcript is never followed: only its file name is
 * looked for, and only in that folder of the session's own.
 */
const MASK_OPEN = '<tool_output_masked>';
const MASKED_RE = /<tool_output_masked>([\s\S]*?)<\/tool_output_masked>/g;
const MASKED_PATH_RE = /(?:Full output available at|Full string saved to): ([^\n\]]+)/;
/** What is read of a masked output's file: enough for MAX_RESULT_CHARS of text, however escaped. */
const MAX_MASKED_FILE_BYTES = 256 * 1024;

interface MaskedOutputs {
  /** `<project>/tool-outputs/session-<id>`, when the session has an id. */
  readonly folder?: string;
}

function maskedOutputs(file: string, doc: JsonRecord): MaskedOutputs {
  const id = str(doc['sessionId']);
  return id ? { folder: path.join(projectDirOf(file), 'tool-outputs', `session-${id.replace(/[^a-zA-Z0-9_-]/g, '_')}`) } : {};
}

/** Each masked part of an output replaced by the whole it stands for, or said to be masked when that is gone. */
function unmask(out: string, masked: MaskedOutputs): string {
  return out.replace(MASKED_RE, (_, inner: string) => {
    const named = MASKED_PATH_RE.exec(inner)?.[1]?.trim() ?? '';
    const whole = named ? maskedFile(named, masked) : undefined;
    if (whole !== undefined) return whole;
    const preview = inner.replace(/\n*Output too large\. Full output available at: [^\n]*/, '').trim();
    return `[Gemini CLI masked this output to save context; its whole text was not found beside the session]${preview ? `\n${preview}` : ''}`;
  });
}

/** The whole output a masked one stands for, from its file in the session's tool-outputs folder; undefined when not there. */
function maskedFile(named: string, masked: MaskedOutputs): string | undefined {
  const name = named.split(/[\\/]/).pop() ?? '';
  if (!masked.folder || !/^[\w.-]+\.txt$/.test(name) || name.startsWith('.')) return undefined;
  let text: string;
  try {
    text = readSideFileSync(path.join(masked.folder, name), MAX_MASKED_FILE_BYTES);
  } catch {
    return undefined;
  }
  if (!text.startsWith('{')) return text;
  // the masking service's file: the response as indented JSON (cut at the bound: its output read up to the cut)
  try {
    const response = obj(JSON.parse(text));
    if (response) return responseText(response);
  } catch {
    const cut = /^\{\s*"(?:output|error)":\s*"((?:[^"\\]|\\.)*)/.exec(text)?.[1];
    if (cut !== undefined) return jsonStringPrefix(cut);
  }
  return text;
}

/** The text of a JSON string's body cut anywhere: its escapes decoded, a half escape at the cut dropped. */
function jsonStringPrefix(body: string): string {
  const whole = body.replace(/\\(?:u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return JSON.parse(`"${whole}"`) as string;
  } catch {
    return whole;
  }
}

/**
 * A log writes a record again when the CLI masks its outputs (0.39+: the record with the masked results, or the
 * whole list in a `$set`): the earlier version's whole outputs are kept for the calls the new one masks.
 */
function unmaskedFrom(before: JsonRecord, after: JsonRecord): JsonRecord {
  const calls = arr(after['toolCalls']);
  if (!calls.some((raw) => isMasked(obj(raw)?.['result']))) return after;
  const earlier = new Map<string, unknown>();
  for (const raw of arr(before['toolCalls'])) {
    const call = obj(raw);
    const id = str(call?.['id']);
    if (id && call!['result'] !== undefined && !isMasked(call!['result'])) earlier.set(id, call!['result']);
  }
  if (earlier.size === 0) return after;
  const toolCalls = calls.map((raw) => {
    const call = obj(raw);
    const id = str(call?.['id']);
    return call && id && earlier.has(id) && isMasked(call['result']) ? { ...call, result: earlier.get(id) } : raw;
  });
  return { ...after, toolCalls };
}

/** Whether a call's result holds a masked output (a string of its function response's). */
function isMasked(result: unknown): boolean {
  return arr(result).some((raw) => {
    const response = obj(obj(obj(raw)?.['functionResponse'])?.['response']);
    return response !== undefined && Object.values(response).some((v) => typeof v === 'string' && v.includes(MASK_OPEN));
  });
}
