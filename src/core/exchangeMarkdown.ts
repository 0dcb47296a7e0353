/**
 * Transcript text for views: the stored verbatim rendering split back into turns (the exchange viewer shows
 * them as a conversation), and one-line metadata escaped for Markdown surfaces (hovers).
 */

/**
 * Escapes Markdown and HTML specials in one line of metadata (titles, paths, ids) with backslashes, which
 * CommonMark renders as the plain character and which stay readable in the source view; newlines become spaces.
 */
export function escapeInline(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/[\\`*_[\]|~!<>&]/g, (ch) => `\\${ch}`);
}

type Block = { kind: 'user' | 'assistant' | 'context'; text: string } | { kind: 'tools'; lines: string[] };

/** Splits the stored verbatim rendering (core/render.ts) back into turns and tool lines. */
export function parseVerbatim(verbatim: string): Block[] {
  const blocks: Block[] = [];
  for (const para of verbatim.split(/\n\n(?=User: |Assistant: |\[tool\]|\[result\]|\[error\]|\[context\] )/)) {
    const m = /^(User|Assistant): /.exec(para);
    if (m) {
      // an assistant paragraph ends with its tool-call lines: keep them apart from the reply's Markdown
      const lines = para.slice(m[0].length).split('\n');
      let cut = lines.length;
      while (cut > 0 && lines[cut - 1]!.startsWith('[tool] ')) cut--;
      blocks.push({ kind: m[1] === 'User' ? 'user' : 'assistant', text: lines.slice(0, cut).join('\n') });
      if (cut < lines.length) pushTools(blocks, lines.slice(cut));
    } else if (para.startsWith('[context] ')) {
      blocks.push({ kind: 'context', text: para.slice('[context] '.length) });
    } else {
      pushTools(blocks, [para]);
    }
  }
  return blocks;
}

function pushTools(blocks: Block[], lines: string[]): void {
  const last = blocks[blocks.length - 1];
  if (last?.kind === 'tools') last.lines.push(...lines);
  else blocks.push({ kind: 'tools', lines: [...lines] });
}
