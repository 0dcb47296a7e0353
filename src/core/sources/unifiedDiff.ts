import type { LineRange } from '../model';

/** `@@ -12,4 +12,6 @@`: the new file's start line and line count (1 when the count is left out). */
const HUNK_RE = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm;

/**
 * The new-file lines each hunk of a unified diff covers, 1-based inclusive: what an agent's edit result says it
 * changed (Qwen Code's `fileDiff`, Amp's edit `diff`). A pure deletion (count 0) still marks the line where the
 * removed text was, as Claude Code's `structuredPatch` is read. Text without hunk headers gives none.
 */
export function diffHunkRanges(diff: string): LineRange[] {
  if (!diff.includes('@@ -')) return [];
  const ranges: LineRange[] = [];
  for (const m of diff.matchAll(HUNK_RE)) {
    const start = Math.max(1, Number(m[1]));
    const count = m[2] === undefined ? 1 : Number(m[2]);
    ranges.push({ start, end: start + Math.max(count, 1) - 1 });
  }
  return ranges;
}
