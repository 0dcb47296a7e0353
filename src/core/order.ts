/**
 * Text in code-unit order (JavaScript's `<`): the same on every machine, unlike localeCompare, and for text
 * without characters beyond U+FFFF the order of SQLite's BINARY collation, so a list sorted here agrees with one
 * the store sorted. For ties in sort comparators: `b.score - a.score || compareText(a.label, b.label)`.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
