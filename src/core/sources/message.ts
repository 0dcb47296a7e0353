import type { LineRange, Message, MessageKind } from '../model';
import type { SourceLine } from './lines';

/** A new message starting (and, until widened, ending) at `first`; role follows from the kind. */
export function newMessage(kind: MessageKind, first: SourceLine, text: string, timestamp?: string): Message {
  return spanMessage(kind, { line: first.line, lineEnd: first.line, offset: first.offset }, text, { timestamp });
}

/** Appends a paragraph to a message being built (several source items make one message). */
export function appendText(m: Message, text: string): void {
  if (!text) return;
  m.text = m.text ? `${m.text}\n\n${text}` : text;
}

/** Replies with neither text nor tool calls (only reasoning) have nothing to show or search. */
export function hasContent(m: Message): boolean {
  return m.text.trim() !== '' || m.toolCalls.length > 0 || m.toolResults.length > 0;
}

/**
 * `2025-10-06` + `06:26` or `06:26:11` as ISO 8601. Markdown exports write minute- or second-precision
 * times; `zone` 'utc' marks them UTC (SpecStory writes `Z`), 'local' keeps the writer's local time as
 * recorded (Aider writes no zone, so none is invented).
 */
export function isoTime(date: string, time: string, zone: 'utc' | 'local'): string | undefined {
  const hms = time.length === 5 ? `${time}:00` : time;
  const local = `${date}T${hms}`;
  if (Number.isNaN(Date.parse(`${local}Z`))) return undefined;
  return zone === 'utc' ? `${local}.000Z` : local;
}

/** Where a message's records lie in its source: lines (inclusive) and the first record's byte offset. */
export interface RecordSpan {
  readonly line: number;
  readonly lineEnd: number;
  readonly offset: number;
}

/**
 * A message made from records located by span rather than by one line (JSON documents, replayed logs).
 * `uuid` is the agent's own id for it, which makes the exchange id independent of the file: the same
 * conversation saved in two places is one memory.
 */
export function spanMessage(
  kind: MessageKind,
  span: RecordSpan,
  text: string,
  extra: { timestamp?: string | undefined; uuid?: string | undefined } = {},
): Message {
  return {
    kind,
    role: kind === 'reply' ? 'assistant' : 'user',
    text,
    toolCalls: [],
    toolResults: [],
    line: span.line,
    lineEnd: span.lineEnd,
    offset: span.offset,
    ...(extra.timestamp !== undefined ? { timestamp: extra.timestamp } : {}),
    ...(extra.uuid !== undefined ? { uuid: extra.uuid } : {}),
  };
}

/** Epoch milliseconds (Copilot, Cline, Continue) as ISO 8601; anything else as given when it is a date. */
export function isoFromAny(v: unknown): string | undefined {
  if (typeof v === 'number' && v > 0 && v < 8.64e15) return new Date(v).toISOString();
  if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return v;
  return undefined;
}

/** Unix seconds (Goose, Crush, Kiro CLI prompts) as ISO 8601; a value past 1e11 is taken for milliseconds (a writer that used them). */
export function isoFromUnixSeconds(v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return undefined;
  const ms = v > 1e11 ? v : v * 1000;
  return ms < 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/** A tool call's `arguments` as the JSON string it usually is; invalid JSON is kept as text, so a model that
 *  wrote a broken call still gets it recorded. */
export function parseToolArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** The lines a read tool names by an `offset` counted from 0 and a `limit` (Crush's `view`, Droid's `Read`, Goose's `read`). */
export function linesFromZeroOffset(offset: number | undefined, limit: number | undefined): LineRange[] | undefined {
  return limit !== undefined && limit > 0 ? [{ start: (offset ?? 0) + 1, end: (offset ?? 0) + limit }] : undefined;
}
