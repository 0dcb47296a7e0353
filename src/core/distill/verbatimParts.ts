/**
 * Reads the verbatim rendering (core/render.ts) back into its parts, so the offline distiller can tell the
 * human's words and the assistant's statements from tool traffic. A line starting with a rendering tag
 * opens a new part; other lines continue the current one.
 */
export type PartKind = 'user' | 'assistant' | 'tool' | 'result' | 'error' | 'context' | 'other';

export interface VerbatimPart {
  readonly kind: PartKind;
  readonly text: string;
}

const TAGS: ReadonlyArray<readonly [string, PartKind]> = [
  ['User: ', 'user'],
  ['Assistant: ', 'assistant'],
  ['[tool] ', 'tool'],
  ['[result]', 'result'],
  ['[error]', 'error'],
  ['[context] ', 'context'],
];

export function splitVerbatim(verbatim: string): VerbatimPart[] {
  const parts: Array<{ kind: PartKind; lines: string[] }> = [];
  for (const line of verbatim.split('\n')) {
    const tag = TAGS.find(([prefix]) => line.startsWith(prefix));
    if (tag) parts.push({ kind: tag[1], lines: [line.slice(tag[0].length).trimStart()] });
    else if (parts.length > 0) parts[parts.length - 1]!.lines.push(line);
    else parts.push({ kind: 'other', lines: [line] });
  }
  return parts.map((p) => ({ kind: p.kind, text: p.lines.join('\n').trim() })).filter((p) => p.text.length > 0);
}
