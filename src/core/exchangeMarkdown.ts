import { formatLineRanges } from './format';
import type { DistilledView } from './model';
import type { Neighbours } from './store/browse';
import type { StoredExchange } from './store/rows';

/**
 * The exchange viewer's document: the verbatim exchange as Markdown. Transcript text is untrusted: it may
 * hold unbalanced code fences, headings or HTML. Turn text keeps its own Markdown (code blocks stay
 * intact) but every fence it opens is closed before the next section; tool lines and outputs go into
 * fences longer than any backtick run they contain; one-line metadata is escaped.
 */

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The fence a line opens or closes, if any (CommonMark: 3+ backticks or tildes, at most 3 spaces indent). */
function fenceOf(line: string): { char: string; len: number; info: string } | undefined {
  const m = FENCE_LINE.exec(line);
  if (!m) return undefined;
  return { char: m[1]![0]!, len: m[1]!.length, info: m[2]!.trim() };
}

/**
 * For each line, whether it lies inside a fenced code block (the opening and closing lines count as inside).
 * Used here to close what the text leaves open, and by tests to check that structure survived.
 */
export function fenceMask(text: string): boolean[] {
  const mask: boolean[] = [];
  let open: { char: string; len: number } | undefined;
  for (const line of text.split('\n')) {
    const f = fenceOf(line);
    if (!open) {
      if (f && !(f.char === '`' && f.info.includes('`'))) {
        open = f;
        mask.push(true);
      } else mask.push(false);
    } else {
      mask.push(true);
      if (f && f.char === open.char && f.len >= open.len && f.info === '') open = undefined;
    }
  }
  return mask;
}

/** Closes a fence the text leaves open, so the text cannot swallow what follows it. */
export function balanceFences(text: string): string {
  let open: { char: string; len: number } | undefined;
  for (const line of text.split('\n')) {
    const f = fenceOf(line);
    if (!open) {
      if (f && !(f.char === '`' && f.info.includes('`'))) open = f;
    } else if (f && f.char === open.char && f.len >= open.len && f.info === '') open = undefined;
  }
  return open ? `${text}\n${open.char.repeat(open.len)}` : text;
}

/**
 * Turns every `<` outside code into `\<`, so raw HTML in transcript text (`<script>`, `<img onerror>`,
 * `<javascript:…>` autolinks) shows as text in any Markdown renderer, even one that allows HTML. Fenced
 * blocks and inline code spans are left alone: there, HTML is already text.
 */
export function neutralizeHtml(text: string): string {
  const mask = fenceMask(text);
  return text
    .split('\n')
    .map((line, i) => (mask[i] ? line : escapeOutsideCodeSpans(line)))
    .join('\n');
}

function escapeOutsideCodeSpans(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf('`', i);
    if (tick < 0) {
      out += line.slice(i).replace(/</g, '\\<');
      break;
    }
    out += line.slice(i, tick).replace(/</g, '\\<');
    let run = tick;
    while (line[run] === '`') run++;
    const ticks = line.slice(tick, run);
    // a code span closes at the next run of exactly as many backticks; without one the backticks are text
    let close = -1;
    for (let j = line.indexOf(ticks, run); j >= 0; j = line.indexOf(ticks, j + 1)) {
      if (line[j - 1] !== '`' && line[j + ticks.length] !== '`') {
        close = j;
        break;
      }
    }
    if (close < 0) {
      out += ticks;
      i = run;
    } else {
      out += line.slice(tick, close + ticks.length);
      i = close + ticks.length;
    }
  }
  return out;
}

/** A fenced block that no run of backticks inside `text` can close early. */
export function fenced(text: string, info = 'text'): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

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

export interface ViewerInput {
  readonly exchange: StoredExchange;
  readonly distilled?: DistilledView;
  readonly neighbours?: Neighbours;
}

const HEADINGS = { user: '## User', assistant: '## Assistant', context: '## Context (not written by a person)' } as const;

export function renderExchangeMarkdown({ exchange: e, distilled, neighbours }: ViewerInput): string {
  const out: string[] = [];
  const title = distilled?.exchangeCore ?? (e.title || firstLine(e.prompt) || 'Exchange');
  out.push(`# ${escapeInline(clip(title, 160))}`, '');
  const when = e.startedAt ? new Date(e.startedAt).toUTCString() : 'unknown date';
  out.push(
    `- **Date:** ${escapeInline(when)}`,
    `- **Agent:** ${escapeInline(e.agent)}${e.isSubagent ? ' (subagent)' : ''}`,
    `- **Session:** ${escapeInline(e.sessionId)}${e.gitBranch ? ` on branch ${escapeInline(e.gitBranch)}` : ''}`,
    `- **Transcript:** ${escapeInline(e.file)}, lines ${e.lineStart}–${e.lineEnd}`,
  );
  if (neighbours) out.push(`- **Position:** exchange ${neighbours.position} of ${neighbours.total} in this conversation`);
  out.push(`- **Id:** ${escapeInline(e.exchangeId)}`, '');
  if (distilled) {
    out.push('## Distilled', '', `> ${escapeInline(distilled.exchangeCore)}`, '');
    if (distilled.specificContext) out.push(`- **Detail:** ${escapeInline(distilled.specificContext)}`);
    if (distilled.rooms.length) out.push(`- **Rooms:** ${distilled.rooms.map((r) => `${escapeInline(r.label)} (${r.type})`).join(', ')}`);
    out.push(`- **Distiller:** ${escapeInline(distilled.distiller)}${distilled.model ? ` / ${escapeInline(distilled.model)}` : ''}, ${distilled.distilledTokens} tokens`, '');
  }
  if (e.filesTouched.length) {
    out.push('## Files touched', '');
    for (const f of e.filesTouched) {
      const lines = f.lines?.length ? ` lines ${formatLineRanges(f.lines)}` : '';
      out.push(`- ${escapeInline(f.path)} (${f.how}${lines})`);
    }
    out.push('');
  }
  for (const b of parseVerbatim(e.verbatim)) {
    if (b.kind === 'tools') out.push(fenced(b.lines.join('\n')), '');
    else out.push(HEADINGS[b.kind], '', neutralizeHtml(balanceFences(b.text)), '');
  }
  return out.join('\n');
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
