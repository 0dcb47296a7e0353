import type { ExchangeListing } from './store/browse';
import { shortDate } from './time';

/**
 * A token-budgeted digest of distilled exchanges, for pasting into an agent's prompt: one line per
 * exchange (date, agent, core, the exact detail, id to ask for the verbatim text). The paper's point made
 * usable: ~40 tokens per exchange, so a thousand exchanges fit in ~40K tokens.
 */
export interface Digest {
  readonly text: string;
  readonly included: number;
  readonly available: number;
  readonly tokens: number;
}

export function digestLine(e: ExchangeListing): string {
  const core = oneLine(e.core ?? `(not distilled) ${e.prompt}`, 300);
  const detail = e.context ? ` — ${oneLine(e.context, 160)}` : '';
  return `- ${shortDate(e.startedAt)} [${e.agent}] ${core}${detail} (id ${e.exchangeId.slice(0, 12)})`;
}

/** Adds lines in the given order until the next one would exceed `budget` tokens. */
export function buildDigest(entries: readonly ExchangeListing[], budget: number, count: (text: string) => number, title: string): Digest {
  const header = `# ${oneLine(title, 200)}\nPast exchanges with AI coding agents in this workspace, distilled (newest or best first). Ask for an id to read the verbatim exchange.\n`;
  const lines: string[] = [];
  let tokens = count(header);
  for (const e of entries) {
    const line = digestLine(e);
    const t = count(`${line}\n`);
    if (tokens + t > budget) break;
    lines.push(line);
    tokens += t;
  }
  return { text: `${header}\n${lines.join('\n')}\n`, included: lines.length, available: entries.length, tokens };
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
