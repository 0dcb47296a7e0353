import type { CancellationSignal } from '../cancellation';
import { memoize } from '../memo';
import { countTokens } from '../tokens';
import type { Distiller, DistillInput, DistillOutcome } from './distiller';
import { detailCandidates } from './details';
import { CHAT_VARIABLE, proposeRooms } from './offlineRooms';
import { isStopWord } from './stopWords';
import { englishRarity, type WordRarity, words } from './wordRarity';
import type { DistilledExchange } from './types';
import { type VerbatimPart, splitVerbatim } from './verbatimParts';

/**
 * The offline extractive distiller (the default; needs no network). Deterministic: the same exchange always
 * gives the same object, whatever else the store holds (word rarity comes from a fixed frequency list,
 * wordRarity.ts). Nothing is generated:
 * - `exchangeCore`: the most informative sentence of the user's request and of the assistant's final
 *   substantive statement, in their own words, trimmed at word boundaries to fit the token budget;
 * - `specificContext`: the most distinctive exact detail (details.ts), always a substring of the verbatim;
 * - rooms from files touched, recurring distinctive terms and tool patterns (offlineRooms.ts).
 */

/** Core + "\n" + context aim at the paper's ~38 cl100k tokens. */
export const TARGET_TOKENS = 38;
export const CONTEXT_MAX_TOKENS = 14;
const MIN_CORE_TOKENS = 20;
/** Longer verbatim is read as its head and tail: the request and the final statement live there. */
const HEAD_CHARS = 60_000;
const TAIL_CHARS = 20_000;
const CORE_JOINER = ' → ';

/** Bumped when the output changes for the same input: stored offline objects of another version are redone. */
export const OFFLINE_PROMPT_VERSION = 'offline-11';

export class OfflineDistiller implements Distiller {
  readonly name = 'offline';
  readonly promptVersion = OFFLINE_PROMPT_VERSION;
  readonly remote = false;

  async distill(batch: readonly DistillInput[], token: CancellationSignal): Promise<DistillOutcome[]> {
    const stats = englishRarity();
    const out: DistillOutcome[] = [];
    for (const input of batch) {
      if (token.isCancellationRequested) break;
      try {
        out.push({ n: input.n, ok: true, value: distillOffline(input, stats) });
      } catch (err) {
        out.push({ n: input.n, ok: false, error: `offline distiller: ${(err as Error).message}` });
      }
    }
    return out;
  }
}

export function distillOffline(input: DistillInput, stats: WordRarity): DistilledExchange {
  const parts = readParts(input.verbatim);
  const context = pickContext(input, parts, stats);
  const contextTokens = context ? wordTokens(context) + 1 : 0;
  const coreBudget = Math.max(MIN_CORE_TOKENS, TARGET_TOKENS - contextTokens);
  const exchangeCore = buildCore(input.prompt, parts, stats, coreBudget);
  return {
    exchangeCore,
    specificContext: context,
    rooms: proposeRooms(input, parts, stats),
  };
}

function readParts(verbatim: string): VerbatimPart[] {
  if (verbatim.length <= HEAD_CHARS + TAIL_CHARS) return splitVerbatim(verbatim);
  const tailStart = verbatim.indexOf('\n', verbatim.length - TAIL_CHARS);
  const head = splitVerbatim(verbatim.slice(0, HEAD_CHARS));
  return tailStart < 0 ? head : [...head, ...splitVerbatim(verbatim.slice(tailStart + 1))];
}

function pickContext(input: DistillInput, parts: readonly VerbatimPart[], stats: WordRarity): string {
  const best = detailCandidates(parts, input, stats)[0];
  if (!best) return '';
  return fitTokens(best, CONTEXT_MAX_TOKENS, false);
}

function buildCore(prompt: string, parts: readonly VerbatimPart[], stats: WordRarity, budget: number): string {
  // the human's first sentences carry the request; later ones are often pasted logs
  const asked = withoutBoilerplate(prompt);
  const request = withoutColon(bestSentence(sentences(asked).slice(0, 4), stats, 0.4) ?? oneLine(cleanProse(asked)));
  const outcome = withoutColon(finalStatement(parts, stats) ?? '');
  if (!outcome) return cutHeadline(request, budget);
  if (!request) return cutHeadline(outcome, budget);
  const requestNeed = wordTokens(request);
  const outcomeNeed = wordTokens(outcome);
  if (requestNeed + outcomeNeed + 1 <= budget) return `${request}${CORE_JOINER}${outcome}`;
  // Both do not fit: the outcome is what was done, so it comes first; the request keeps at most a third.
  const requestPart = cutHeadline(request, Math.max(Math.floor(budget / 3), budget - outcomeNeed - 1));
  return `${requestPart}${CORE_JOINER}${cutHeadline(outcome, budget - wordTokens(requestPart) - 1)}`;
}

