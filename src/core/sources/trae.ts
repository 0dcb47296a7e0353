import * as path from 'node:path';
import type { Conversation, Message } from '../model';
import { num, obj, type ParseInput, type ParseOutput, type SourceAdapter, str } from './adapter';
import { workspaceFolderOf } from './copilot';
import { type GroupSpan, parseRecordGroups } from './groupedRecords';
import { recordLines } from './lines';
import { appendText, spanMessage } from './message';
import { holdsTraeSessions, isTraeGlobalDb, isWorkspaceStateDb, readTraeGroups, traeFingerprints } from './traeDb';

/**
 * Trae's chats (traeDb.ts reads them): a `{session}` record starts a conversation, a `{message}` record per element of
 * its `messages` follows. A message is `{role: user | assistant, content, agentTaskContent, timestamp, model}`; an
 * assistant message whose `content` is empty says what it did in `agentTaskContent` (a string, or an object with
 * `content`, `text`, `proposal` or a plan's `guideline.planItems[].content`). No tool calls are recorded. Times are
 * epoch seconds or milliseconds, or ISO strings. Project: a workspace database's `workspace.json` (discovery reads
 * it); the global database's sessions name none, so they are read only where no workspace narrows the run.
 * "Lines" are positions in the session (1 is the session record); "open raw" shows the session's records.
 */

type JsonRecord = Record<string, unknown>;

const groups = { fingerprints: traeFingerprints, read: readTraeGroups };
const readRecords = async (file: string): Promise<ReturnType<typeof recordLines>> => recordLines((await readTraeGroups(file)).flatMap((g) => g.records));

/** A workspace's storage database: its sessions are that workspace's. */
export const traeAdapter: SourceAdapter = {
  agent: 'trae',
  lineFormat: 'sqlite',
  readRecords,
  recordGroups: groups,
  matchesPath: isWorkspaceStateDb,
  claimsPath: isWorkspaceStateDb,
  holdsSessions: holdsTraeSessions,
  sniff: () => false,
  probeProject: () => undefined,
  locateProject: (file, _head, roots) => workspaceFolderOf(path.dirname(file), roots),
  parse,
};

/** Trae's global storage database (found by Trae's user-data folder names). */
export const traeGlobalAdapter: SourceAdapter = {
  agent: 'trae',
  lineFormat: 'sqlite',
  holdsManyProjects: true,
  readRecords,
  recordGroups: groups,
  matchesPath: isTraeGlobalDb,
  claimsPath: isTraeGlobalDb,
  sniff: () => false,
  probeProject: () => undefined,
  parse,
};

function parse(input: ParseInput): ParseOutput {
  return parseRecordGroups(input, {
    header: 'session',
    open: (header) => ({ conversation: startConversation(input.file, header) }),
    item: (rec, { conversation }, span) => {
      const message = obj(rec['message']);
      if (!message) return 'message' in rec ? 'not-an-object' : 'unknown-record';
      const made = traeMessage(message, conversation.meta.sessionId, span);
      // a session that names no model: the first its messages name
      const model = str(message['model']);
      if (model && conversation.meta.model === undefined) conversation.meta = { ...conversation.meta, model };
      return made === 'unknown' ? 'unknown-record' : [made];
    },
  });
}

function startConversation(file: string, header: JsonRecord): Conversation {
  const startedAt = traeTime(header['createdAt']) ?? traeTime(header['updatedAt']);
  const model = str(header['model']);
  return {
    sourceFile: file,
    meta: {
      agent: 'trae',
      sessionId: str(header['id']) ?? '',
      line: 1,
      isSubagent: false,
      ...(startedAt ? { startedAt } : {}),
      ...(model ? { model } : {}),
    },
    messages: [],
  };
}

function traeMessage(message: JsonRecord, sessionId: string, span: GroupSpan): Message | 'unknown' {
  const role = str(message['role'])?.trim().toLowerCase();
  // the session and the message's place in it: the same session in the workspace's and the global database is one memory
  const extra = { timestamp: traeTime(message['timestamp']), uuid: `${sessionId}#${span.line - 1}` };
  const content = (str(message['content']) ?? '').trim();
  if (role === 'user') return spanMessage('prompt', span, content, extra);
  if (role !== 'assistant') return 'unknown';
  const reply = spanMessage('reply', span, '', extra);
  appendText(reply, content || taskContentText(message['agentTaskContent']).trim());
  return reply;
}

/** What an assistant message whose `content` is empty did, from its `agentTaskContent`. */
function taskContentText(v: unknown): string {
  if (typeof v === 'string') return v;
  const task = obj(v);
  if (!task) return '';
  for (const key of ['content', 'text', 'proposal']) {
    const text = str(task[key]);
    if (text?.trim()) return text;
  }
  const items = obj(task['guideline'])?.['planItems'];
  return Array.isArray(items) ? items.map((i) => str(obj(i)?.['content']) ?? '').filter(Boolean).join('\n') : '';
}

/** Epoch seconds (under 1e11) or milliseconds, or an ISO time, as ISO 8601. */
export function traeTime(v: unknown): string | undefined {
  const n = num(v);
  if (n !== undefined && n > 0) return new Date(n < 1e11 ? n * 1000 : n).toISOString();
  const s = str(v);
  return s && !Number.isNaN(Date.parse(s)) ? s : undefined;
}
