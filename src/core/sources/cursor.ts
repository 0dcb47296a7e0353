import * as path from 'node:path';
import type { Conversation, Message, TouchKind } from '../model';
import { arr, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { cursorFingerprints, readCursorGroups, readCursorRecords } from './cursorDb';
import { appendText, hasContent, isoFromAny, parseToolArguments, spanMessage } from './message';
import { isTraeGlobalDb } from './traeDb';

/**
 * Cursor's chats (composer and agent) from its global database, `<ud>/User/globalStorage/state.vscdb`,
 * read through cursorDb.ts as one JSON line per record: a composer line starts a conversation, a bubble line
 * per message follows. One database holds every workspace's conversations, each attributed by its own
 * `workspaceIdentifier` (or its workspace storage). Lines mean nothing in SQLite: an exchange's "lines" are
 * the positions of its first and last bubble in the conversation (1-based), its byte offset the record's
 * place in the order read, and its messages carry the bubble ids; "open raw" shows those records.
 */

type JsonRecord = Record<string, unknown>;

/** Cursor's file tools (their names across versions) and what they do to the file their arguments name. */
const TOOL_TOUCH: Record<string, TouchKind> = {
  read_file: 'read', read_file_v2: 'read',
  edit_file: 'edit', edit_file_v2: 'edit', search_replace: 'edit', multi_edit: 'edit', reapply: 'edit', delete_file: 'edit',
  write: 'write', create_file: 'write',
};
const PATH_KEYS = ['target_file', 'file_path', 'path', 'relative_workspace_path', 'relativeWorkspacePath', 'targetFile', 'filePath'];

export const cursorAdapter: SourceAdapter = {
  agent: 'cursor',
  lineFormat: 'sqlite',
  holdsManyProjects: true,
  readRecords: readCursorRecords,
  recordGroups: { fingerprints: cursorFingerprints, read: readCursorGroups },
  matchesPath: isGlobalDatabase,
  claimsPath: isGlobalDatabase,
  sniff: () => false,
  probeProject: () => undefined,
  parse,
};

/**
 * `<ud>/User/globalStorage/state.vscdb`: the layout proves it (VS Code's own has no chats table and gives nothing),
 * except in Trae's user-data folders, whose global database is Trae's.
 */
function isGlobalDatabase(file: string): boolean {
  return path.basename(file) === 'state.vscdb' && path.basename(path.dirname(file)) === 'globalStorage' && !isTraeGlobalDb(file);
}

function parse(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const conversations: Conversation[] = [];
  let current: Conversation | undefined;
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const composer = obj(rec['composer']);
    if (composer) {
      current = startConversation(input.file, composer, str(rec['project']));
      conversations.push(current);
      continue;
    }
    const bubble = obj(rec['bubble']);
    const position = typeof rec['position'] === 'number' ? rec['position'] : undefined;
    if (!current || rec['composerId'] !== current.meta.sessionId || position === undefined) {
      skips.add('unknown-record', line.line);
      continue;
    }
    if (!bubble) {
      skips.add(rec['damaged'] === true ? 'malformed-json' : 'not-an-object', line.line);
      continue;
    }
    const span = { line: position, lineEnd: position, offset: line.offset };
    const message = bubbleMessage(bubble, span, str(rec['bubbleId']));
    if (message === 'unknown') skips.add('unknown-record', line.line);
    else if (hasContent(message)) current.messages.push(message);
  }
  return { conversations: conversations.filter((c) => c.messages.length > 0), skipped: skips.lines };
}

function startConversation(file: string, composer: JsonRecord, project: string | undefined): Conversation {
  const title = str(composer['name']);
  const startedAt = isoFromAny(composer['createdAt']);
  const model = str(composer['modelName']);
  return {
    sourceFile: file,
    meta: {
      agent: 'cursor',
      sessionId: str(composer['composerId']) ?? '',
      line: 1,
      isSubagent: false,
      ...(project ? { project } : {}),
      ...(title ? { title } : {}),
      ...(startedAt ? { startedAt } : {}),
      ...(model && model !== 'default' ? { model } : {}),
    },
    messages: [],
  };
}

/** A bubble as a message: type 1 the human's prompt, type 2 the assistant's text or one tool call with its result. */
function bubbleMessage(bubble: JsonRecord, span: { line: number; lineEnd: number; offset: number }, bubbleId: string | undefined): Message | 'unknown' {
  const timestamp = isoFromAny(bubble['createdAt']);
  const extra = { timestamp, uuid: bubbleId };
  const text = str(bubble['text']) ?? '';
  if (bubble['type'] === 1) {
    const prompt = spanMessage('prompt', span, text.trim(), extra);
    const mentioned = fileSelections(bubble['fileSelections']);
    if (mentioned.length) prompt.touched = mentioned.map((p) => ({ path: p, how: 'mention' as const }));
    return prompt;
  }
  if (bubble['type'] !== 2) return 'unknown';
  const reply = spanMessage('reply', span, '', extra);
  appendText(reply, text.trim());
  const tool = obj(bubble['tool']);
  if (tool) {
    const name = str(tool['name']) ?? `tool ${String(tool['tool'] ?? '')}`.trim();
    const input = parseToolArguments(tool['rawArgs'] ?? tool['params']);
    const id = str(tool['toolCallId']);
    reply.toolCalls.push({ ...(id ? { id } : {}), name, input });
    const result = str(tool['result']);
    if (result) reply.toolResults.push({ ...(id ? { toolUseId: id } : {}), text: result, isError: tool['status'] === 'error' });
    const how = TOOL_TOUCH[name];
    const file = how ? pathArgument(input) : undefined;
    if (how && file) reply.touched = [{ path: file, how }];
  }
  return reply;
}

function pathArgument(input: unknown): string | undefined {
  const args = obj(input);
  for (const key of PATH_KEYS) if (str(args?.[key])) return str(args![key]);
  return undefined;
}

/** The files a prompt attached (`context.fileSelections[{uri: {fsPath}}]`). */
function fileSelections(v: unknown): string[] {
  return arr(v)
    .map((s) => obj(obj(s)?.['uri']))
    .map((u) => str(u?.['fsPath']) ?? str(u?.['path']))
    .filter((p): p is string => !!p);
}
