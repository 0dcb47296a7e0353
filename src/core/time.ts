import type { DatePrecision } from './model';
/** "3 days ago", "in 2 hours", "just now": a relative date for lists, from an ISO timestamp. */
export function relativeDate(iso: string | undefined, now = Date.now()): string {
  if (!iso) return 'unknown date';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return 'unknown date';
  const secs = Math.round((now - t) / 1000);
  const abs = Math.abs(secs);
  const units: Array<[number, string]> = [
    [365 * 86400, 'year'],
    [30 * 86400, 'month'],
    [7 * 86400, 'week'],
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      const label = `${n} ${name}${n === 1 ? '' : 's'}`;
      return secs >= 0 ? `${label} ago` : `in ${label}`;
    }
  }
  return 'just now';
}

/** A calendar date (YYYY-MM-DD, UTC) for tooltips. */
/** Why a date is approximate, for the reader ('' when it is the exchange's own time). */
export function approximateDate(precision: DatePrecision | undefined): string {
  return precision === 'session' ? 'approximate: when its session started' : precision === 'file-name' ? 'approximate: from the file name' : '';
}

export function shortDate(iso: string | undefined): string {
  return iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso).toISOString().slice(0, 10) : 'unknown date';
}
