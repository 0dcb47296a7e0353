import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { Message } from '../model';
import { arr, jsonOrUndefined, obj, type ParseInput, type ParseOutput, parseJsonDocument, SkipCounter, type SourceAdapter, str } from './adapter';
import { arraySpans } from './jsonSpans';
import { contentText, humanText, isAcknowledgement, kiroWorkspaceHash } from './kiroIde';
import { isKiroIdeChat } from './kiroPaths';
import { readSideFile } from './lines';
import { isoFromAny, type RecordSpan, spanMessage } from './message';

/**
 * The Kiro IDE's older chats: `kiro.kiroagent/<sha256(workspace path)[:32]>/<hash>.chat`, one JSON document
 * `{executionId, actionId, chat[{role: human | bot | tool, content}], metadata{modelId, workflow, startTime, endTime}}`
 * (times epoch ms; read from AV's parser only). Project: the workspace whose hash names the folder (one of the
 * workspace's folders, or one named in a `workspace-sessions/*\/sessions.json`). Dated by `metadata.startTime`.
 */

export const kiroIdeChatAdapter: SourceAdapter = {
  agent: 'kiro',
  lineFormat: 'json',
  recordsPath: ['chat'],
  matchesPath: isKiroIdeChat,
  claimsPath: isKiroIdeChat,
  sniff: () => false,
  probeProject: () => undefined,
  locateProject,
  parse,
};

async function locateProject(file: string, _head: unknown, workspaceRoots: readonly string[]): Promise<string | undefined> {
  const hash = path.basename(path.dirname(file));
  const own = workspaceRoots.find((r) => kiroWorkspaceHash(r) === hash);
  if (own) return own;
  const sessions = path.join(path.dirname(path.dirname(file)), 'workspace-sessions');
  for (const folder of await readdir(sessions).catch(() => [] as string[])) {
    const index = arr(jsonOrUndefined(await readSideFile(path.join(sessions, folder, 'sessions.json')).catch(() => undefined)));
    for (const entry of index.map(obj)) {
      const workspace = str(entry?.['workspaceDirectory']);
      if (workspace && kiroWorkspaceHash(workspace) === hash) return workspace;
    }
  }
  return undefined;
}

function parse(input: ParseInput): ParseOutput {
  const doc = parseJsonDocument(input.file, input.lines);
  const chat = arr(doc['chat']);
  const spans = arraySpans(input.lines, ['chat']);
  const whole: RecordSpan = { line: input.lines[0]?.line ?? 1, lineEnd: input.lines[input.lines.length - 1]?.line ?? 1, offset: 0 };
  const skips = new SkipCounter();
  const sessionId = str(doc['executionId']) ?? path.basename(input.file, '.chat');
  const metadata = obj(doc['metadata']);
  const messages: Message[] = [];
  for (const [i, raw] of chat.entries()) {
    const m = obj(raw);
    const span = spans[i] ?? whole;
    const text = contentText(m?.['content']);
    const at = { uuid: `${sessionId}#${i}` };
    if (!text) continue;
    if (m?.['role'] === 'human') {
      const human = humanText(text);
      messages.push('prompt' in human ? spanMessage('prompt', span, human.prompt, at) : spanMessage('context', span, human.context, at));
    } else if (m?.['role'] === 'bot') {
      if (!isAcknowledgement(text)) messages.push(spanMessage('reply', span, text, at));
    } else if (m?.['role'] === 'tool') {
      messages.push(spanMessage('context', span, text, at));
    } else skips.add('unknown-record', span.line);
  }
  if (messages.length === 0) return { conversations: [], skipped: skips.lines };
  const startedAt = isoFromAny(metadata?.['startTime']);
  const model = str(metadata?.['modelId']);
  const meta = { agent: 'kiro' as const, sessionId, line: 1, isSubagent: false, ...(startedAt ? { startedAt } : {}), ...(model ? { model } : {}) };
  return { conversations: [{ sourceFile: input.file, meta, messages }], skipped: skips.lines };
}
