import * as path from 'node:path';
import { stableId } from '../ids';
import type { ConversationMeta, LineRange, Message, ToolCall, ToolResult } from '../model';
import {
  arr, obj, type ParseInput, type ParseOutput, parseJsonDocument, SkipCounter, type SourceAdapter, str,
} from './adapter';
import { LOG_LINE_CHARS, type ReplayedSession, replayMutationLog } from './copilotLog';
import { arraySpans } from './jsonSpans';
import { readSideFile, type SourceLine } from './lines';
import { appendText, hasContent, isoFromAny, parseToolArguments, type RecordSpan, spanMessage } from './message';
import { insideAny } from './paths';

/**
 * GitHub Copilot Chat (VS Code's chat sessions): `<user-data>/User/workspaceStorage/<id>/chatSessions/
 * <sessionId>.json` (older; a whole document) or `.jsonl` (newer; a mutation log, see copilotLog.ts), and
 * `globalStorage/emptyWindowChatSessions/` for windows without a folder. "Chat: Export Chat…" writes the
 * same `requests[]` as a pretty-printed document anywhere. A session is `{version, sessionId, creationDate,
 * customTitle, requests[{requestId, timestamp, modelId, message{text}, response[parts], result{metadata{
 * toolCallRounds[{toolCalls[{id, name, arguments}]}], toolCallResults}}}]}`.
 * Project: the `workspace.json` beside `chatSessions/` (`{folder}` or `{workspace}`, a URI that may be
 * `vscode-remote://`), never the storage folder's name.
 */

type JsonRecord = Record<string, unknown>;

const SESSIONS_DIR_RE = /[\\/](?:chatSessions|emptyWindowChatSessions)[\\/][^\\/]+$/;
/** Response parts that are bookkeeping or UI, not what the assistant said or did. */
const SILENT_PARTS = new Set([
  'thinking', 'prepareToolInvocation', 'mcpServersStarting', 'undoStop', 'progressMessage', 'progressTaskSerialized',
  'confirmation', 'command', 'codeCitation', 'elicitation', 'extensions', 'pullRequest', 'treeData', 'multiDiffData',
  'toolInvocation', 'warning', 'questionCarousel', 'references',
]);
const MAX_RESULT_CHARS = 20_000;

export const copilotAdapter: SourceAdapter = {
  agent: 'copilot',
  lineFormat: 'json',
  recordsPath: ['requests'],
  matchesPath: (file) => file.endsWith('.json'),
  claimsPath: (file) => SESSIONS_DIR_RE.test(file) && file.endsWith('.json'),
  sniff: (head) => {
    const text = head.map((l) => l.text).join('\n');
    return /"requests"\s*:/.test(text) && /"(?:responderUsername|requesterUsername|creationDate)"\s*:/.test(text);
  },
  probeProject: () => undefined,
  locateProject,
  namesWhatLocates: true,
  // an export, saved anywhere: not in a chatSessions folder, whose workspace.json names the project
  recordsNoProject: (file) => !SESSIONS_DIR_RE.test(file),
  parse: (input) => {
    const doc = parseJsonDocument(input.file, input.lines);
    return toOutput(input, doc, arraySpans(input.lines, ['requests']), new SkipCounter());
  },
};

