import { type LineRole, lineLabel } from '../render';

/**
 * Reads the verbatim rendering (core/render.ts) back into its parts, so the offline distiller can tell the
 * human's words and the assistant's statements from tool traffic. A line starting with a rendering tag
 * opens a new part; other lines continue the current one. Text stays verbatim except that truncation
 * marks become a space, so anything found in a part is found in the verbatim (or is checked against it).
 */
export type PartKind = LineRole | 'other';

export interface VerbatimPart {
  readonly kind: PartKind;
  readonly text: string;
  /**
   * An assistant part that is the plan of Claude Code's `ExitPlanMode` call, read out of the call (exitPlan.ts).
   * Always set: parts of one shape, so code compiled for the parts is not thrown away at the first plan.
   */
  readonly plan: boolean;
}

/** render.ts cuts long tool output as `…text… [N more chars]`: the cut word is not a word of the exchange. */
const CUT_MARK_RE = /… \[\d+ more chars\]/g;

/** Replaces each cut mark and the cut word before it by a space (found from the mark back: linear). */
function dropCutMarks(text: string): string {
  if (!text.includes(' more chars]')) return text;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(CUT_MARK_RE)) {
    let start = m.index;
    while (start > last && !/\s/.test(text[start - 1]!)) start--;
    out += `${text.slice(last, start)} `;
    last = m.index + m[0].length;
  }
  return out + text.slice(last);
}

export function splitVerbatim(verbatim: string): VerbatimPart[] {
  const parts: Array<{ kind: PartKind; lines: string[] }> = [];
  for (const line of verbatim.split('\n')) {
    const label = lineLabel(line);
    if (label) parts.push({ kind: label.role, lines: [line.slice(label.length).trimStart()] });
    else if (parts.length > 0) parts[parts.length - 1]!.lines.push(line);
    else parts.push({ kind: 'other', lines: [line] });
  }
  // (pushed into a literal, not mapped and filtered: the callers' lists then have one map, whichever path of map
  // made them, and code compiled for them is not thrown away at another)
  const out: VerbatimPart[] = [];
  for (const p of parts) {
    const text = dropCutMarks(p.lines.join('\n')).trim();
    if (text.length > 0) out.push({ kind: p.kind, text, plan: false });
  }
  return out;
}
