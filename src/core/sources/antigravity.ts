import * as path from 'node:path';
import type { ConversationMeta, Message, MessageKind, TouchKind } from '../model';
import { headRecords, jsonOrUndefined, obj, type SourceAdapter, str } from './adapter';
import { JsonlConversationParser } from './jsonlParser';
import { uriToPath } from './copilot';
import { readSideFile, type SourceLine } from './lines';
import { isoFromAny, newMessage } from './message';

/**
 * Google Antigravity, its plain-text parts only (read from deja-vu's reader and its tests, and agentsview's; no capture):
 * `~/.gemini/antigravity/` (the IDE) and `~/.gemini/antigravity-cli/` (`agy`) keep each conversation's steps as protobuf
 * in `conversations/<id>.db` or encrypted `.pb` files, which are never read; beside them,
 * `brain/<id>/.system_generated/logs/transcript.jsonl` logs each step as text, appended as it runs:
 * `{step_index, source: USER_EXPLICIT | MODEL | SYSTEM, type, created_at (ISO), content}`. A user step's content is
 * `<USER_REQUEST>…</USER_REQUEST>` with `<ADDITIONAL_METADATA>{"cwd": …}</ADDITIONAL_METADATA>` and
 * `<USER_SETTINGS_CHANGE>` blocks inside (the cwd is the project). A MODEL step is the agent speaking when its type is
 * `PLANNER_RESPONSE` (or none); any other type (`RUN_COMMAND`, `VIEW_FILE`, `CODE_ACTION`, `GREP_SEARCH`, …) is a
 * tool's transcript, whose header names the work (`Task Description:` a command, `File Path:` a file, as a file URI)
 * after `Created At:` / `Completed At:` lines. The agent's notes beside the log, `brain/<id>/task.md`,
 * `implementation_plan.md` and `walkthrough.md`, are read with it, as context at its end. Project: the cwd, else the
 * workspace `cache/conversation_metadata.json` (IDE) or `cache/last_conversations.json` (CLI) names for the conversation.
 */

type JsonRecord = Record<string, unknown>;

const TRANSCRIPT_RE = /[\\/]brain[\\/][^\\/]+[\\/]\.system_generated[\\/]logs[\\/]transcript\.jsonl$/;
const UP = path.join('..', '..');
/** The agent's notes (its artifacts' usual names), in the conversation's brain folder. */
export const BRAIN_NOTES = ['task.md', 'implementation_plan.md', 'walkthrough.md'];
const NOTE_FILES = BRAIN_NOTES.map((n) => path.join(UP, n));
const METADATA_RE = /<ADDITIONAL_METADATA>([\s\S]*?)<\/ADDITIONAL_METADATA>/;
const MAX_RESULT_CHARS = 20_000;
/** Tool steps and what they do to the file their header names. */
const STEP_TOUCH: Record<string, TouchKind> = { VIEW_FILE: 'read', VIEW_FILE_OUTLINE: 'read', VIEW_CODE_ITEM: 'read', CODE_ACTION: 'edit', WRITE_TO_FILE: 'write' };

export const antigravityAdapter: SourceAdapter = {
  agent: 'antigravity',
  lineFormat: 'jsonl',
  sideFiles: NOTE_FILES,
  matchesPath: (file) => path.basename(file) === 'transcript.jsonl',
  claimsPath: (file) => TRANSCRIPT_RE.test(file),
  sniff: (head) => headRecords(head).some((r) => (r['source'] === 'USER_EXPLICIT' || r['source'] === 'MODEL') && typeof r['content'] === 'string'),
  probeProject: (head) => {
    for (const r of headRecords(head)) if (r['source'] === 'USER_EXPLICIT') return requestCwd(str(r['content']) ?? '');
    return undefined;
  },
  locateProject,
  parse: (input) => new TranscriptParser(input).run(),
};

/** The conversation's id: its brain folder's name. */
function conversationId(file: string): string {
  return path.basename(path.dirname(path.dirname(path.dirname(file))));
}

/** The workspace the IDE's or the CLI's cache names for the conversation. */
async function locateProject(file: string): Promise<string | undefined> {
  const id = conversationId(file);
  const cache = path.join(path.dirname(path.dirname(path.dirname(path.dirname(path.dirname(file))))), 'cache');
  const ide = obj(jsonOrUndefined(await readSideFile(path.join(cache, 'conversation_metadata.json')).catch(() => undefined)));
  const summary = obj(obj(obj(ide?.['conversations'])?.[id])?.['summary']);
  const uri = Array.isArray(summary?.['WorkspaceURIs']) ? str(summary!['WorkspaceURIs'][0]) : undefined;
  if (uri) return uriToPath(uri);
  const cli = obj(jsonOrUndefined(await readSideFile(path.join(cache, 'last_conversations.json')).catch(() => undefined)));
  const workspace = Object.entries(cli ?? {}).find(([, v]) => v === id)?.[0];
  return workspace ? (uriToPath(workspace) ?? workspace) : undefined;
}

