import type { LineRange, TouchKind } from './model';
import { visible } from './visible';

/** How an exchange and its touched lines are written wherever they are listed (panel, trees, hovers, viewer). */

/**
 * The one-line title of an exchange wherever it is listed: the distilled core, else the prompt's first
 * line, cut to `max` characters (never inside a surrogate pair), its hidden characters shown (visible.ts).
 */
export function headline(e: { readonly core?: string | undefined; readonly prompt: string }, max = 200): string {
  const text = (e.core ?? e.prompt).trim().split(/\r?\n/)[0] || '(continuation of a long exchange)';
  if (text.length <= max) return visible(text);
  const cut = /[\uD800-\uDBFF]/.test(text[max - 2]!) ? max - 2 : max - 1;
  return `${visible(text.slice(0, cut))}…`;
}

/** Headlines in trees and hovers, which are narrower than the recall panel. */
export const NARROW_HEADLINE = 90;

/** "3, 12–18": touched line ranges as people write them. */
export function formatLineRanges(ranges: readonly LineRange[]): string {
  return ranges.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}–${r.end}`)).join(', ');
}

const TOUCHED: Record<TouchKind, string> = { edit: 'edited', write: 'wrote', read: 'read', mention: 'mentioned' };

/** "edited line 22", "edited lines 3, 12–18", "read": how an exchange touched a file, in words. */
export function touchedPhrase(how: TouchKind, ranges: readonly LineRange[] | undefined): string {
  if (!ranges?.length) return TOUCHED[how];
  const one = ranges.length === 1 && ranges[0]!.start === ranges[0]!.end;
  return `${TOUCHED[how]} ${one ? 'line' : 'lines'} ${formatLineRanges(ranges)}`;
}