/**
 * Agent boilerplate in prompts: chat participants and commands (`@workspace /fix`, `@agent Continue:`), chat
 * variables (`#terminalLastCommand`), and Copilot's "Continue to iterate?" that is no request at all.
 */
function withoutBoilerplate(prompt: string): string {
  return prompt
    .replace(/^\s*@[\w-]+(?:\s+\/[\w-]+)?\s*:?\s*/u, '')
    .replace(/^\s*\/[\w-]+\s+/u, '')
    // a chat variable reads as what it names: `#file:src/a.ts` as the path, `#terminalLastCommand` as words
    .replace(CHAT_VARIABLE, (_, pre: string, name: string, arg?: string) => `${pre}${arg ?? name.replace(/(?<=[a-z])(?=[A-Z])/gu, ' ').toLowerCase()}`)
    .replace(/^\s*(?:Continue:\s*)?"?Continue to iterate\?"?\s*$/iu, '')
    .trim();
}

/**
 * A headline within `maxTokens`, cut where a reader can stop: at the end of a sentence or clause (`.`, `;`,
 * `:`, `,`, a dash) when that keeps at least half the budget, else after a whole word with an ellipsis; never
 * inside a word. A trailing colon (an announcement of what follows) is dropped.
 */
export function cutHeadline(text: string, maxTokens: number): string {
  const whole = withoutColon(text);
  if (wordTokens(whole) <= maxTokens) return whole;
  const prefix = fitTokens(whole, maxTokens, false);
  const clause = clauseEnd(prefix);
  if (clause > 0 && wordTokens(prefix.slice(0, clause)) >= maxTokens / 2) return prefix.slice(0, clause).replace(/[\s,;:–—-]+$/u, '');
  const cut = fitTokens(whole, maxTokens, true);
  return /…$/.test(cut) ? cut.replace(/[\s,;:–—-]+…$/u, '…') : cut;
}

/** A trailing colon announces what follows (a log, a tool call): a headline ends before it. */
function withoutColon(text: string): string {
  return text.replace(/[\s:]+$/u, '');
}

/** Where the last sentence or clause of `text` ends (after its punctuation), or -1. */
function clauseEnd(text: string): number {
  let end = -1;
  for (const m of text.matchAll(/[.!?;:,)](?=\s)|\s[–—-](?=\s)/gu)) end = (m.index ?? 0) + (m[0].startsWith(' ') ? 0 : 1);
  return end;
}

/** The assistant's last substantive statement: the best sentence of its last text that has one. */
function finalStatement(parts: readonly VerbatimPart[], stats: WordRarity): string | undefined {
  const replies = parts.filter((p) => p.kind === 'assistant');
  for (let i = replies.length - 1; i >= Math.max(0, replies.length - 3); i--) {
    const best = bestSentence(sentences(replies[i]!.text).slice(0, 8), stats, 0.08);
    if (best) return best;
  }
  return replies.length ? oneLine(cleanProse(replies[replies.length - 1]!.text)) || undefined : undefined;
}