class TranscriptParser extends JsonlConversationParser {
  private project: string | undefined;

  protected override finish(): void {
    this.addNotes();
  }

  protected consume(rec: Record<string, unknown>, line: SourceLine): void {
    const content = str(rec['content']) ?? '';
    const time = isoFromAny(rec['created_at']);
    const step = rec['step_index'];
    // the step's own index when it has one: the same step logged again is one memory
    const uuid = `${conversationId(this.input.file)}#${typeof step === 'number' || typeof step === 'string' ? step : `l${line.line}`}`;
    switch (rec['source']) {
      case 'USER_EXPLICIT':
        this.project ??= requestCwd(content);
        this.push('prompt', line, userRequest(content), time, uuid);
        return;
      case 'MODEL':
        return this.onModelStep(rec, line, content, time, uuid);
      case 'SYSTEM':
        return;
      default:
        this.skips.add('unknown-record', line.line);
    }
  }

  /** Prose is a reply; a tool's transcript is a call (what its header names) and its output. */
  private onModelStep(rec: JsonRecord, line: SourceLine, content: string, time: string | undefined, uuid: string): void {
    const type = str(rec['type']) ?? '';
    if (type === '' || type === 'PLANNER_RESPONSE') {
      this.push('reply', line, content.trim(), time, uuid);
      return;
    }
    const command = headerField(content, 'Task Description:');
    const file = stepFile(content);
    const reply = this.push('reply', line, '', time, uuid);
    reply.toolCalls.push({ id: uuid, name: type, input: { ...(command ? { command } : {}), ...(file ? { path: file } : {}) } });
    const how = STEP_TOUCH[type];
    if (file && how) reply.touched = [{ path: file, how: /^Created file/m.test(content) ? 'write' : how }];
    const body = stepBody(content);
    if (body) this.push('tool-results', line, '', time, `${uuid}#out`).toolResults.push({ toolUseId: uuid, text: body.slice(0, MAX_RESULT_CHARS), isError: false });
  }

  /** The agent's notes beside the log, as context after its last step (they say what the whole conversation did). */
  private addNotes(): void {
    const last = this.input.lines[this.input.lines.length - 1];
    if (!last) return;
    for (const [i, name] of NOTE_FILES.entries()) {
      const text = this.input.side?.get(name)?.trim();
      if (text) this.push('context', last, `${BRAIN_NOTES[i]}\n\n${text}`, undefined, `${conversationId(this.input.file)}#${BRAIN_NOTES[i]}`);
    }
  }

  private push(kind: MessageKind, line: SourceLine, text: string, time: string | undefined, uuid: string): Message {
    const m = { ...newMessage(kind, line, text, time), uuid };
    this.messages.push(m);
    return m;
  }

  protected buildMeta(messages: readonly Message[]): ConversationMeta {
    const resume = this.input.resume;
    const project = resume?.project ?? this.project;
    const startedAt = resume?.startedAt ?? messages.find((m) => m.timestamp)?.timestamp;
    return {
      agent: 'antigravity',
      sessionId: resume?.sessionId ?? conversationId(this.input.file),
      line: resume?.line ?? 1,
      isSubagent: false,
      ...(project ? { project } : {}),
      ...(startedAt ? { startedAt } : {}),
    };
  }
}

/** The human's words: the request without its wrapper and the metadata and settings blocks inside it. */
function userRequest(content: string): string {
  return content
    .replace(/<ADDITIONAL_METADATA>[\s\S]*?<\/ADDITIONAL_METADATA>/g, '')
    .replace(/<USER_SETTINGS_CHANGE>[\s\S]*?<\/USER_SETTINGS_CHANGE>/g, '')
    .replace(/^\s*<USER_REQUEST>/, '')
    .replace(/<\/USER_REQUEST>\s*$/, '')
    .trim();
}

/** The cwd the request's metadata names. */
function requestCwd(content: string): string | undefined {
  const meta = METADATA_RE.exec(content)?.[1];
  return meta ? str(obj(jsonOrUndefined(meta.trim()))?.['cwd'])?.trim() || undefined : undefined;
}

/** A labelled line of a tool step's header. */
function headerField(content: string, label: string): string | undefined {
  for (const line of content.split('\n')) {
    const t = line.trim();
    if (t.startsWith(label)) return t.slice(label.length).trim() || undefined;
  }
  return undefined;
}

/** The file a tool step names, as a path: a `file://` URI, in backticks or not, after its label. */
function stepFile(content: string): string | undefined {
  for (const label of ['File Path:', 'Created file', 'Edited file', 'Modified file']) {
    const value = headerField(content, label)?.replace(/`/g, '').split(/\s+/)[0];
    if (value?.startsWith('file://')) return uriToPath(value);
  }
  return undefined;
}

/** A tool step's output: its text after the timestamps it opens with. */
function stepBody(content: string): string {
  const lines = content.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i]!.trim() === '' || /^(Created|Completed) At:/.test(lines[i]!.trim()))) i++;
  return lines.slice(i).join('\n').trim();
}
