import type { LineRange } from './model';

/** How an exchange and its touched lines are written wherever they are listed (panel, trees, hovers, viewer). */

/**
 * The one-line title of an exchange wherever it is listed: the distilled core, else the prompt's first
 * line, cut to `max` characters.
 */
export function headline(e: { readonly core?: string | undefined; readonly prompt: string }, max = 200): string {
  const text = (e.core ?? e.prompt).trim().split('\n')[0] || '(continuation of a long exchange)';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Headlines in trees and hovers, which are narrower than the recall panel. */
export const NARROW_HEADLINE = 90;

/** "3, 12–18": touched line ranges as people write them. */
export function formatLineRanges(ranges: readonly LineRange[]): string {
  return ranges.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}–${r.end}`)).join(', ');
}

