import * as path from 'node:path';
import type { Conversation, ConversationMeta, Message, RecordedTouch } from '../model';
import { arr, headRecords, jsonOrUndefined, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { kiroToolTouches } from './kiroTools';
import { readSideFile, type SourceLine } from './lines';
import { appendText, hasContent, isoFromAny, isoFromUnixSeconds, newMessage } from './message';

/**
 * Kiro CLI's JSONL sessions: `~/.kiro/sessions/cli/<uuid>.jsonl`, each line `{version: "v1", kind, data}` with kind
 * `Prompt` (the human; `data.meta.timestamp`, epoch seconds), `AssistantMessage` and `ToolResults`; `data.content`
 * is a list of `{kind, data}` blocks: `text` (a string), `thinking`, `toolUse` (`{toolUseId, name, input}`),
 * `toolResult` (`{toolUseId, content, status}`). Beside it `<uuid>.json` (read as a side file): `session_id`,
 * `cwd` (the project), `title`, `created_at`, `session_state.model_info.model_id`. Kiro also keeps `<uuid>.lock`
 * and `sess_<uuid>.history` there, which are not sessions. Only prompts carry a time; an answer is dated by its
 * prompt. Kiro appends: a session is read on from its last exchange.
 */

type JsonRecord = Record<string, unknown>;

const KINDS = new Set(['Prompt', 'AssistantMessage', 'ToolResults']);
const CLI_SESSION_RE = /[\\/]\.kiro[\\/]sessions[\\/]cli[\\/][^\\/]+\.jsonl$/;

export const kiroAdapter: SourceAdapter = {
  agent: 'kiro',
  lineFormat: 'jsonl',
  sideFiles: (file) => [sidecarName(file)],
  matchesPath: (file) => file.endsWith('.jsonl'),
  claimsPath: (file) => CLI_SESSION_RE.test(file),
  // elsewhere (a folder given with --root) by its records
  sniff: (head) => {
    const first = headRecords(head)[0];
    return !!first && typeof first['kind'] === 'string' && KINDS.has(first['kind']) && obj(first['data']) !== undefined;
  },
  probeProject: () => undefined,
  // the project is in the side file, not the records
  locateProject: async (file) => str(obj(jsonOrUndefined(await readSideFile(path.join(path.dirname(file), sidecarName(file))).catch(() => undefined)))?.['cwd']),
  parse,
};

function sidecarName(file: string): string {
  return `${path.basename(file, '.jsonl')}.json`;
}

function parse(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const sidecar = obj(jsonOrUndefined(input.side?.get(sidecarName(input.file))));
  const messages: Message[] = [];
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const data = obj(rec['data']);
    const made = data ? recordMessages(str(rec['kind']), data, line) : undefined;
    if (!made) skips.add('unknown-record', line.line);
    else messages.push(...made.filter(hasContent));
  }
  if (messages.length === 0) return { conversations: [], skipped: skips.lines };
  const conversation: Conversation = { sourceFile: input.file, meta: buildMeta(input, sidecar, messages), messages };
  return { conversations: [conversation], skipped: skips.lines };
}

function buildMeta(input: ParseInput, sidecar: JsonRecord | undefined, messages: readonly Message[]): ConversationMeta {
  const resume = input.resume;
  const sessionId = str(sidecar?.['session_id']) ?? resume?.sessionId ?? path.basename(input.file, '.jsonl');
  const project = str(sidecar?.['cwd']) ?? resume?.project;
  const title = str(sidecar?.['title'])?.trim() || resume?.title;
  const startedAt = isoFromAny(sidecar?.['created_at']) ?? resume?.startedAt ?? messages[0]?.timestamp;
  const model = str(obj(obj(sidecar?.['session_state'])?.['model_info'])?.['model_id']) ?? resume?.model;
  return {
    agent: 'kiro',
    sessionId,
    line: 1,
    isSubagent: false,
    ...(project ? { project } : {}),
    ...(title ? { title } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/** A record's messages; undefined for a kind this reader does not know. */
function recordMessages(kind: string | undefined, data: JsonRecord, line: SourceLine): Message[] | undefined {
  const blocks = arr(data['content']).map(obj).filter((b): b is JsonRecord => b !== undefined);
  if (kind === 'Prompt') {
    const prompt = newMessage('prompt', line, '', promptTime(data));
    for (const b of blocks) {
      if (b['kind'] === 'text') appendText(prompt, (str(b['data']) ?? '').trim());
      else if (b['kind'] === 'image') appendText(prompt, '[image]');
    }
    return [prompt];
  }
  if (kind === 'AssistantMessage') {
    const reply = newMessage('reply', line, '');
    const touched: RecordedTouch[] = [];
    for (const b of blocks) {
      if (b['kind'] === 'text') appendText(reply, (str(b['data']) ?? '').trim());
      const use = b['kind'] === 'toolUse' ? obj(b['data']) : undefined;
      if (!use) continue;
      const id = str(use['toolUseId']);
      const name = str(use['name']) ?? 'tool';
      reply.toolCalls.push({ ...(id ? { id } : {}), name, input: use['input'] });
      touched.push(...kiroToolTouches(name, use['input']));
    }
    if (touched.length) reply.touched = touched;
    return [reply];
  }
  if (kind === 'ToolResults') {
    const results = newMessage('tool-results', line, '');
    for (const b of blocks) {
      const r = b['kind'] === 'toolResult' ? obj(b['data']) : undefined;
      if (!r) continue;
      const id = str(r['toolUseId']);
      const status = str(r['status'])?.toLowerCase();
      results.toolResults.push({ ...(id ? { toolUseId: id } : {}), text: resultText(r['content']), isError: status === 'error' });
    }
    return [results];
  }
  return undefined;
}

/** `data.meta.timestamp`: epoch seconds (a value past 1e11 is milliseconds). */
function promptTime(data: JsonRecord): string | undefined {
  return isoFromUnixSeconds(obj(data['meta'])?.['timestamp']);
}

/** A tool result's content: a string, `{kind: text | json, data}` blocks (or `{Text}` / `{Json}`), else its JSON. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = (Array.isArray(content) ? content : [content]).map((c) => {
    const block = obj(c);
    if (typeof c === 'string') return c;
    if (!block) return '';
    const text = str(block['Text']) ?? (block['kind'] === 'text' ? str(block['data']) : undefined) ?? str(block['text']);
    if (text !== undefined) return text;
    const json = block['Json'] ?? (block['kind'] === 'json' ? block['data'] : undefined);
    return json !== undefined ? JSON.stringify(json) : JSON.stringify(block);
  });
  return parts.filter(Boolean).join('\n');
}