/** Openers that announce rather than state (several languages); such sentences rank lower. */
const FILLER_RE =
  /^(?:let me|let's|now let|now i|i'll|i will|i'm going|perfect|great|excellent|good|okay|ok|sure|done|alright|déjame|voy a|perfecto|listo|vale|давайте|сейчас|отлично|хорошо|готово)\b/iu;

/** About as many words as survive the trim of one core half: only they can carry the sentence's value. */
const KEPT_WORDS = 18;

/**
 * Scores sentences by the IDF of the distinct content words of their first KEPT_WORDS words per √length,
 * times the square of their share of prose words (a pasted log line is rare, not informative), earlier
 * ones slightly preferred (`decay` per position), fillers halved; ties go to the earlier sentence.
 */
function bestSentence(candidates: readonly string[], stats: WordRarity, decay: number): string | undefined {
  let best: string | undefined;
  let bestScore = 0;
  for (const [i, s] of candidates.entries()) {
    const ws = words(s).slice(0, KEPT_WORDS);
    const content = [...new Set(ws.filter((w) => !isStopWord(w)))];
    if (content.length === 0) continue;
    const info = content.reduce((acc, w) => acc + stats.idf(w), 0);
    let score = ((info / Math.sqrt(Math.max(ws.length, 4))) * proseShare(s) ** 2) / (1 + decay * i);
    if (FILLER_RE.test(s)) score *= 0.5;
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  return best;
}

/** Share of a sentence's space-separated pieces that are words (not log stamps, URLs, symbols). */
function proseShare(sentence: string): number {
  const pieces = sentence.split(' ');
  const prose = pieces.filter((p) => /^[("'“‘¿¡]?[\p{L}][\p{L}\p{N}'’_-]*[.,;:!?)"'”’]*$/u.test(p)).length;
  return prose / pieces.length;
}

/**
 * Prose of a text without Markdown: code blocks, tables, headings, list and quote markers, emphasis and
 * code marks, links (their text stays), images, HTML tags, box-drawing rules and decorations such as
 * Claude Code's "★ Insight ────" banners.
 */
function cleanProse(text: string): string {
  return (
    text
      .replace(/```[\s\S]*?(?:```|$)/g, '\n\n')
      .replace(/^[ \t]*\|.*\|[ \t]*$/gm, '\n')
      .replace(/^[ \t]*▌[ \t]?/gm, '')
      .replace(/^[ \t]{0,3}(?:#{1,6}|[-*+>]|\d+[.)])[ \t]+/gm, '\n')
      .replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, '')
      .replace(/\[([^\]\n]+)\]\([^)\n]*\)/g, '$1')
      .replace(/<\/?[a-z][^>\n]*>/gi, ' ')
      .replace(/★?\s*[A-Z][\w ]{0,20}[─━═]{3,}[─━═\s]*/g, '\n')
      .replace(/[─━═│┃┌┐└┘├┤┬┴┼╭╮╯╰]{2,}/g, '\n')
      // bold marks can glue headings together (`**Done****Next**`): a space; code and emphasis marks: nothing
      .replace(/\*\*|__/g, ' ')
      .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s.,;:!?)]|$)/gm, '$1$2')
      .replace(/`/g, '')
      // a mark removed before punctuation left a space there (`doesn't exist**.`)
      .replace(/[ \t]+(?=[.,;:!?](?:\s|$))/g, '')
  );
}

/**
 * Prose sentences of a text (cleanProse), at least three words each. A line break ends a sentence unless
 * the next line goes on in lower case (a wrapped line).
 */
export function sentences(text: string): string[] {
  return cleanProse(text.slice(0, 8_000))
    .split(/(?<=[.!?。！？])\s+|\n(?![ \t]*\p{Ll})\s*/u)
    .map(oneLine)
    .filter((s) => s.split(' ').length >= 3 && /\p{L}/u.test(s));
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * The longest word-boundary prefix of `text` within `maxTokens` (with an ellipsis when cut, if `ellipsis`).
 * Without the ellipsis the result stays a substring of `text` (the context must occur verbatim).
 */
export function fitTokens(text: string, maxTokens: number, ellipsis: boolean): string {
  // A cl100k token rarely spans more than 6 characters of prose: cut long text near there before counting.
  const roughEnd = maxTokens * 6;
  if (text.length > roughEnd) {
    const space = text.lastIndexOf(' ', roughEnd);
    text = text.slice(0, space > 0 ? space : roughEnd);
  }
  const mark = ellipsis ? '…' : '';
  const words = text.split(' ');
  // cl100k pre-tokenises so that no token spans a single space: a prefix's count is the sum of its words'.
  let total = 0;
  for (const [i, w] of words.entries()) {
    const t = pieceTokens(i === 0 ? w : ` ${w}`);
    const last = i === words.length - 1;
    if (total + t + (last ? 0 : pieceTokens(mark)) > maxTokens) {
      if (i > 0) return words.slice(0, i).join(' ') + mark;
      // one long first word: cut by characters until it fits
      let end = Math.min(w.length, maxTokens * 4);
      while (end > 1 && countTokens(w.slice(0, end) + mark) > maxTokens) end = Math.floor(end * 0.8);
      return w.slice(0, end) + mark;
    }
    total += t;
  }
  return text;
}

/** The token count of a text as the sum of its space-separated words' (exact, see fitTokens; memoised). */
function wordTokens(text: string): number {
  let total = 0;
  for (const [i, w] of text.split(' ').entries()) total += pieceTokens(i === 0 ? w : ` ${w}`);
  return total;
}

/** Token counts of words, memoised: the same words recur across a store's exchanges. */
const pieceTokens = memoize((piece) => (piece ? countTokens(piece) : 0), 100_000);
