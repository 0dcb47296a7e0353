import type { CancellationSignal } from '../cancellation';
import type { Distiller, DistillInput, DistillOutcome } from './distiller';
import { DETAIL_SEPARATOR, detailCandidates } from './details';
import { buildHeadline } from './headline';
import { proposeRooms } from './offlineRooms';
import { searchTerms } from './searchTerms';
import { exchangeWords } from './exchangeWords';
import { fitTokens, wordTokens } from './tokenFit';
import { prepareEnglishRarity, type WordRarity, words } from './wordRarity';
import { prepareCl100k } from '../cl100kTable';
import { isStopWord } from './stopWords';
import type { DistilledExchange } from './types';
import { type VerbatimPart, splitVerbatim } from './verbatimParts';
import { withPlanAsAnswer } from './exitPlan';
import { conversationSubject } from './subject';

/**
 * The offline extractive distiller (the default; needs no network). Deterministic: the same exchange always
 * gives the same object, whatever else the store holds (word rarity comes from a fixed frequency list,
 * wordRarity.ts). Nothing is generated:
 * - `exchangeCore`: the headline, what was asked → what was done, in the exchange's own words (headline.ts);
 * - `specificContext`: the detail line, the exchange's most distinctive exact details (details.ts) that add to
 *   the headline, as many as fit, each a substring of the verbatim;
 * - rooms from files touched, recurring distinctive terms and tool patterns (offlineRooms.ts);
 * - `searchTerms`: the exchange's most distinctive words that core and context do not say, for search only
 *   (searchTerms.ts).
 */

/** Core + "\n" + context aim at the paper's ~38 cl100k tokens. */
export const TARGET_TOKENS = 38;
export const CONTEXT_MAX_TOKENS = 14;
/** The detail's least room: the headline comes first, but a path or an identifier must still fit. */
const CONTEXT_MIN_TOKENS = 6;
/** Longer verbatim is read as its head and tail: the request and the final statement live there. */
const HEAD_CHARS = 60_000;
const TAIL_CHARS = 20_000;

/**
 * The tables a process's first distillation makes: the word ranks and the token counter's table (~200 ms of CPU at
 * once, cold), made a few milliseconds at a time, so the extension host's thread is not held (no cost once made). By
 * that distillation, or ahead by a front end that will distill on this thread (Memory, after a run apart).
 */
export async function prepareOfflineTables(): Promise<WordRarity> {
  const [stats] = await Promise.all([prepareEnglishRarity(), prepareCl100k()]);
  return stats;
}

/** Bumped when the output changes for the same input: stored offline objects of another version are redone. */
export const OFFLINE_PROMPT_VERSION = 'offline-20';

export class OfflineDistiller implements Distiller {
  readonly name = 'offline';
  readonly promptVersion = OFFLINE_PROMPT_VERSION;
  readonly remote = false;

  async distill(batch: readonly DistillInput[], token: CancellationSignal): Promise<DistillOutcome[]> {
    const stats = await prepareOfflineTables();
    const out: DistillOutcome[] = [];
    for (const input of batch) {
      if (token.isCancellationRequested) break;
      try {
        out.push({ n: input.n, ok: true, value: distillOffline(oneShape(input), stats) });
      } catch (err) {
        out.push({ n: input.n, ok: false, error: `offline distiller: ${(err as Error).message}` });
      }
    }
    return out;
  }
}

/**
 * The input with every field in one place, `project` and `title` too when it has none (undefined): inputs come in
 * four shapes (with or without each), and the distiller's functions, compiled for the shapes they had seen, were
 * thrown away and compiled again for each new one (`--trace-deopt`: "wrong map" at `input.project`). What is read is
 * the same.
 */
function oneShape(e: DistillInput): DistillInput {
  return {
    n: e.n,
    exchangeId: e.exchangeId,
    agent: e.agent,
    project: e.project,
    title: e.title,
    plyStart: e.plyStart,
    plyEnd: e.plyEnd,
    prompt: e.prompt,
    verbatim: e.verbatim,
    filesTouched: e.filesTouched,
  } as DistillInput;
}

export function distillOffline(input: DistillInput, stats: WordRarity): DistilledExchange {
  // in plan mode the plan is the answer (exitPlan.ts): it is read as the assistant's last text
  const parts = withPlanAsAnswer(readParts(input.verbatim));
  const details = detailCandidates(parts, input, stats);
  // the words' uses the headline and the search terms both weigh, counted once
  const counted = exchangeWords(input.prompt, parts);
  // the headline is what a person reads: it keeps its room; the detail gets what is left, at least CONTEXT_MIN_TOKENS
  const exchangeCore = buildHeadline(input.prompt, parts, stats, TARGET_TOKENS - (details.length > 0 ? CONTEXT_MIN_TOKENS + 1 : 0), counted);
  const room = Math.min(CONTEXT_MAX_TOKENS, TARGET_TOKENS - wordTokens(exchangeCore) - 1);
  const picked = pickDetail(details, exchangeCore, room);
  // a follow-up that names little ends its line with its conversation's subject (subject.ts)
  const subject = conversationSubject(input.prompt, input.title, `${exchangeCore}\n${picked}`, input.agent);
  const specificContext = subject ? (picked ? `${picked}${DETAIL_SEPARATOR}${subject}` : subject) : picked;
  const terms = searchTerms(input.prompt, parts, stats, `${exchangeCore}\n${specificContext}`, counted);
  return {
    exchangeCore,
    specificContext,
    rooms: proposeRooms(input, parts, stats),
    ...(terms ? { searchTerms: terms } : {}),
  };
}

function readParts(verbatim: string): VerbatimPart[] {
  if (verbatim.length <= HEAD_CHARS + TAIL_CHARS) return splitVerbatim(verbatim);
  const tailStart = verbatim.indexOf('\n', verbatim.length - TAIL_CHARS);
  const head = splitVerbatim(verbatim.slice(0, HEAD_CHARS));
  return tailStart < 0 ? head : [...head, ...splitVerbatim(verbatim.slice(tailStart + 1))];
}

/**
 * The detail line: what the exchange touched or named (the file, the identifier, the error) that the headline
 * does not say, best first, as many as fit the room, each adding a word the headline and the details before it
 * lack; the best cut to the room when none fits whole. (One detail, as the paper's object has, left most of the
 * room unused and named one of the several things a person remembers an exchange by.)
 */
function pickDetail(details: readonly string[], headline: string, room: number): string {
  const said = new Set(words(headline));
  // a number alone names nothing ("448", "1070493"): a detail only when nothing named is left
  const named = details.filter((d) => /\p{L}/u.test(d));
  const kept: string[] = [];
  let tokens = 0;
  for (const d of named.length > 0 ? named : details) {
    // a detail with a word costs a token at least, and one more after the first: once none fits, none will
    if (tokens + (kept.length > 0 ? 2 : 1) > room) break;
    const ws = words(d);
    if (!ws.some((w) => !said.has(w) && !isStopWord(w))) continue;
    const cost = wordTokens(d) + (kept.length > 0 ? 1 : 0);
    if (tokens + cost > room) continue;
    kept.push(d);
    tokens += cost;
    for (const w of ws) said.add(w);
  }
  if (kept.length > 0) return kept.join(DETAIL_SEPARATOR);
  // failing that the first detail, unless the headline shows it already ("I chose `05-`" then "`05-`"): none then
  const first = details[0];
  const best = details.find((d) => words(d).some((w) => !said.has(w) && !isStopWord(w))) ?? (first && words(first).some((w) => !said.has(w)) ? first : undefined);
  return best ? fitTokens(best, room, false) : '';
}
