/**
 * JSON text of untrusted parsed input (a transcript's tool input). JSON.parse takes any nesting, but
 * JSON.stringify and Array.join recurse: an input nested a few thousand levels deep overflowed the stack and
 * cost its whole transcript. Input within bounds is stringified as usual; deeper input is cut at
 * MAX_DEPTH levels, the deeper parts replaced by a marker.
 */
export const MAX_DEPTH = 64;
export const TOO_DEEP = '[nested too deep]';

export function boundedJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return JSON.stringify(cut(value, MAX_DEPTH));
  }
}

/** Runs `fn` on the input; if it overflows the stack, runs it again on the input cut to MAX_DEPTH levels. */
export function withBoundedDepth<T>(value: unknown, fn: (v: unknown) => T): T {
  try {
    return fn(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return fn(cut(value, MAX_DEPTH));
  }
}

function cut(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth === 0) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => cut(v, depth - 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cut(v, depth - 1)]));
}
