import { extractFiles } from './files';
import { stableId } from './ids';
import type { Conversation, ConversationMeta, Exchange, Message } from './model';
import { renderVerbatim } from './render';

/**
 * Plies -> exchanges (paper 3.1). A new exchange starts when a real human prompt (not one taken into the running turn:
 * model.ts `taken`; or a message that opens one: `opens`) follows an assistant reply with substantive text; tool round-trips never split one. Exchanges under `minChars` of rendered
 * text are dropped (counted), and exchanges over `maxPlies` assistant replies are split at fixed intervals.
 */
export interface SegmentOptions {
  readonly minChars: number;
  readonly maxPlies: number;
  /** Root that files_touched paths are made relative to (defaults to the conversation's cwd). */
  readonly workspaceRoot?: string;
}

export const DEFAULT_SEGMENT_OPTIONS: SegmentOptions = { minChars: 100, maxPlies: 20 };

/** An exchange that was too short to keep: recorded so every human prompt is accounted for. */
export interface DroppedExchange {
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly byteStart: number;
  readonly promptLines: readonly number[];
}

export interface SegmentResult {
  readonly exchanges: Exchange[];
  readonly dropped: DroppedExchange[];
  /**
   * Where the conversation's last segment (kept or dropped) starts: an appended file resumes here, or, when it is the
   * first segment (`first`), where this parse started (the lines before its first message may set what the message is:
   * a compaction's boundary before its summary).
   */
  readonly lastSegmentStart?: { readonly offset: number; readonly line: number; readonly ply: number; readonly first: boolean };
}

export function conversationKey(conv: Conversation): string {
  return stableId(conv.meta.agent, conv.sourceFile, conv.meta.sessionId, conv.meta.line);
}

/**
 * `firstPly` is the ply number of the conversation's first message here: non-zero when an appended file
 * is re-parsed from its last exchange, so ply ranges match a whole-file parse.
 */
export function segmentConversation(conv: Conversation, options: SegmentOptions, firstPly = 0): SegmentResult {
  const key = conversationKey(conv);
  const exchanges: Exchange[] = [];
  const dropped: DroppedExchange[] = [];
  let plyBase = firstPly;
  let lastGroupPly = firstPly;
  const groups = groupExchanges(conv.messages);
  for (const group of groups) {
    lastGroupPly = plyBase;
    const pieces = splitByPlies(group, options.maxPlies);
    pieces.forEach((piece, part) => {
      const plies = piece.filter((m) => m.kind === 'reply').length;
      const verbatim = renderVerbatim(piece);
      const first = piece[0]!;
      const last = piece[piece.length - 1]!;
      if (verbatim.length < options.minChars) {
        dropped.push({
          lineStart: first.line,
          lineEnd: last.lineEnd,
          byteStart: first.offset,
          promptLines: piece.filter((m) => m.kind === 'prompt').map((m) => m.line),
        });
      } else {
        exchanges.push(buildExchange(conv, key, piece, part, plyBase, plies, verbatim, options));
      }
      plyBase += plies;
    });
  }
  const lastGroup = groups[groups.length - 1];
  return {
    exchanges,
    dropped,
    ...(lastGroup ? { lastSegmentStart: { offset: lastGroup[0]!.offset, line: lastGroup[0]!.line, ply: lastGroupPly, first: groups.length === 1 } } : {}),
  };
}

/** Groups messages into exchanges by the substantive-reply boundary rule. */
function groupExchanges(messages: readonly Message[]): Message[][] {
  const groups: Message[][] = [];
  let current: Message[] | undefined;
  let answered = false;
  for (const m of messages) {
    if (((m.kind === 'prompt' && m.taken === undefined) || m.opens !== undefined) && current && answered) current = undefined;
    if (!current) {
      current = [];
      groups.push(current);
      answered = false;
    }
    current.push(m);
    if (m.kind === 'reply' && m.text.trim().length > 0) answered = true;
  }
  return groups;
}

/** Splits before every (k * maxPlies + 1)-th reply, so each piece ends after a complete tool round-trip. */
function splitByPlies(group: Message[], maxPlies: number): Message[][] {
  const pieces: Message[][] = [[]];
  let replies = 0;
  for (const m of group) {
    if (m.kind === 'reply') {
      if (replies > 0 && replies % maxPlies === 0) pieces.push([]);
      replies++;
    }
    pieces[pieces.length - 1]!.push(m);
  }
  return pieces.filter((p) => p.length > 0);
}

/**
 * The exchange's own message times when it has any; else its conversation's start, marked approximate
 * (SpecStory, Aider and legacy Codex record times per heading or session, not per message).
 */
function exchangeDates(
  timestamps: readonly string[],
  meta: ConversationMeta,
): Pick<Exchange, 'startedAt' | 'endedAt' | 'datePrecision'> {
  if (timestamps.length) return { startedAt: timestamps[0]!, endedAt: timestamps[timestamps.length - 1]!, datePrecision: 'message' };
  if (meta.startedAt) return { startedAt: meta.startedAt, datePrecision: meta.startedAtPrecision ?? 'session' };
  return {};
}

function buildExchange(
  conv: Conversation,
  key: string,
  piece: Message[],
  part: number,
  plyBase: number,
  plies: number,
  verbatim: string,
  options: SegmentOptions,
): Exchange {
  const first = piece[0]!;
  // Agents with message uuids (Claude Code) get ids from them, so a `--resume` replay of the same
  // messages in another file maps to the same exchange; others are identified by file and line.
  const id = first.uuid
    ? stableId(conv.meta.agent, first.uuid, part)
    : stableId(conv.meta.agent, conv.sourceFile, first.line, part);
  const timestamps = piece.map((m) => m.timestamp).filter((t): t is string => !!t);
  const cwd = conv.meta.project;
  return {
    id,
    conversationKey: key,
    agent: conv.meta.agent,
    sourceFile: conv.sourceFile,
    sessionId: conv.meta.sessionId,
    ...(cwd !== undefined ? { project: cwd } : {}),
    part,
    plyStart: plyBase,
    plyEnd: plyBase + Math.max(plies, 1) - 1,
    lineStart: first.line,
    lineEnd: Math.max(...piece.map((m) => m.lineEnd)),
    byteStart: first.offset,
    ...exchangeDates(timestamps, conv.meta),
    prompt: [
      // a background task's report that opens the exchange names it (model.ts `opens`); one inside an exchange does not
      ...(first.opens !== undefined ? [first.opens] : []),
      ...piece.filter((m) => m.kind === 'prompt').map((m) => m.text.trim()),
    ].join('\n\n'),
    verbatim,
    messages: piece,
    // one shape of context whichever is known (an absent field reads as undefined all the same): contexts of three
    // shapes sent extractFiles back to V8's compiler at its first line
    filesTouched: extractFiles(piece, { cwd, workspaceRoot: options.workspaceRoot }),
  };
}
