import type { CancellationSignal } from '../cancellation';
import type { Distiller, DistillInput, DistillOutcome } from './distiller';
import { DETAIL_SEPARATOR, detailCandidates } from './details';
import { buildHeadline } from './headline';
import { proposeRooms } from './offlineRooms';
import { MAX_REQUEST_NAMES, type NameEvidence, requestNames } from './requestNames';
import { searchTerms } from './searchTerms';
import { fitTokens, wordTokens } from './tokenFit';
import { englishRarity, type WordRarity, words } from './wordRarity';
import { isStopWord } from './stopWords';
import type { DistilledExchange } from './types';
import { type VerbatimPart, splitVerbatim } from './verbatimParts';

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

/** Bumped when the output changes for the same input: stored offline objects of another version are redone. */
export const OFFLINE_PROMPT_VERSION = 'offline-17';

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
  const details = detailCandidates(parts, input, stats);
  // the headline is what a person reads: it keeps its room; the detail gets what is left, at least CONTEXT_MIN_TOKENS
  const headline = buildHeadline(input.prompt, parts, stats, TARGET_TOKENS - (details.length > 0 ? CONTEXT_MIN_TOKENS + 1 : 0));
  const exchangeCore = headline.text;
  const room = Math.min(CONTEXT_MAX_TOKENS, TARGET_TOKENS - wordTokens(exchangeCore) - 1);
  const asked = unsaidRequestNames(headline.request, exchangeCore, input, parts, stats);
  const specificContext = pickDetail(details, asked, exchangeCore, room);
  const terms = searchTerms(input.prompt, parts, stats, `${exchangeCore}\n${specificContext}`);
  return {
    exchangeCore,
    specificContext,
    rooms: proposeRooms(input, parts, stats),
    ...(terms ? { searchTerms: terms } : {}),
  };
}

/**
 * What the request names that its headline could not hold (cut to its share of the room before it): a person
 * remembers what they asked for by these, so they follow the exchange's best detail, in the order asked.
 */
function unsaidRequestNames(request: string, headline: string, input: DistillInput, parts: readonly VerbatimPart[], stats: WordRarity): string[] {
  const said = new Set(words(headline));
  // as for every detail, never the project's own path: every exchange of the project names it
  const project = input.project?.replace(/\/+$/u, '');
  const text = input.verbatim.slice(0, HEAD_CHARS + TAIL_CHARS);
  const evidence: NameEvidence = {
    writtenAsName: (word) => mostlyCapitalised(text, word),
    // in any case: "projects/Claude-Zima" asked, "Projects/Claude-Zima" made (a file system that ignores case)
    inToolCall: (name) => parts.some((p) => p.kind === 'tool' && p.text.toLowerCase().includes(name.toLowerCase())),
  };
  return requestNames(request, stats, evidence)
    .filter((name) => input.verbatim.includes(name) && !(project && (name.includes(project) || project.endsWith(name))))
    .filter((name) => addsWord(name, said))
    .slice(0, MAX_REQUEST_NAMES);
}

/**
 * Whether the text writes a word (lower-case letters and digits, requestNames asks no other) with a capital
 * ("Ramda", "DHCP") more often than without, as a whole word.
 */
function mostlyCapitalised(text: string, word: string): boolean {
  let balance = 0;
  for (const m of text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}_])${word}(?![\\p{L}\\p{N}_])`, 'giu'))) balance += /^\p{Lu}/u.test(m[0]) ? 1 : -1;
  return balance > 0;
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
 * lack; the best cut to the room when none fits whole. The exchange's best detail stays first; what the request
 * named and the headline could not hold (`asked`) comes next. (One detail, as the paper's object has, left most of
 * the room unused and named one of the several things a person remembers an exchange by.)
 */
function pickDetail(details: readonly string[], asked: readonly string[], headline: string, room: number): string {
  const said = new Set(words(headline));
  // a number alone names nothing ("448", "1070493"): a detail only when nothing named is left
  const named = details.filter((d) => /\p{L}/u.test(d));
  const ranked = named.length > 0 ? named : details;
  const best = ranked.findIndex((d) => addsWord(d, said) && wordTokens(d) <= room);
  const order = [...ranked.slice(0, best + 1), ...asked.filter((a) => !ranked.includes(a)), ...ranked.slice(best + 1)];
  const kept: string[] = [];
  let tokens = 0;
  for (const d of order) {
    if (!addsWord(d, said)) continue;
    const ws = words(d);
    const cost = wordTokens(d) + (kept.length > 0 ? 1 : 0);
    if (tokens + cost > room) continue;
    kept.push(d);
    tokens += cost;
    for (const w of ws) said.add(w);
  }
  if (kept.length > 0) return kept.join(DETAIL_SEPARATOR);
  const cut = details.find((d) => addsWord(d, said)) ?? details[0];
  return cut ? fitTokens(cut, room, false) : '';
}

function addsWord(detail: string, said: ReadonlySet<string>): boolean {
  return words(detail).some((w) => !said.has(w) && !isStopWord(w));
}
