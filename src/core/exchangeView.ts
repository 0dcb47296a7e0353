import { parseVerbatim, readableMarkdown } from './exchangeMarkdown';
import { formatLineRanges, headline, touchedPhrase } from './format';
import { AGENT_NAMES, type AgentKind, type DistilledView } from './model';
import type { Neighbours } from './store/browse';
import type { StoredExchange } from './store/rows';
import { approximateDate, relativeDate } from './time';
import { visible } from './visible';

/**
 * What the exchange viewer shows, already shaped for reading: a title a person recognises, a readable
 * date (and whether it is approximate), the turns as a conversation and the distilled object as a small
 * card. Transcript text keeps its Markdown here (the viewer's webview tokenizes it and builds text nodes, so
 * nothing in it is ever markup) and has its hidden characters shown (visible.ts); paths a click sends back
 * stay as stored.
 */
export interface ExchangeView {
  readonly exchangeId: string;
  /** The conversation's title, else the distilled core, else the prompt's first line. */
  readonly title: string;
  /** The title cut to fit an editor tab. */
  readonly tab: string;
  /** "Sat 3 Oct 2026, 10:12 UTC", or "unknown date". */
  readonly date: string;
  /** "2 months ago". */
  readonly when: string;
  /** Set when the date is not the exchange's own: where it comes from, in words. */
  readonly approximate?: string;
  readonly agent: AgentKind;
  /** The agent as people call it ("Copilot Chat"). */
  readonly agentName: string;
  readonly session: string;
  /** "exchange 2 of 5" when the conversation has more than one. */
  readonly position?: string;
  readonly previous?: string;
  readonly next?: string;
  /** The source transcript and the exchange's lines in it. */
  readonly transcript: string;
  /** The same conversation saved in other files too (one memory, every place it was found). */
  readonly copies: readonly string[];
  readonly card?: DistilledCard;
  /** `path` as stored (what a click opens), `label` as shown. */
  readonly files: ReadonlyArray<{ readonly path: string; readonly label: string; readonly how: string; readonly lines?: string; /** "edited line 4" */ readonly touched: string }>;
  readonly turns: readonly Turn[];
}

export interface DistilledCard {
  /** Absent when the title is the distilled core already (an exchange without a conversation title). */
  readonly core?: string;
  readonly context?: string;
  readonly rooms: readonly string[];
  readonly distiller: string;
}

/** A turn of the conversation; tool calls and their outputs come as one collapsed group. */
export type Turn =
  | { readonly kind: 'user' | 'assistant' | 'context'; readonly text: string }
  | { readonly kind: 'tools'; readonly lines: readonly string[]; /** "3 tool calls", "1 tool result" */ readonly summary: string };

/** What a collapsed group of tool lines holds, in words: its calls, else its outputs. */
export function toolsSummary(lines: readonly string[]): string {
  const calls = lines.filter((l) => l.startsWith('[tool] ')).length;
  if (calls) return counted(calls, 'tool call');
  const outputs = lines.filter((l) => l.startsWith('[result]') || l.startsWith('[error]')).length;
  return outputs ? counted(outputs, 'tool output') : 'tool output';
}

function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** "Sat 3 Oct 2026, 10:12 UTC". */
export function readableDate(iso: string | undefined): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return 'unknown date';
  const d = new Date(t);
  const day = d.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).replace(',', '');
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
  return `${day}, ${time} UTC`;
}

export function exchangeView(e: StoredExchange, distilled?: DistilledView, neighbours?: Neighbours, now = Date.now()): ExchangeView {
  const named = e.title?.trim() ? { prompt: e.title } : { ...(distilled ? { core: distilled.exchangeCore } : {}), prompt: e.prompt };
  const approximate = e.startedAt ? approximateDate(e.datePrecision) : '';
  const title = headline(named, 160);
  // the card says the distilled core unless the title is that already
  const core = distilled && headline({ core: distilled.exchangeCore, prompt: e.prompt }, 160) !== title ? visible(distilled.exchangeCore, { lines: true }) : undefined;
  return {
    exchangeId: e.exchangeId,
    title,
    tab: headline(named, 40),
    date: readableDate(e.startedAt),
    when: relativeDate(e.startedAt, now),
    ...(approximate ? { approximate } : {}),
    agent: e.agent,
    agentName: AGENT_NAMES[e.agent],
    session: visible(`${e.sessionId}${e.gitBranch ? ` on branch ${e.gitBranch}` : ''}${e.isSubagent ? ' (subagent)' : ''}`),
    ...(neighbours && neighbours.total > 1 ? { position: `exchange ${neighbours.position} of ${neighbours.total}` } : {}),
    ...(neighbours?.previous ? { previous: neighbours.previous } : {}),
    ...(neighbours?.next ? { next: neighbours.next } : {}),
    transcript: `${visible(e.file)}, lines ${e.lineStart}–${e.lineEnd}`,
    copies: (e.copies ?? []).map((c) => `${visible(c.file)}, lines ${c.lineStart}–${c.lineEnd}`),
    ...(distilled
      ? {
          card: {
            ...(core ? { core } : {}),
            ...(distilled.specificContext ? { context: visible(distilled.specificContext, { lines: true }) } : {}),
            rooms: distilled.rooms.map((r) => visible(r.label)),
            distiller: `${distilled.distiller}${distilled.model ? ` / ${distilled.model}` : ''}`,
          },
        }
      : {}),
    files: e.filesTouched.map((f) => ({ path: f.path, label: visible(f.path), how: f.how, ...(f.lines?.length ? { lines: formatLineRanges(f.lines) } : {}), touched: touchedPhrase(f.how, f.lines) })),
    turns: parseVerbatim(e.verbatim)
      .filter((b) => b.kind === 'tools' || b.text.trim())
      .map((b) => (b.kind === 'tools'
        ? { kind: 'tools', lines: b.lines.map((l) => visible(l, { lines: true })), summary: toolsSummary(b.lines) }
        : { kind: b.kind, text: visible(readableMarkdown(b.text), { lines: true }) })),
  };
}
