import type { RecordedTouch, TouchKind } from '../model';
import { arr, jsonOrUndefined, num, obj, str } from './adapter';

/**
 * Files touched from what Cline and Roo Code keep beside a task's message history: `ui_messages.json` (every
 * tool the extension ran is a `say`/`ask` "tool" message whose text is JSON `{tool, path, ...}`) and
 * `task_metadata.json` (`files_in_context[{path, record_source, cline_read_date, cline_edit_date, ...}]`;
 * Roo writes `roo_` dates). Older Cline wrote tool calls as XML inside the reply text, so these records are
 * the only place the history says a file was read or edited. Each touch is placed on the history record
 * it happened during: a UI message names it (`conversationHistoryIndex`: the history's last index when the
 * message was shown, so the reply being made is the next record), else times place it (history records'
 * `ts`, else the UI messages' times and indexes).
 */

export const UI_MESSAGES = 'ui_messages.json';
export const TASK_METADATA = 'task_metadata.json';

/** The `tool` values of a UI tool message that act on one file, and how. */
const UI_TOOLS: Record<string, TouchKind> = {
  readFile: 'read',
  editedExistingFile: 'edit',
  appliedDiff: 'edit',
  insertContent: 'edit',
  searchAndReplace: 'edit',
  newFileCreated: 'write',
};

/** A UI message's place: its time and the history index it names. */
interface UiPoint {
  readonly ts?: number;
  readonly record?: number;
}

/** The touches of each history record (by index), from the side files that are present and parse. */
export function sideTouches(side: ReadonlyMap<string, string> | undefined, records: readonly unknown[]): Map<number, RecordedTouch[]> {
  const byRecord = new Map<number, RecordedTouch[]>();
  if (!side || records.length === 0) return byRecord;
  const last = records.length - 1;
  const add = (i: number | undefined, touch: RecordedTouch): void => {
    if (i === undefined) return;
    const list = byRecord.get(i) ?? byRecord.set(i, []).get(i)!;
    list.push(touch);
  };
  const recordTimes = records.map((r) => num(obj(r)?.['ts']));
  const ui = arr(jsonOrUndefined(side.get(UI_MESSAGES))).map(obj).filter((m) => m !== undefined);
  const points: UiPoint[] = ui.map((m) => {
    const k = num(m['conversationHistoryIndex']);
    const ts = num(m['ts']);
    return { ...(ts !== undefined ? { ts } : {}), ...(k !== undefined ? { record: Math.min(Math.max(k + 1, 0), last) } : {}) };
  });
  const placed = (ts: number | undefined): number | undefined => recordAtTime(ts, recordTimes, points, last);

  for (const [i, m] of ui.entries()) {
    if (m['partial'] === true || (m['say'] !== 'tool' && m['ask'] !== 'tool')) continue;
    const tool = obj(jsonOrUndefined(str(m['text'])));
    const how = UI_TOOLS[str(tool?.['tool']) ?? ''];
    const file = str(tool?.['path']);
    if (how && file) add(points[i]!.record ?? placed(points[i]!.ts), { path: file, how });
  }

  const meta = obj(jsonOrUndefined(side.get(TASK_METADATA)));
  for (const entry of arr(meta?.['files_in_context']).map(obj)) {
    const file = str(entry?.['path']);
    const source = str(entry?.['record_source']) ?? '';
    if (!entry || !file) continue;
    // a file the human edited is not something the agent did
    if (source === 'user_edited') continue;
    const how: TouchKind = source.endsWith('_edited') ? 'edit' : source === 'read_tool' ? 'read' : 'mention';
    const date = dateOf(entry, how === 'edit' ? '_edit_date' : '_read_date');
    if (date !== undefined) add(placed(date), { path: file, how });
  }
  return byRecord;
}

/**
 * The history record an event at `ts` belongs to: the first record stamped at or after it (a record is
 * written when its turn ends), else the record named by the last UI message shown at or before it.
 */
function recordAtTime(ts: number | undefined, recordTimes: readonly (number | undefined)[], points: readonly UiPoint[], last: number): number | undefined {
  if (ts === undefined) return undefined;
  if (recordTimes.some((t) => t !== undefined)) {
    const i = recordTimes.findIndex((t) => t !== undefined && t >= ts);
    return i >= 0 ? i : last;
  }
  let found: number | undefined;
  for (const p of points) if (p.ts !== undefined && p.ts <= ts && p.record !== undefined) found = p.record;
  return found;
}

/** The agent's date for this kind of event (`cline_read_date`, `roo_edit_date`, ...). */
function dateOf(entry: Record<string, unknown>, suffix: string): number | undefined {
  for (const [key, value] of Object.entries(entry)) if (key.endsWith(suffix) && key !== `user${suffix}` && num(value) !== undefined) return num(value);
  return undefined;
}
