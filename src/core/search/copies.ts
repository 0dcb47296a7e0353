import type { SavedCopy } from '../model';
import { type ExchangeText, NO_ROOMS } from '../store/hitRows';
import type { SearchReads } from '../store/searchReads';

/**
 * One exchange saved twice with a small difference: a SpecStory history exported again after the project
 * renamed a folder (two files, one line apart), an Aider run repeated with the same prompt and the same answer.
 * Exact copies are joined when they are read (content ids, exchange_copies); these are two exchanges, so a
 * search showed the same exchange twice in a row (four of the first five hits of "why did the tests fail after
 * the refactor" on the shared corpus).
 *
 * Two exchanges are one when they have the same prompt (outer spaces aside) and at least SAME_LINES of the lines of
 * the longer one are lines of the other: the answer, the tool calls and their results alike. A prompt asked
 * again and answered differently shares far fewer.
 */
export const SAME_LINES = 0.9;

export function sameExchange(a: ExchangeText, b: ExchangeText): boolean {
  return a.prompt.trim() === b.prompt.trim() && sameLines(new Lines(a.verbatim), new Lines(b.verbatim));
}

/**
 * The other exchanges that are this one (sameExchange), and their exact copies: where else the exchange was
 * saved, as search lists it on a hit (Hit.copies), for a reader of one exchange. Candidates are the exchanges
 * asked with the same prompt (store/ftsSearch.ts: found through the verbatim index, not row by row).
 */
export async function nearCopiesOf(reads: SearchReads, exchange: ExchangeText & { readonly exchangeId: string }): Promise<SavedCopy[]> {
  const found = await reads.samePromptExchanges(exchange.exchangeId, exchange.prompt);
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
 * number -> that hit's. Hits without a text (not loaded) are never copies. Texts are compared only between
 * hits with the same prompt, each text's lines counted once.
 */
export function copiesAmong(ns: readonly number[], textOf: (n: number) => ExchangeText | undefined): Map<number, number> {
  const copies = new Map<number, number>();
  const originals = new Map<string, Array<[number, Lines]>>();
  for (const n of ns) {
    const text = textOf(n);
    if (!text) continue;
    const prompt = text.prompt.trim();
    const asked = originals.get(prompt) ?? [];
    const lines = new Lines(text.verbatim);
    const original = asked.find(([, other]) => sameLines(other, lines));
    if (original) copies.set(n, original[0]);
    else originals.set(prompt, [...asked, [n, lines]]);
  }
  return copies;
}

/** How often each line occurs in a text, and how many lines it has. */
interface Tally {
  readonly counts: Map<string, number>;
  readonly total: number;
}

/** A text's non-blank lines (trimmed), counted when first compared. */
class Lines {
  private counted: Tally | undefined;

  constructor(readonly text: string) {}

  get tally(): Tally {
    if (!this.counted) {
      const counts = new Map<string, number>();
      let total = 0;
      for (const raw of this.text.split('\n')) {
        const line = raw.trim();
        if (line.length === 0) continue;
        counts.set(line, (counts.get(line) ?? 0) + 1);
        total++;
      }
      this.counted = { counts, total };
    }
    return this.counted;
  }
}

/** Whether at least SAME_LINES of the lines of the longer text are lines of the other. */
function sameLines(a: Lines, b: Lines): boolean {
  const [short, long] = a.text.length <= b.text.length ? [a, b] : [b, a];
  if (short.text.length < SAME_LINES * long.text.length) return false;
  const { counts, total } = long.tally;
  let shared = 0;
  for (const [line, count] of short.tally.counts) shared += Math.min(count, counts.get(line) ?? 0);
  return shared >= SAME_LINES * total;
}
