import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, ToolResult } from '../model';
import { arr, obj, type ParseInput, type ParseOutput, parseJsonDocument, SkipCounter, type SourceAdapter, str } from './adapter';
import { uriToPath } from './copilot';
import { arraySpans } from './jsonSpans';
import { readSideFile } from './lines';
import { appendText, hasContent, isoFromAny, type RecordSpan, spanMessage } from './message';
import { diffHunkRanges } from './unifiedDiff';

/**
 * Amp (Sourcegraph): one JSON document per thread, `$XDG_DATA_HOME/amp/threads/T-<uuid>.json` (by default
 * `~/.local/share/amp/threads`; the VS Code extension's older `<ud>/User/globalStorage/sourcegraph.amp/threads3/`),
 * rewritten whole as the thread grows: `{v, id, created (epoch ms), title, messages[], env{initial{cwd?, trees[
 * {displayName, uri}]}}, meta{traces[]}}`. Messages `{role: user | assistant | info, messageId, content[], usage{model,
 * timestamp}, meta{sentAt}}` hold Anthropic-style blocks: `text`, `thinking`, `tool_use{id, name, input}`, and
 * `tool_result` in two shapes, `{tool_use_id, content}` and Amp's own `{toolUseID, run{status, result, error}}`
 * whose result is a string or `{output}` (shell), `{content}` (read), `{diff}` (edit). `info` messages carry the
 * summary of a compacted thread. Project: the first tree's `file://` URI (never its display name).
 * Dates: an assistant message's `usage.timestamp`, a user message's `meta.sentAt` (epoch ms) when present,
 * else the thread's `created`.
 */

type JsonRecord = Record<string, unknown>;

const THREAD_FILE_RE = /(?:^|[\\/])T-[\w-]+\.json$/;
const THREAD_PATH_RE = /[\\/]threads3?[\\/]T-[\w-]+\.json$/;
const FAILED_RUNS = new Set(['error', 'cancelled', 'rejected-by-user']);
const MAX_RESULT_CHARS = 20_000;

export const ampAdapter: SourceAdapter = {
  agent: 'amp',
  lineFormat: 'json',
  recordsPath: ['messages'],
  matchesPath: (file) => THREAD_FILE_RE.test(file),
  claimsPath: (file) => THREAD_PATH_RE.test(file),
  sniff: (head) => {
    const text = head.map((l) => l.text).join('\n');
    return /"id"\s*:\s*"T-/.test(text) && /"messages"\s*:/.test(text);
  },
  // the document's first lines hold `env` only when it is small: the parse takes the project from the whole of it
  probeProject: (head) => projectFromText(head.map((l) => l.text).join('\n')),
  // beyond the head (a one-line document, `env` after the messages): read as far as a side file is
  locateProject: async (file) => projectFromText(await readSideFile(file).catch(() => '')),
  parse,
};

