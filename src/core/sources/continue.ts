import * as path from 'node:path';
import type { ConversationMeta, Message, ToolResult } from '../model';
import { arr, obj, type ParseInput, type ParseOutput, parseJsonDocument, SkipCounter, type SourceAdapter, str } from './adapter';
import { uriToPath } from './copilot';
import { arraySpans } from './jsonSpans';
import { readSideFileSync, type SourceLine } from './lines';
import { hasContent, isoFromAny, parseToolArguments, type RecordSpan, spanMessage } from './message';

/**
 * Continue (continuedev/continue `core/util/history.ts`, `core/util/paths.ts`): `~/.continue/sessions/<id>.json`
 * (`CONTINUE_GLOBAL_DIR` moves `~/.continue`), one document `{sessionId, title, workspaceDirectory, history[]}`
 * rewritten whole on every save: pretty-printed (2 spaces) by current versions, one line by older ones.
 * `history[{message{role: user|assistant|thinking|system|tool, content: string | parts, toolCalls[{id,
 * function{name, arguments}}], toolCallId}, contextItems[], toolCallStates[{toolCallId, parsedArgs, status,
 * output[]}], promptLogs[{modelTitle, completion}]}]`. Messages carry no time: `sessions.json` (the index
 * beside them) dates each session (`dateCreated`, epoch milliseconds as a string).
 * Project: the document's `workspaceDirectory` (a path, or a `file://` / `vscode-remote://` URI in newer
 * versions), else the index's; never the folder. Files a prompt's `contextItems` attach are mentioned by it.
 * Locator: the lines of each history item's record (line 1 and the item's byte offset in a one-line file,
 * whose "open raw" shows `history` pretty-printed).
 */

type JsonRecord = Record<string, unknown>;

const SESSION_PATH_RE = /[\\/]\.continue[\\/]sessions[\\/][^\\/]+\.json$/;
const INDEX_FILE = 'sessions.json';
const WORKSPACE_RE = /"workspaceDirectory"\s*:\s*("(?:[^"\\]|\\.)*")/;
const MAX_RESULT_CHARS = 20_000;

export const continueAdapter: SourceAdapter = {
  agent: 'continue',
  lineFormat: 'json',
  recordsPath: ['history'],
  matchesPath: (file) => file.endsWith('.json') && path.basename(file) !== INDEX_FILE,
  claimsPath: (file) => SESSION_PATH_RE.test(file) && path.basename(file) !== INDEX_FILE,
  sniff: (head) => {
    const text = head.map((l) => l.text).join('\n');
    return /"sessionId"\s*:/.test(text) && WORKSPACE_RE.test(text) && /"history"\s*:/.test(text);
  },
  probeProject: (head) => workspacePath(recordedWorkspace(head)),
  locateProject,
  parse,
};

/** The `workspaceDirectory` written near the top of the document (the head may not hold the whole of it). */
function recordedWorkspace(head: readonly SourceLine[]): string | undefined {
  const m = WORKSPACE_RE.exec(head.map((l) => l.text).join('\n'));
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return undefined;
  }
}

/** A recorded workspace as a path: plain paths (Windows ones too) as they are, URIs decoded. */
function workspacePath(recorded: string | undefined): string | undefined {
  if (!recorded) return undefined;
  if (path.isAbsolute(recorded) || /^[A-Za-z]:[\\/]/.test(recorded)) return recorded;
  return uriToPath(recorded);
}

/** The index's entry for this session, for a document too large for its head to show `workspaceDirectory`. */
async function locateProject(file: string): Promise<string | undefined> {
  return workspacePath(str(indexEntry(file)?.['workspaceDirectory']));
}

/**
 * The session's entry in `sessions.json` beside it. Read synchronously, during the parse too: the index is
 * the only record of when a session began, and it is small (a few fields per session). A missing or
 * half-written index dates nothing; it is never an error.
 */
function indexEntry(file: string): JsonRecord | undefined {
  const id = path.basename(file, '.json');
  try {
    return arr(JSON.parse(readSideFileSync(path.join(path.dirname(file), INDEX_FILE)))).map(obj).find((s) => s?.['sessionId'] === id);
  } catch {
    return undefined;
  }
}

/** `dateCreated`: epoch milliseconds written as a string. */
function sessionStart(file: string): string | undefined {
  const created = indexEntry(file)?.['dateCreated'];
  return isoFromAny(typeof created === 'string' && /^\d+$/.test(created) ? Number(created) : created);
}

