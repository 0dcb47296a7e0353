import type { CancellationSignal } from '../cancellation';
import type { Distiller, DistillInput, DistillOutcome } from './distiller';
import { detailCandidates } from './details';
import { buildHeadline } from './headline';
import { proposeRooms } from './offlineRooms';
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
 * - `specificContext`: the most distinctive exact detail (details.ts) that adds to the headline, always a
 *   substring of the verbatim;
 * - rooms from files touched, recurring distinctive terms and tool patterns (offlineRooms.ts);
 * - `searchTerms`: the exchange's most distinctive words that core and context do not say, for search only
 *   (searchTerms.ts).
 */

/** Core + "\n" + context aim at the paper's ~38 cl100k tokens. */
export const TARGET_TOKENS = 38;
export const CONTEXT_MAX_TOKENS = 14;
/** The detail's least room: the headline comes first, but a path or an identifier must still fit. */
const CONTEXT_MIN_TOKENS = 6;
/** Details considered for one the headline does not already say (details.ts ranks them). */
const FRESH_DETAILS = 5;
/** Longer verbatim is read as its head and tail: the request and the final statement live there. */
const HEAD_CHARS = 60_000;
const TAIL_CHARS = 20_000;

/** Bumped when the output changes for the same input: stored offline objects of another version are redone. */
export const OFFLINE_PROMPT_VERSION = 'offline-13';

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
  const exchangeCore = buildHeadline(input.prompt, parts, stats, TARGET_TOKENS - (details.length > 0 ? CONTEXT_MIN_TOKENS + 1 : 0));
  const room = Math.min(CONTEXT_MAX_TOKENS, TARGET_TOKENS - wordTokens(exchangeCore) - 1);
  const specificContext = pickDetail(details, exchangeCore, room);
  const terms = searchTerms(input.prompt, parts, stats, `${exchangeCore}\n${specificContext}`);
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
 * The best of the leading details that adds a word the headline lacks (one the headline already says repeats
 * it), whole if one fits the room, else the best cut to it; the best detail when none adds a word.
 */
function pickDetail(details: readonly string[], headline: string, room: number): string {
  const said = new Set(words(headline));
  const fresh = details.slice(0, FRESH_DETAILS).filter((d) => words(d).some((w) => !said.has(w) && !isStopWord(w)));
  const best = fresh.find((d) => wordTokens(d) <= room) ?? fresh[0] ?? details[0];
  return best ? fitTokens(best, room, false) : '';
}