/** The workspace root as the document's text names it (the parse reads the whole `env`). */
function projectFromText(text: string): string | undefined {
  const m = /"trees"\s*:\s*\[\s*\{[^\]]*?"uri"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  if (!m) return undefined;
  try {
    return uriToPath(JSON.parse(m[1]!) as string);
  } catch {
    return undefined;
  }
}

function parse(input: ParseInput): ParseOutput {
  const doc = parseJsonDocument(input.file, input.lines);
  const threadId = threadIdOf(input.file, doc);
  const records = arr(doc['messages']);
  const spans = arraySpans(input.lines, ['messages']);
  const whole: RecordSpan = { line: input.lines[0]?.line ?? 1, lineEnd: input.lines[input.lines.length - 1]?.line ?? 1, offset: 0 };
  const skips = new SkipCounter();
  const messages: Message[] = [];
  for (const [i, raw] of records.entries()) {
    const rec = obj(raw);
    const span = spans[i] ?? whole;
    if (!rec) {
      skips.add('not-an-object', span.line);
      continue;
    }
    // the thread's own message number names it in every copy (the extension's older folder, the central one)
    const uuid = `${threadId}#${typeof rec['messageId'] === 'number' ? rec['messageId'] : `@${i}`}`;
    messages.push(...messageOf(rec, span, uuid, skips).filter(hasContent));
  }
  if (messages.length === 0) return { conversations: [], skipped: skips.lines };
  return { conversations: [{ sourceFile: input.file, meta: buildMeta(doc, threadId, records), messages }], skipped: skips.lines };
}

/** The thread id of the file name (`T-<uuid>.json`), which Amp derives from the thread; else the document's. */
function threadIdOf(file: string, doc: JsonRecord): string {
  const base = path.basename(file, '.json');
  return base.startsWith('T-') ? base : (str(doc['id']) ?? base);
}

function buildMeta(doc: JsonRecord, threadId: string, records: readonly unknown[]): ConversationMeta {
  const initial = obj(obj(doc['env'])?.['initial']);
  const tree = obj(arr(initial?.['trees'])[0]);
  const uri = str(tree?.['uri']);
  const project = str(initial?.['cwd']) || (uri ? uriToPath(uri) : undefined);
  const startedAt = isoFromAny(doc['created']);
  const title = str(doc['title'])?.trim();
  const model = records.map((r) => str(obj(obj(r)?.['usage'])?.['model'])).find(Boolean);
  return {
    agent: 'amp',
    sessionId: threadId,
    line: 1,
    isSubagent: false,
    ...(project ? { project } : {}),
    ...(title ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/** One thread message -> its messages: a user turn's prompt and tool results, a reply, or a compaction summary. */
function messageOf(rec: JsonRecord, span: RecordSpan, uuid: string, skips: SkipCounter): Message[] {
  const blocks = arr(rec['content']).map(obj).filter((b): b is JsonRecord => b !== undefined);
  const at = (kind: MessageKind, suffix = ''): Message => spanMessage(kind, span, '', { timestamp: messageTime(rec), uuid: `${uuid}${suffix}` });
  switch (rec['role']) {
    case 'user': {
      const results = at('tool-results', '#results');
      const prompt = at('prompt');
      for (const b of blocks) {
        if (b['type'] === 'tool_result') results.toolResults.push(toolResult(b));
        else if (b['type'] === 'text') appendText(prompt, (str(b['text']) ?? '').trim());
        else if (b['type'] === 'image') appendText(prompt, '[image]');
      }
      return [results, prompt];
    }
    case 'assistant': {
      const reply = at('reply');
      for (const b of blocks) {
        if (b['type'] === 'text') appendText(reply, (str(b['text']) ?? '').trim());
        else if (b['type'] === 'tool_use') {
          const id = str(b['id']);
          reply.toolCalls.push({ ...(id !== undefined ? { id } : {}), name: str(b['name']) ?? 'unknown', input: b['input'] });
        }
      }
      return [reply];
    }
    case 'info': {
      // a compacted thread's summary of what came before: context, not anyone's words now
      const context = at('context');
      for (const b of blocks) {
        const summary = obj(b['summary']);
        if (b['type'] === 'summary' && summary?.['type'] === 'message') appendText(context, (str(summary['summary']) ?? '').trim());
      }
      return [context];
    }
    default:
      skips.add('unknown-record', span.line);
      return [];
  }
}

/** The model's answer carries the time of its inference; a user message its `meta.sentAt` (epoch ms), when written. */
function messageTime(rec: JsonRecord): string | undefined {
  return isoFromAny(str(obj(rec['usage'])?.['timestamp'])) ?? isoFromAny(obj(rec['meta'])?.['sentAt']);
}

/** Both result shapes; a failed, cancelled or refused run is an error, its message the text. */
function toolResult(block: JsonRecord): ToolResult {
  const id = str(block['toolUseID']) ?? str(block['tool_use_id']);
  const run = obj(block['run']);
  const status = str(run?.['status']) ?? '';
  const failed = FAILED_RUNS.has(status) || block['is_error'] === true;
  const result = run ? run['result'] : block['content'];
  const diff = str(obj(result)?.['diff']);
  const editedLines = diff ? diffHunkRanges(diff) : [];
  let text = resultText(result);
  if (!text && failed) text = str(obj(run?.['error'])?.['message']) ?? `[${status || 'error'}]`;
  return {
    ...(id !== undefined ? { toolUseId: id } : {}),
    text: text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text,
    isError: failed,
    ...(editedLines.length ? { editedLines } : {}),
  };
}

/** A result as text: a string, the known field of a tool's object, text blocks, or the JSON of anything else. */
function resultText(result: unknown): string {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  if (Array.isArray(result)) {
    if (result.every((r) => typeof r === 'string')) return result.join('\n');
    const texts = result.map(obj).filter((b) => b?.['type'] === 'text').map((b) => str(b!['text']) ?? '');
    if (texts.length) return texts.join('\n');
    if (result.some((b) => obj(b)?.['type'] === 'image')) return '[image]';
    return JSON.stringify(result);
  }
  const rec = obj(result);
  if (rec) {
    const known = ['output', 'content', 'diff'].filter((key) => key in rec);
    const text = known.map((key) => resultText(rec[key])).find(Boolean);
    if (text) return text;
    if (typeof rec['success'] === 'boolean') return rec['success'] ? 'success' : 'failed';
    if (known.length) return '';
  }
  return JSON.stringify(result);
}
