import * as path from 'node:path';
import type { Conversation, LineRange, Message, TouchKind } from '../model';
import { arr, obj, type ParseInput, type ParseOutput, type SourceAdapter, str } from './adapter';
import { type GroupSpan, parseRecordGroups } from './groupedRecords';
import { recordLines } from './lines';
import { appendText, isoFromAny, parseToolArguments, spanMessage } from './message';
import { readZedGroups, ZED_DB_NAME, zedFingerprints } from './zedDb';

/**
 * Zed's agent threads (zedDb.ts reads them): a `{thread}` record starts a conversation, a `{message}` record per
 * element of the thread's `messages` follows. Two document shapes, both still in stores (Zed rewrites a thread
 * only when it is next saved):
 * - 0.3.0: externally tagged `{"User": {id, content[{Text} | {Mention{uri, content}} | {Image}]}}`,
 *   `{"Agent": {content[{Text} | {Thinking} | {RedactedThinking} | {ToolUse{id, name, input | raw_input}}],
 *   tool_results{<tool use id>: {is_error, content{Text} | [{Text}], output}}}}`, and the bare string `"Resume"`;
 * - 0.2.0: `{id, role: user | assistant | system, segments[{type: text | thinking | redacted_thinking, text}],
 *   tool_uses[{id, name, input}], tool_results[{tool_use_id, is_error, content}], context}`.
 * No message carries a time: exchanges are dated by the thread's `created_at` (else `updated_at`), a session date.
 * Project: the first of the thread's `folder_paths` (newline-joined roots). Zed's tools name a file by the root
 * folder's name followed by the path inside it (`larder/src/db.ts`), resolved here against those roots.
 * "Lines" are positions in the thread (1 is the thread record); "open raw" shows the thread's records.
 */

type JsonRecord = Record<string, unknown>;

/** Zed's file tools (their names across versions) and what they do to the file their `path` names. */
const TOOL_TOUCH: Record<string, TouchKind> = {
  read_file: 'read', edit_file: 'edit', find_replace_file: 'edit', delete_path: 'edit', create_file: 'write', write_file: 'write',
};

export const zedAdapter: SourceAdapter = {
  agent: 'zed',
  lineFormat: 'sqlite',
  holdsManyProjects: true,
  readRecords: async (file) => recordLines((await readZedGroups(file)).flatMap((g) => g.records)),
  recordGroups: { fingerprints: zedFingerprints, read: readZedGroups },
  matchesPath: isZedDb,
  claimsPath: isZedDb,
  sniff: () => false,
  probeProject: () => undefined,
  parse,
};

function isZedDb(file: string): boolean {
  return path.basename(file) === ZED_DB_NAME && path.basename(path.dirname(file)) === 'threads';
}

interface Thread {
  readonly conversation: Conversation;
  readonly roots: readonly string[];
}

function parse(input: ParseInput): ParseOutput {
  return parseRecordGroups(input, {
    header: 'thread',
    open: (header) => startThread(input.file, header),
    item: (rec, thread, span) => {
      if (!('message' in rec)) return 'unknown-record';
      const made = messagesOf(rec['message'], thread, span);
      return made === 'unknown' ? 'unknown-record' : made;
    },
  });
}

function startThread(file: string, header: JsonRecord): Thread {
  const roots = (str(header['folder_paths']) ?? '').split(/[\n\0]/).map((p) => p.trim()).filter(Boolean);
  const id = str(header['id']) ?? '';
  const title = (str(header['title']) ?? str(header['summary']))?.trim();
  const parent = str(header['parent_id']);
  const startedAt = isoFromAny(header['created_at']) ?? isoFromAny(header['updated_at']);
  const model = str(obj(header['model'])?.['model']);
  return {
    roots,
    conversation: {
      sourceFile: file,
      meta: {
        agent: 'zed',
        sessionId: id,
        line: 1,
        isSubagent: parent !== undefined,
        ...(parent ? { parentSessionId: parent } : {}),
        ...(roots[0] ? { project: roots[0] } : {}),
        ...(title ? { title } : {}),
        ...(startedAt ? { startedAt } : {}),
        ...(model ? { model } : {}),
      },
      messages: [],
    },
  };
}

