import type { SkippedLine } from '../model';
import { obj, parseJsonLine, SkipCounter } from './adapter';
import { MAX_LINE_BYTES, type SourceLine } from './lines';
import type { RecordSpan } from './message';

/**
 * VS Code's chat session `.jsonl` is not a transcript but an object mutation log
 * (microsoft/vscode `chat/common/model/objectMutationLog.ts`): `{kind: 0, v}` is the whole state, `{kind: 1,
 * k, v}` sets the value at key path `k`, `{kind: 2, k, v, i?}` truncates the array at `k` to length `i` (when
 * given) and appends the items of `v`, `{kind: 3, k}` deletes. After ~512 entries VS Code rewrites the file
 * as one `kind 0`. Replaying it gives the session object; alongside, the lines that wrote each request are
 * tracked so an exchange can be opened at them.
 */
export interface ReplayedSession {
  readonly state: Record<string, unknown> | undefined;
  /** One span per element of `state.requests`, in order. */
  readonly requestSpans: RecordSpan[];
  /** The lines the replay skipped, and why (they stay skipped when it is continued). */
  readonly skipped: readonly SkippedLine[];
}

type Key = string | number;

/** The longest log line read: a whole-state line is the whole session (VS Code compacts the log into it), so up to the reader's bound. */
export const LOG_LINE_CHARS = MAX_LINE_BYTES;

/**
 * Replays the lines onto `from` (the replay of the lines before them, which it takes over and changes) or
 * onto nothing: a log that only grew continues from where its last replay ended.
 */
export function replayMutationLog(lines: readonly SourceLine[], from?: ReplayedSession): ReplayedSession {
  const skips = new SkipCounter();
  let state = from?.state;
  let spans: Array<{ line: number; lineEnd: number; offset: number }> = from ? [...from.requestSpans] : [];
  for (const line of lines) {
    const entry = parseJsonLine(line, skips, LOG_LINE_CHARS);
    if (!entry) continue;
    const kind = entry['kind'];
    const k = Array.isArray(entry['k']) ? (entry['k'] as unknown[]).filter(isKey) : undefined;
    if (kind === 0) {
      state = obj(entry['v']) ?? {};
      const n = Array.isArray(state['requests']) ? state['requests'].length : 0;
      spans = Array.from({ length: n }, () => ({ line: line.line, lineEnd: line.line, offset: line.offset }));
      continue;
    }
    if (!state || !k || k.length === 0 || (kind !== 1 && kind !== 2 && kind !== 3)) {
      skips.add('unknown-record', line.line);
      continue;
    }
    if (!apply(state, kind, k, entry['v'], entry['i'])) {
      skips.add('unknown-record', line.line);
      continue;
    }
    if (k[0] !== 'requests') continue;
    // the lines of a request: where it was appended, widened by every later entry that changes it
    if (k.length === 1) {
      const n = Array.isArray(state['requests']) ? state['requests'].length : 0;
      if (kind !== 2) spans = [];
      else if (typeof entry['i'] === 'number') spans = spans.slice(0, entry['i']);
      spans = spans.slice(0, n);
      while (spans.length < n) spans.push({ line: line.line, lineEnd: line.line, offset: line.offset });
    } else if (typeof k[1] === 'number' && spans[k[1]]) {
      if (kind === 3 && k.length === 2) spans.splice(k[1], 1);
      else spans[k[1]]!.lineEnd = line.line;
    }
  }
  return { state, requestSpans: spans, skipped: [...(from?.skipped ?? []), ...skips.lines] };
}

function isKey(v: unknown): v is Key {
  return typeof v === 'string' || typeof v === 'number';
}

/** Applies one entry; false when its path does not exist in the state (the entry is skipped, counted). */
function apply(state: Record<string, unknown>, kind: 1 | 2 | 3, k: readonly Key[], v: unknown, i: unknown): boolean {
  let parent: unknown = state;
  for (const key of k.slice(0, -1)) {
    parent = (parent as Record<Key, unknown> | undefined)?.[key];
    if (typeof parent !== 'object' || parent === null) return false;
  }
  const container = parent as Record<Key, unknown>;
  const last = k[k.length - 1]!;
  if (kind === 1) {
    container[last] = v;
    return true;
  }
  if (kind === 3) {
    if (Array.isArray(container) && typeof last === 'number') container.splice(last, 1);
    else delete container[last];
    return true;
  }
  const target = container[last] ?? (container[last] = []);
  if (!Array.isArray(target)) return false;
  if (typeof i === 'number' && i >= 0) target.length = Math.min(target.length, i);
  if (Array.isArray(v)) target.push(...(v as unknown[]));
  else if (v !== undefined) target.push(v);
  return true;
}
