import type { AgentKind, ConversationMeta, DatePrecision, ExchangeSummary, FileTouch, LineRange, SavedCopy, TouchKind } from '../model';

/** What the store knows about one transcript file, for incremental indexing. */
export interface SourceState {
  readonly path: string;
  readonly agent: AgentKind;
  readonly size: number;
  readonly mtimeMs: number;
  /** sha256 of the first bytes: a different head means the file was replaced. */
  readonly headHash: string;
  /** sha256 of the bytes just before `parsedOffset`: a different anchor means the file was rewritten. */
  readonly anchorHash: string;
  /** Byte offset after the last complete line parsed. */
  readonly parsedOffset: number;
  readonly nextLine: number;
  /** Where the next parse starts: the start of the last (possibly still growing) exchange. */
  readonly resumeOffset: number;
  readonly resumeLine: number;
  /** Ply number of the first message at the resume point. */
  readonly resumePly: number;
  readonly resumeMeta?: ConversationMeta;
  /** An adapter that `skipsRepeatedIds`: the ids of the records before `resumeOffset`, which the next parse starts from. */
  readonly seenIds?: readonly string[];
  /** A partial last line is waiting for its writer to finish it. */
  readonly pendingPartial: boolean;
  readonly lastError?: string;
  /** A database read conversation by conversation (SourceAdapter.recordGroups): each one as last read, by its id. */
  readonly recordGroups?: RecordGroups;
  /**
   * A whole JSON or markdown document's hash, all its bytes (sourceRead.ts): read again at the same size and these
   * bytes (its time changed alone), it is not parsed; only its time is stored.
   */
  readonly fileHash?: string;
}

/**
 * One conversation of a database source as last read: what it looked like (its fingerprint) and the line and
 * byte numbers its records were given (half-open ranges, unique in the source), so its rows can be replaced
 * alone; `conversation` is the conversation row it made, when it was kept.
 */
export interface RecordGroup {
  readonly fingerprint: string;
  readonly lines: readonly [number, number];
  readonly bytes: readonly [number, number];
  readonly conversation?: string;
}

export type RecordGroups = Readonly<Record<string, RecordGroup>>;


/** An exchange as shown: verbatim text, provenance and the files it touched. */
export interface StoredExchange extends ExchangeSummary {
  readonly conversationId: string;
  readonly title?: string;
  readonly gitBranch?: string;
  readonly isSubagent: boolean;
  readonly part: number;
  readonly plyStart: number;
  readonly plyEnd: number;
  readonly endedAt?: string;
  readonly verbatim: string;
  readonly verbatimTokens?: number;
  readonly filesTouched: FileTouch[];
  /** Other sources holding the same exchange (the conversation saved twice): provenance, shown once. */
  readonly copies?: readonly SavedCopy[];
}

/**
 * An `exchanges e` row's place in its conversation, for ORDER BY: line, then byte (a one-line document such as
 * Cline's history holds all its exchanges on line 1), then part. Previous/Next, the in-order listing and a
 * conversation's first prompt all walk this order.
 */
export const CONVERSATION_ORDER = conversationOrder('e');

/** CONVERSATION_ORDER over the exchanges row aliased `alias` (a subquery's own). */
export function conversationOrder(alias: string): string {
  return `${alias}.line_start, ${alias}.byte_start, ${alias}.part`;
}

/**
 * A prompt a chat button writes to send the request before it again: Copilot's "@agent Try Again" (saved so by
 * SpecStory). The exchange answers that request once more; it asks nothing new.
 */
export const RETRY_PROMPT = '@agent Try Again';

/**
 * Whether an exchange asks something (its `asked` column): an empty prompt marks a continuation, the agent
 * carrying on after a tool loop or a resumed session, and a retry (RETRY_PROMPT) answers the request before it
 * again (search/continuation.ts).
 */
export function isAsked(prompt: string): boolean {
  const asked = prompt.trim();
  return asked !== '' && asked !== RETRY_PROMPT;
}

export interface ExchangeRow {
  n: number;
  id: string;
  agent: string;
  path: string;
  line_start: number;
  line_end: number;
  session_id: string;
  project: string | null;
  started_at: string | null;
  date_precision: string | null;
  prompt: string;
}

export interface FileTouchRow {
  path: string;
  how: string;
  lines: string | null;
}

export function toSummary(r: ExchangeRow): ExchangeSummary {
  return {
    exchangeId: r.id,
    agent: r.agent as AgentKind,
    file: r.path,
    lineStart: r.line_start,
    lineEnd: r.line_end,
    sessionId: r.session_id,
    ...(r.project !== null ? { project: r.project } : {}),
    ...(r.started_at !== null ? { startedAt: r.started_at, datePrecision: (r.date_precision ?? 'message') as DatePrecision } : {}),
    prompt: r.prompt,
  };
}

export function toFileTouch(r: FileTouchRow): FileTouch {
  const lines = r.lines ? (JSON.parse(r.lines) as LineRange[]) : undefined;
  return { path: r.path, how: r.how as TouchKind, ...(lines ? { lines } : {}) };
}