/** One element of `messages` as messages; `Resume` (a marker Zed adds when a turn is resumed) is none. */
function messagesOf(element: unknown, thread: Thread, span: GroupSpan): Message[] | 'unknown' {
  if (element === 'Resume') return [];
  const m = obj(element);
  if (!m) return 'unknown';
  const uuid = (suffix: string, id?: string): { uuid: string } => ({ uuid: `${thread.conversation.meta.sessionId}:${id ?? `#${span.line}`}${suffix}` });
  const user = obj(m['User']);
  if (user) return userMessages(arr(user['content']), thread, span, uuid('', str(user['id'])), uuid('#context', str(user['id'])));
  const agent = obj(m['Agent']);
  if (agent) return agentMessages(arr(agent['content']), toolResultsMap(agent['tool_results']), thread, span, uuid(''), uuid('#results'));
  // the 0.2.0 shape
  const role = str(m['role']);
  const id = m['id'] === undefined ? undefined : String(m['id']);
  const segments = arr(m['segments']).map(obj);
  if (role === 'user') {
    const blocks = segments.filter((s) => s?.['type'] === 'text').map((s) => ({ Text: str(s!['text']) ?? '' }));
    const out = userMessages(blocks, thread, span, uuid('', id), uuid('#context', id));
    const context = str(m['context'])?.trim();
    if (context) out.push(spanMessage('context', span, context, uuid('#attached', id)));
    return out;
  }
  if (role === 'assistant') {
    const blocks: unknown[] = segments.filter((s) => s?.['type'] === 'text').map((s) => ({ Text: str(s!['text']) ?? '' }));
    for (const t of arr(m['tool_uses']).map(obj)) if (t) blocks.push({ ToolUse: t });
    const results = new Map<string, JsonRecord>();
    for (const r of arr(m['tool_results']).map(obj)) if (r && str(r['tool_use_id'])) results.set(str(r['tool_use_id'])!, r);
    return agentMessages(blocks, results, thread, span, uuid('', id), uuid('#results', id));
  }
  if (role === 'system') return []; // Zed's own instructions, not the conversation
  return 'unknown';
}

/** The human's words (Text blocks) as the prompt; what a mention inlined (a file's content) as context. */
function userMessages(content: readonly unknown[], thread: Thread, span: GroupSpan, at: { uuid: string }, contextAt: { uuid: string }): Message[] {
  const prompt = spanMessage('prompt', span, '', at);
  const context = spanMessage('context', span, '', contextAt);
  const touched: Array<{ path: string; how: TouchKind; lines?: LineRange[] }> = [];
  for (const block of content.map(obj)) {
    if (!block) continue;
    const text = textOf(block['Text']);
    if (text !== undefined) appendText(prompt, text.trim());
    const mention = obj(block['Mention']);
    if (mention) {
      const file = mentionedFile(mention['uri'], thread.roots);
      if (file) touched.push({ path: file.path, how: 'mention', ...(file.lines ? { lines: file.lines } : {}) });
      appendText(context, (str(mention['content']) ?? '').trim());
    }
    if (block['Image'] !== undefined) appendText(prompt, '[image]');
  }
  if (touched.length) prompt.touched = touched;
  return [prompt, context];
}

/** The agent's text and tool calls as the reply; the tool results Zed stored with it as their own message. */
function agentMessages(content: readonly unknown[], results: ReadonlyMap<string, JsonRecord>, thread: Thread, span: GroupSpan, at: { uuid: string }, resultsAt: { uuid: string }): Message[] {
  const reply = spanMessage('reply', span, '', at);
  const resultMessage = spanMessage('tool-results', span, '', resultsAt);
  const touched: Array<{ path: string; how: TouchKind; lines?: LineRange[] }> = [];
  for (const block of content.map(obj)) {
    if (!block) continue;
    const text = textOf(block['Text']);
    if (text !== undefined) appendText(reply, text.trim());
    const use = obj(block['ToolUse']);
    if (!use) continue;
    const id = str(use['id']);
    const name = str(use['name']) ?? 'tool';
    const input = resolvePath(use['input'] ?? parseToolArguments(use['raw_input']), thread.roots);
    reply.toolCalls.push({ ...(id ? { id } : {}), name, input });
    const touch = toolTouch(name, obj(input));
    if (touch) touched.push(touch);
  }
  for (const [id, r] of results) {
    resultMessage.toolResults.push({ toolUseId: id, text: resultText(r), isError: r['is_error'] === true });
  }
  if (touched.length) reply.touched = touched;
  return [reply, resultMessage];
}

function toolResultsMap(v: unknown): Map<string, JsonRecord> {
  const map = new Map<string, JsonRecord>();
  for (const [id, r] of Object.entries(obj(v) ?? {})) if (obj(r)) map.set(id, obj(r)!);
  return map;
}

/** A tool result's text: its `content` (Text, or a list of them), else its `output` (a string or JSON). */
function resultText(r: JsonRecord): string {
  const content = r['content'];
  const texts = (Array.isArray(content) ? content : [content]).map((c) => textOf(obj(c)?.['Text']) ?? (typeof c === 'string' ? c : undefined));
  const text = texts.filter((t): t is string => t !== undefined).join('\n');
  if (text) return text;
  const output = r['output'];
  return typeof output === 'string' ? output : output === undefined || output === null ? '' : JSON.stringify(output);
}

/** `Text` is a string, or `{text}` in some versions. */
function textOf(v: unknown): string | undefined {
  return typeof v === 'string' ? v : str(obj(v)?.['text']);
}

/** A file tool's touch, with the lines a read names (`start_line`/`end_line`, 1-based). */
function toolTouch(name: string, input: JsonRecord | undefined): { path: string; how: TouchKind; lines?: LineRange[] } | undefined {
  const how = TOOL_TOUCH[name];
  const file = str(input?.['path']);
  if (!how || !file) return undefined;
  const mode = str(input?.['mode']);
  const start = input?.['start_line'];
  const end = input?.['end_line'];
  const lines = how === 'read' && typeof start === 'number' && typeof end === 'number' && end >= start ? [{ start: Math.max(1, start), end }] : undefined;
  return { path: file, how: mode === 'create' || mode === 'overwrite' ? 'write' : how, ...(lines ? { lines } : {}) };
}

/**
 * A tool input whose `path` starts with a root folder's name (how Zed's tools name files) with that path made
 * absolute, so it names the file wherever it is read (files.ts reads `path` of a `read_file` or `edit_file`).
 */
function resolvePath(input: unknown, roots: readonly string[]): unknown {
  const args = obj(input);
  const p = str(args?.['path']);
  if (!args || !p || path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p)) return input;
  const [head, ...rest] = p.split(/[\\/]/);
  const root = roots.find((r) => path.basename(r) === head);
  return root ? { ...args, path: rest.length ? path.join(root, ...rest) : root } : input;
}

/** The file a mention names (`{File{abs_path}}`, `{Selection{abs_path, line_range}}`, `{Symbol{...}}`), with its lines. */
function mentionedFile(uri: unknown, roots: readonly string[]): { path: string; lines?: LineRange[] } | undefined {
  const variant = obj(Object.values(obj(uri) ?? {})[0]);
  const file = str(variant?.['abs_path']) ?? str(variant?.['path']);
  if (!file) return undefined;
  const range = obj(variant?.['line_range']);
  const start = range?.['start'];
  const end = range?.['end'];
  // Zed's line ranges count from 0
  const lines = typeof start === 'number' && typeof end === 'number' && end >= start ? [{ start: start + 1, end: end + 1 }] : undefined;
  const resolved = str(obj(resolvePath({ path: file }, roots))?.['path']) ?? file;
  return { path: resolved, ...(lines ? { lines } : {}) };
}
