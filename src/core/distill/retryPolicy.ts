/**
 * When and how long to wait before asking an LLM service again. The server's word wins: `retry-after-ms`
 * (Anthropic), then `retry-after` in seconds or as an HTTP date; otherwise exponential backoff with jitter.
 */

/** Statuses worth retrying: timeouts, lock conflicts, rate limits, server errors (529 = overloaded). */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Statuses that will fail every request the same way: stop sending instead of burning the batch. */
export function isFatalStatus(status: number | undefined): boolean {
  return status === 401 || status === 403 || status === 404;
}

interface HeaderLookup {
  get(name: string): string | null;
}

/** The wait the server asked for, in ms, or undefined when it named none (or an unusable one). */
export function retryAfterMs(headers: HeaderLookup | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const v = Number.parseFloat(ms);
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const after = headers?.get('retry-after');
  if (after) {
    const secs = Number(after.trim());
    if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

/** 0.5 s, 1 s, 2 s, … capped at 8 s, minus up to 25 % jitter so parallel workers do not retry in step. */
export function backoffMs(attempt: number, random = Math.random): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - random() * 0.25);
}
