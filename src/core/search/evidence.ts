import type { ExchangeText } from '../store/hitRows';
import type { Fused } from './fusion';
import { firstCharacters } from './proximity';
import { holdsQueryWord } from './snippet';

/**
 * Fused modes: a hit that only the vectors found and that holds none of the query's words goes below every hit
 * with lexical evidence. Fusion adds the vector signal's own candidates, and a paraphrase may well hold none of
 * the words; but on the dev queries (USE Lite, bm25(v)+vec(d)) none of the vector-only hits in the first 10 was
 * ever the target, and a third of them held no query word: padding, shown with a confidence, above hits that
 * did match. Moved down, not dropped: a query no exchange has a word of still gets the vectors' answer.
 * "Holds a word" is what the hit's snippet would mark (snippet.ts), over the first EVIDENCE_CHARS characters.
 * The texts are kept by the search (`textsOf`): a vector-only hit kept is then shown without reading its text again.
 */
export const EVIDENCE_DEPTH = 50;
export const EVIDENCE_CHARS = 16_000;

export async function demoteWordless(
  textsOf: (ns: readonly number[]) => Promise<ReadonlyMap<number, ExchangeText>>,
  terms: readonly string[],
  fused: readonly Fused[],
): Promise<Fused[]> {
  const head = fused.slice(0, EVIDENCE_DEPTH);
  const vectorOnly = head.filter((f) => !f.parts.some((p) => p.signal.startsWith('bm25(')));
  if (terms.length === 0 || vectorOnly.length === 0) return [...fused];
  const ns: number[] = []; // a loop, not `map`: a packed array (continuation.ts's requestsOf)
  for (const f of vectorOnly) ns.push(f.n);
  const texts = await textsOf(ns);
  const wordless = new Set(
    vectorOnly.filter((f) => {
      const text = texts.get(f.n);
      return text !== undefined && !holdsQueryWord(firstCharacters(text.verbatim, EVIDENCE_CHARS), terms);
    }).map((f) => f.n),
  );
  if (wordless.size === 0) return [...fused];
  const moved = head.filter((f) => wordless.has(f.n));
  return [...head.filter((f) => !wordless.has(f.n)), ...fused.slice(EVIDENCE_DEPTH), ...moved];
}
