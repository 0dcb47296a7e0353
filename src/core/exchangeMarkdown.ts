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

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * An agent's Markdown as a person should read it. Exports (SpecStory's of Copilot above all) write an agent's
 * bold section titles end to end (`**Reading the code****Fixing the test**`, or straight after the last
 * sentence), which Markdown draws as literal asterisks in one run-on line, and leave an empty code fence where a
 * tool call was, which draws as an empty box. Titles get a paragraph each; empty fences go. Code is untouched.
 */
export function readableMarkdown(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = FENCE.exec(line);
    if (fence === undefined && open) {
      const close = lines.findIndex((l, j) => j > i && l.trim().startsWith(open[1]![0]!.repeat(open[1]!.length)) && /^\s{0,3}[`~]+\s*$/.test(l));
      if (close > i && lines.slice(i + 1, close).every((l) => !l.trim())) {
        // an empty fence: nothing to show, and the text around it stays apart
        i = close;
        if (out.length && out[out.length - 1]!.trim()) out.push('');
        continue;
      }
      fence = open[1]![0]!.repeat(open[1]!.length);
      out.push(line);
    } else if (fence !== undefined) {
      if (line.trim().startsWith(fence) && /^\s{0,3}[`~]+\s*$/.test(line)) fence = undefined;
      out.push(line);
    } else {
      const titles = splitTitles(line);
      if (titles.length === 1) out.push(line);
      else {
        // each title its own paragraph: a blank line before and after
        if (out.length && out[out.length - 1]!.trim()) out.push('');
        out.push(...titles, '');
        if (!lines[i + 1]?.trim()) i++;
      }
    }
  }
  while (out.length && !out[out.length - 1]!.trim()) out.pop();
  return out.join('\n');
}

/**
 * `**A****B**`, `done.**A**` and `**A**Text` as one paragraph per title (a bold run alone, once apart); code
 * spans are left as written.
 */
function splitTitles(line: string): string[] {
  if (!line.includes('****') && !/[.!?:)]\*\*[^*]+\*\*$|^\*\*[^*]+\*\*[A-Z]/.test(line)) return [line];
  const split = line
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 ? part : part.replace(/(?<=[^\s*])\*\*\*\*(?=[^\s*])/g, '**\n\n**')))
    .join('')
    .replace(/(?<=[.!?:)])\*\*(?=[^*`\n]+\*\*$)/gm, '\n\n**')
    .replace(/^(\*\*[^*`\n]+\*\*)(?=[A-Z])/gm, '$1\n\n');
  return split.split('\n');
}
