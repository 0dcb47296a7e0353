import { formatLineRanges } from './format';
import type { DistilledView } from './model';
import type { Neighbours } from './store/browse';
import type { StoredExchange } from './store/rows';
import { approximateDate } from './time';

/**
 * The exchange viewer's document: the verbatim exchange as Markdown. Transcript text is untrusted: agents
 * paste web pages, issue bodies and tool output, so it may hold links to `command:` or `vscode:` URIs (which
 * the editor offers as "Execute command (ctrl + click)"), raw HTML, unbalanced fences. Every piece of
 * transcript text therefore goes into a fence longer than any backtick run it contains: no Markdown
 * renderer or link provider finds a link, an HTML tag or a heading there, and no escaping rule has to be
 * right. One-line metadata is escaped character by character.
 */

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
  const approx = approximateDate(e.datePrecision);
  const when = e.startedAt ? `${new Date(e.startedAt).toUTCString()}${approx ? ` (${approx})` : ''}` : 'unknown date';
  out.push(
    `- **Date:** ${escapeInline(when)}`,
    `- **Agent:** ${escapeInline(e.agent)}${e.isSubagent ? ' (subagent)' : ''}`,
    `- **Session:** ${escapeInline(e.sessionId)}${e.gitBranch ? ` on branch ${escapeInline(e.gitBranch)}` : ''}`,
    `- **Transcript:** ${escapeInline(e.file)}, lines ${e.lineStart}–${e.lineEnd}`,
  );
  // the same conversation saved in another file too: one memory, every place it was found
  for (const c of e.copies ?? []) out.push(`- **Also saved in:** ${escapeInline(c.file)}, lines ${c.lineStart}–${c.lineEnd}`);
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
    else out.push(HEADINGS[b.kind], '', fenced(b.text, 'markdown'), '');
  }
  return out.join('\n');
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