function parse(input: ParseInput): ParseOutput {
  const doc = parseJsonDocument(input.file, input.lines);
  const history = arr(doc['history']);
  const spans = arraySpans(input.lines, ['history']);
  const whole: RecordSpan = { line: input.lines[0]?.line ?? 1, lineEnd: input.lines[input.lines.length - 1]?.line ?? 1, offset: 0 };
  const sessionId = str(doc['sessionId']) ?? path.basename(input.file, '.json');
  const skips = new SkipCounter();
  // a tool's output is recorded twice in newer versions (a `tool` message and the call's state): the message wins
  const answered = new Set(history.map((h) => obj(obj(h)?.['message'])).filter((m) => m?.['role'] === 'tool').map((m) => str(m?.['toolCallId'])));
  const messages = history.flatMap((raw, i) => itemMessages(obj(raw), spans[i] ?? whole, `${sessionId}#${i}`, answered, skips));
  const kept = messages.filter(hasContent);
  if (kept.length === 0) return { conversations: [], skipped: skips.lines };
  return { conversations: [{ sourceFile: input.file, meta: buildMeta(doc, history, sessionId, sessionStart(input.file)), messages: kept }], skipped: skips.lines };
}

function buildMeta(doc: JsonRecord, history: readonly unknown[], sessionId: string, startedAt: string | undefined): ConversationMeta {
  const title = str(doc['title'])?.trim();
  const project = workspacePath(str(doc['workspaceDirectory']));
  const model =
    str(doc['chatModelTitle']) ??
    history.flatMap((h) => arr(obj(h)?.['promptLogs'])).map((l) => str(obj(l)?.['modelTitle'])).find(Boolean);
  return {
    agent: 'continue',
    sessionId,
    line: 1,
    isSubagent: false,
    ...(project ? { project } : {}),
    // Continue's placeholder until a title is generated says nothing about the session
    ...(title && title !== 'New Session' ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/** One history item -> its message(s): the prompt, a reply with its tool calls and their results, or context. */
function itemMessages(item: JsonRecord | undefined, span: RecordSpan, uuid: string, answered: ReadonlySet<string | undefined>, skips: SkipCounter): Message[] {
  const message = obj(item?.['message']);
  if (!item || !message) {
    skips.add('not-an-object', span.line);
    return [];
  }
  const text = contentText(message['content']).trim();
  switch (message['role']) {
    case 'user': {
      const prompt = spanMessage('prompt', span, text, { uuid });
      const attached = attachedFiles(item['contextItems']);
      if (attached.length) prompt.touched = attached.map((p) => ({ path: p, how: 'mention' as const }));
      return [prompt];
    }
    case 'assistant': {
      const reply = spanMessage('reply', span, text, { uuid });
      const results = spanMessage('tool-results', span, '', { uuid: `${uuid}#results` });
      const states = new Map(arr(item['toolCallStates']).map(obj).map((s) => [str(s?.['toolCallId']), s]));
      for (const raw of arr(message['toolCalls'])) {
        const call = obj(raw);
        const id = str(call?.['id']);
        const fn = obj(call?.['function']);
        const state = states.get(id);
        reply.toolCalls.push({ ...(id ? { id } : {}), name: str(fn?.['name']) ?? 'tool', input: state?.['parsedArgs'] ?? parseToolArguments(fn?.['arguments']) });
        const result = state && !answered.has(id) ? stateResult(state, id) : undefined;
        if (result) results.toolResults.push(result);
      }
      return results.toolResults.length > 0 ? [reply, results] : [reply];
    }
    case 'tool': {
      const results = spanMessage('tool-results', span, '', { uuid });
      const id = str(message['toolCallId']);
      results.toolResults.push({ ...(id ? { toolUseId: id } : {}), text: text.slice(0, MAX_RESULT_CHARS), isError: false });
      return [results];
    }
    case 'system':
      return [spanMessage('context', span, text, { uuid })];
    case 'thinking':
      return []; // reasoning is not the reply (the other agents omit it too)
    default:
      skips.add('unknown-record', span.line);
      return [];
  }
}

/**
 * The files the human attached to a prompt (`contextItems` whose `uri` is a file): mentioned, like Cursor's
 * file selections; the agent has not read them by being given them. Other items (terminal output, docs,
 * codebase search results) name no file.
 */
function attachedFiles(items: unknown): string[] {
  const files = arr(items).map((raw) => obj(obj(raw)?.['uri'])).filter((uri) => uri?.['type'] === 'file').map((uri) => workspacePath(str(uri?.['value'])));
  return [...new Set(files.filter((p): p is string => p !== undefined))];
}

/** `content`: a string, or parts (`{type: text, text}`; images as a placeholder). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map(obj)
    .map((part) => (part?.['type'] === 'text' ? (str(part['text']) ?? '') : part?.['type'] === 'imageUrl' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n\n');
}

/** A call's recorded state as its result: the output items' text; errored and canceled calls are errors. */
function stateResult(state: JsonRecord, id: string | undefined): ToolResult | undefined {
  const outputs = arr(state['output']).map((o) => str(obj(o)?.['content']) ?? '').filter(Boolean);
  const status = str(state['status']);
  if (outputs.length === 0 && status !== 'errored' && status !== 'canceled') return undefined;
  return { ...(id ? { toolUseId: id } : {}), text: outputs.join('\n').slice(0, MAX_RESULT_CHARS), isError: status === 'errored' || status === 'canceled' };
}
