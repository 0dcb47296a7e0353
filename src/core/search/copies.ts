import type { SavedCopy } from '../model';
import { type ExchangeText, NO_ROOMS } from '../store/hitRows';
import type { SearchReads } from '../store/searchReads';
import { WORD_TOKEN } from '../words';

/**
 * One exchange saved twice with a small difference: a SpecStory history exported again after the project
 * renamed a folder (two files, one line apart), an Aider run repeated with the same prompt and the same answer.
 * Exact copies are joined when they are read (content ids, exchange_copies); these are two exchanges, so a
 * search showed the same exchange twice in a row (four of the first five hits of "why did the tests fail after
 * the refactor" on the shared corpus).
 *
 * Two exchanges are one when at least SAME_SHARE of the words of the longer prompt are words of the other, and at
 * least SAME_SHARE of the lines of the longer text are lines of the other: the prompt, the answer, the tool calls
 * and their results alike. A second export rewrites a renamed name wherever it occurs, in the prompt as in the
 * answer (`notes/plans` became `docs/plans` in both), so the prompt is compared as the rest is, not to the letter.
 * A prompt asked again and answered differently shares far fewer lines; another request answered alike (two
 * prompts failing with one error) shares few of its prompt's words.
 */
export const SAME_SHARE = 0.9;

export function sameExchange(a: ExchangeText, b: ExchangeText): boolean {
  return same(new Compared(a), new Compared(b));
}

/**
 * The other exchanges that are this one (sameExchange), and their exact copies: where else the exchange was
 * saved, as search lists it on a hit (Hit.copies), for a reader of one exchange. Candidates are the exchanges whose
 * prompt holds a run of this one's words (store/ftsSearch.ts: found through the verbatim index, not row by row).
 */
export async function nearCopiesOf(reads: SearchReads, exchange: ExchangeText & { readonly exchangeId: string }): Promise<SavedCopy[]> {
  const found = await reads.similarPromptExchanges(exchange.exchangeId, exchange.prompt);
  if (found.length === 0) return [];
  const [texts, rows] = await Promise.all([reads.exchangeTexts(found), reads.hitRows(found, NO_ROOMS)]); // rooms are not listed for a copy
  return found.flatMap((n) => {
    const text = texts.get(n);
    const row = rows.get(n);
    return text && row && sameExchange(exchange, text) ? [{ file: row.file, lineStart: row.lineStart, lineEnd: row.lineEnd }, ...row.copies] : [];
  });
}

/**
 * Among hits in rank order, each hit that is the same exchange as a hit above it (sameExchange): its row
 * number -> that hit's. Hits without a text (not loaded) are never copies. Texts are compared only between hits
 * whose lengths allow it (sameLines), then by their prompts' words, then by their lines, each hit's words and
 * lines counted once (and kept with its text).
 */
export function copiesAmong(ns: readonly number[], textOf: (n: number) => ExchangeText | undefined): Map<number, number> {
  const copies = new Map<number, number>();
  const originals: Array<{ n: number; text: Compared }> = [];
  for (const n of ns) {
    const text = textOf(n);
    if (!text) continue;
    const compared = comparedOf(text);
    const original = originals.find((o) => same(o.text, compared));
    if (original) copies.set(n, original.n);
    else originals.push({ n, text: compared });
  }
  return copies;
}

/**
 * Each text's Compared, kept as long as the text is: a searcher keeps the texts of its last searches (RecentTexts)
 * and hands the same objects to the next, so a hit that comes back is not counted again.
 */
const compareds = new WeakMap<ExchangeText, Compared>();

function comparedOf(text: ExchangeText): Compared {
  let compared = compareds.get(text);
  if (!compared) compareds.set(text, (compared = new Compared(text)));
  return compared;
}

/**
 * One exchange's text as it is compared: its prompt's words (as the index cuts them, words.ts) and its text's
 * non-blank lines, counted when first needed.
 */
class Compared {
  readonly prompt: string;
  private wordTally: Tally | undefined;
  private lineTally: Tally | undefined;

  constructor(readonly text: ExchangeText) {
    this.prompt = text.prompt.trim();
  }

  get words(): Tally {
    this.wordTally ??= tally(this.prompt.toLowerCase().match(WORD_TOKEN) ?? []);
    return this.wordTally;
  }

  get lines(): Tally {
    this.lineTally ??= tally(this.text.verbatim.split('\n').map((l) => l.trim()).filter((l) => l.length > 0));
    return this.lineTally;
  }
}

/**
 * Whether two texts are one exchange, the cheapest test first: their lengths (no tally), then their prompts'
 * words (a few dozen), then their lines (hundreds).
 */
function same(a: Compared, b: Compared): boolean {
  const [short, long] = a.text.verbatim.length <= b.text.verbatim.length ? [a, b] : [b, a];
  return short.text.verbatim.length >= SAME_SHARE * long.text.verbatim.length && samePrompt(a, b) && sameLines(short, long);
}

/** Whether at least SAME_SHARE of the words of the longer prompt are words of the other (outer spaces aside). */
function samePrompt(a: Compared, b: Compared): boolean {
  if (a.prompt === b.prompt) return true;
  const [short, long] = a.words.total <= b.words.total ? [a.words, b.words] : [b.words, a.words];
  if (short.total < SAME_SHARE * long.total) return false;
  return shared(short, long) >= SAME_SHARE * long.total;
}

/** Whether at least SAME_SHARE of the lines of the longer text (`long`) are lines of the other. */
function sameLines(short: Compared, long: Compared): boolean {
  return shared(short.lines, long.lines) >= SAME_SHARE * long.lines.total;
}

/** How often each line (or word) occurs in a text, and how many it has. */
interface Tally {
  readonly counts: Map<string, number>;
  readonly total: number;
}

function tally(items: Iterable<string>): Tally {
  const counts = new Map<string, number>();
  let total = 0;
  for (const item of items) {
    counts.set(item, (counts.get(item) ?? 0) + 1);
    total++;
  }
  return { counts, total };
}

/** How many of `short`'s items `long` holds too (each occurrence once). */
function shared(short: Tally, long: Tally): number {
  let n = 0;
  for (const [item, count] of short.counts) n += Math.min(count, long.counts.get(item) ?? 0);
  return n;
}
