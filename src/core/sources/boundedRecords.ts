/** How much of one string of a database record is kept (adapters keep at most 20,000 characters of a tool's output). */
export const MAX_RECORD_STRING = 20_000;

/**
 * A JSON value with every string over `max` characters cut to its first `max` and a marker: a database row (a
 * Zed thread, a Kiro conversation) holds whole file contents and tool outputs, and its records become lines.
 */
export function cutLongStrings(value: unknown, max = MAX_RECORD_STRING): unknown {
  if (typeof value === 'string') return value.length > max ? `${value.slice(0, max)}[${value.length - max} more characters not read]` : value;
  if (Array.isArray(value)) return value.map((v) => cutLongStrings(v, max));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = cutLongStrings(v, max);
    return out;
  }
  return value;
}