export const copilotLogAdapter: SourceAdapter = {
  agent: 'copilot',
  lineFormat: 'jsonl',
  maxLineChars: LOG_LINE_CHARS,
  replaysLog: true,
  matchesPath: (file) => file.endsWith('.jsonl'),
  claimsPath: (file) => SESSIONS_DIR_RE.test(file) && file.endsWith('.jsonl'),
  // a log of another location: the first entry is the whole state (only the start of it may be in the head)
  sniff: (head) => /^\{"kind":0,"v":\{/.test(head[0]?.text ?? '') && (head[0]?.text ?? '').includes('"requests"'),
  probeProject: () => undefined,
  locateProject,
  namesWhatLocates: true,
  parse: (input) => {
    const replay = replayMutationLog(input.lines, input.replay as ReplayedSession | undefined);
    const skips = new SkipCounter();
    for (const { line, reason } of replay.skipped) skips.add(reason, line);
    return { ...toOutput(input, replay.state ?? {}, replay.requestSpans, skips), replay };
  },
};

/** The folder (or first workspace folder) named by the `workspace.json` of the session's storage folder. */
async function locateProject(file: string, _head: readonly SourceLine[], workspaceRoots: readonly string[], reading?: (file: string) => void): Promise<string | undefined> {
  return workspaceFolderOf(path.dirname(path.dirname(file)), workspaceRoots, reading);
}

/**
 * The folder a workspace's storage folder (`workspaceStorage/<id>/`) belongs to, from its `workspace.json`: the folder,
 * or for a multi-root workspace the first of its folders inside `workspaceRoots` (else its first).
 */
export async function workspaceFolderOf(storage: string, workspaceRoots: readonly string[], reading?: (file: string) => void): Promise<string | undefined> {
  const named = path.join(storage, 'workspace.json');
  reading?.(named);
  const text = await readSideFile(named).catch(() => undefined);
  const ws = text ? obj(safeJson(text)) : undefined;
  const folder = str(ws?.['folder']);
  if (folder) return uriToPath(folder);
  const workspaceFile = str(ws?.['workspace']);
  if (!workspaceFile) return undefined;
  const configPath = uriToPath(workspaceFile);
  if (!configPath) return undefined;
  // a multi-root workspace: its folders, relative to the .code-workspace file
  reading?.(configPath);
  const config = obj(safeJson(await readSideFile(configPath).catch(() => '')));
  const folders = arr(config?.['folders'])
    .map((f) => str(obj(f)?.['path']) ?? (str(obj(f)?.['uri']) && uriToPath(str(obj(f)?.['uri'])!)))
    .filter((p): p is string => !!p)
    .map((p) => (path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p) ? p : path.resolve(path.dirname(configPath), p)));
  return folders.find((f) => insideAny(f, workspaceRoots)) ?? folders[0] ?? path.dirname(configPath);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A URI as the path it names: `file:///home/a/x` -> `/home/a/x`, `file:///c%3A/x` -> `c:\x`,
 * `vscode-remote://ssh-remote+host/home/a/x` -> `/home/a/x` (the remote side's path, which is what the
 * workspace folders of a remote window are).
 */
export function uriToPath(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return path.isAbsolute(uri) ? uri : undefined;
  }
  let p: string;
  try {
    p = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (/^\/[A-Za-z]:(?:[\\/]|$)/.test(p)) return p.slice(1).replace(/\//g, '\\');
  return p || undefined;
}

function toOutput(input: ParseInput, session: JsonRecord, spans: readonly RecordSpan[], skips: SkipCounter): ParseOutput {
  const requests = arr(session['requests']);
  const whole: RecordSpan = { line: input.lines[0]?.line ?? 1, lineEnd: input.lines[input.lines.length - 1]?.line ?? 1, offset: 0 };
  const messages: Message[] = [];
  for (const [i, raw] of requests.entries()) {
    const request = obj(raw);
    if (request) messages.push(...requestMessages(request, spans[i] ?? whole, skips));
    else skips.add('not-an-object', (spans[i] ?? whole).line);
  }
  const kept = messages.filter(hasContent);
  if (kept.length === 0) return { conversations: [], skipped: skips.lines };
  return { conversations: [{ sourceFile: input.file, meta: buildMeta(input.file, session, requests, kept), messages: kept }], skipped: skips.lines };
}

function buildMeta(file: string, session: JsonRecord, requests: readonly unknown[], messages: readonly Message[]): ConversationMeta {
  const first = obj(requests[0]);
  // an export has no sessionId of its own; its requests' results name the session they came from
  const sessionId =
    str(session['sessionId']) ??
    str(obj(obj(first?.['result'])?.['metadata'])?.['sessionId']) ??
    stableId('copilot', path.basename(file));
  const startedAt = isoFromAny(session['creationDate']) ?? messages[0]?.timestamp;
  const title = str(session['customTitle'])?.trim();
  const model = requests.map((r) => str(obj(r)?.['modelId'])).find(Boolean);
  return {
    agent: 'copilot',
    sessionId,
    line: 1,
    isSubagent: false,
    ...(title ? { title } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/**
 * One request -> the prompt, the reply (markdown parts, inline references by name, tool calls) and the
 * tool results. Ids derive from the requestId, so a session copied to another workspace is one memory.
 */
function requestMessages(request: JsonRecord, span: RecordSpan, skips: SkipCounter): Message[] {
  const requestId = str(request['requestId']);
  const timestamp = isoFromAny(request['timestamp']);
  const uuid = (suffix: string): string | undefined => requestId && `${requestId}${suffix}`;
  const promptText = (str(obj(request['message'])?.['text']) ?? '').trim();
  const out: Message[] = [];
  if (promptText) {
    const prompt = spanMessage('prompt', span, promptText, { timestamp, uuid: uuid('') });
    const attached = attachedFiles(obj(request['variableData'])?.['variables']);
    if (attached.length) prompt.touched = attached.map((p) => ({ path: p, how: 'mention' as const }));
    out.push(prompt);
  }
  const reply = spanMessage('reply', span, '', { timestamp, uuid: uuid('#reply') });
  const results = spanMessage('tool-results', span, '', { timestamp, uuid: uuid('#results') });

  const metadata = obj(obj(request['result'])?.['metadata']);
  const rounds = arr(metadata?.['toolCallRounds']);
  const callResults = obj(metadata?.['toolCallResults']);
  for (const round of rounds) {
    for (const raw of arr(obj(round)?.['toolCalls'])) {
      const call = obj(raw);
      if (!call) continue;
      const id = str(call['id']);
      reply.toolCalls.push({ ...(id ? { id } : {}), name: str(call['name']) ?? 'unknown', input: parseToolArguments(call['arguments']) });
      const text = id && callResults ? resultText(callResults[id]) : undefined;
      if (id && text !== undefined) results.toolResults.push({ toolUseId: id, text: text.slice(0, MAX_RESULT_CHARS), isError: false });
    }
  }
  let text = '';
  for (const raw of arr(request['response'])) {
    const part = obj(raw);
    if (!part) continue;
    const kind = str(part['kind']);
    if (kind === undefined || kind === 'markdownContent') {
      text += str(part['value']) ?? str(obj(part['content'])?.['value']) ?? '';
    } else if (kind === 'inlineReference') {
      text += inlineName(part);
    } else if (kind === 'textEditGroup' || kind === 'codeblockUri') {
      const edit = fileEdit(part);
      if (edit) results.toolResults.push(edit);
    } else if (kind === 'toolInvocationSerialized' && rounds.length === 0) {
      // without the request's tool-call rounds (older sessions) the invocation message is all there is
      reply.toolCalls.push(invocationCall(part));
    } else if (kind !== 'toolInvocationSerialized' && !SILENT_PARTS.has(kind)) {
      skips.add('unknown-record', span.line); // a part kind of a newer VS Code: counted, not guessed at
    }
  }
  appendText(reply, text.trim());
  out.push(reply);
  if (results.toolResults.length > 0) out.push(results);
  return out;
}

/**
 * The files a request attached (`variableData.variables`): a `file` entry (picked, dropped, or the editor's selection,
 * `{uri, range}`) or the active editor's `implicit` one, which the model got with the prompt: mentioned, like Cursor's
 * and Continue's attachments. Instructions files (`promptFile`), images and tools are not files the person named.
 */
function attachedFiles(variables: unknown): string[] {
  const files: string[] = [];
  for (const raw of arr(variables)) {
    const entry = obj(raw);
    const kind = str(entry?.['kind']);
    if (kind !== 'file' && kind !== 'implicit') continue;
    const value = obj(entry!['value']);
    const file = uriPath(value?.['uri'] ?? value);
    if (file && !files.includes(file)) files.push(file);
  }
  return files;
}

/** A tool result as Copilot keeps it: content parts whose `value` is text or a rendered prompt-tsx tree. */
function resultText(result: unknown): string | undefined {
  const parts = arr(obj(result)?.['content']);
  if (parts.length === 0) return undefined;
  const out: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 50) return;
    if (typeof node === 'string') return void out.push(node);
    const rec = obj(node);
    if (!rec) return void arr(node).forEach((n) => walk(n, depth + 1));
    if (typeof rec['text'] === 'string') out.push(rec['text']);
    if (typeof rec['value'] === 'string') out.push(rec['value']);
    else if (rec['value'] !== undefined) walk(rec['value'], depth + 1);
    if (rec['node'] !== undefined) walk(rec['node'], depth + 1);
    if (rec['children'] !== undefined) walk(rec['children'], depth + 1);
  };
  walk(parts, 0);
  return out.join('');
}

function inlineName(part: JsonRecord): string {
  const ref = obj(part['inlineReference']);
  const name = str(part['name']) ?? str(ref?.['name']);
  if (name) return name;
  const p = uriPath(ref?.['uri'] ?? ref);
  return p ? path.posix.basename(p.replace(/\\/g, '/')) : '';
}

/** A serialized URI (`{scheme, path, fsPath?}`) or a URI string, as a path. */
function uriPath(uri: unknown): string | undefined {
  if (typeof uri === 'string') return uriToPath(uri);
  const rec = obj(uri);
  if (!rec) return undefined;
  return str(rec['fsPath']) ?? str(rec['path']);
}

/** A `textEditGroup` (the agent's edits to one file, with their ranges) or a `codeblockUri`, as an edit result. */
function fileEdit(part: JsonRecord): ToolResult | undefined {
  const file = uriPath(part['uri']);
  if (!file) return undefined;
  const lines: LineRange[] = [];
  for (const group of arr(part['edits'])) {
    for (const raw of arr(group)) {
      const edit = obj(raw);
      const range = obj(edit?.['range']);
      const start = range?.['startLineNumber'];
      if (typeof start !== 'number' || start < 1) continue;
      const added = (str(edit?.['text']) ?? '').split('\n').length - 1;
      const end = Math.max(typeof range?.['endLineNumber'] === 'number' ? range['endLineNumber'] : start, start + added);
      lines.push({ start, end });
    }
  }
  const span = lines.length ? ` (lines ${Math.min(...lines.map((l) => l.start))}-${Math.max(...lines.map((l) => l.end))})` : '';
  return { text: `Edited ${file}${span}`, isError: false, filePath: file, ...(lines.length ? { editedLines: lines } : {}) };
}

function invocationCall(part: JsonRecord): ToolCall {
  const message = obj(part['pastTenseMessage']) ?? obj(part['invocationMessage']);
  const description = (str(message?.['value']) ?? str(part['pastTenseMessage']) ?? str(part['invocationMessage']) ?? '').trim();
  const id = str(part['toolCallId']);
  return { ...(id ? { id } : {}), name: str(part['toolId']) ?? 'tool', input: description ? { description } : {} };
}
