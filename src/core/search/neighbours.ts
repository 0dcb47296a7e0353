import type { SearchReads } from '../store/searchReads';
import type { Fused } from './fusion';
import { RERANK_DEPTH } from './proximity';

/**
 * Which of two neighbours a memory means. Where BM25 on verbatim is unsure (the fused path of `selective`), its
 * misses are often a second place right below another exchange of the target's own conversation: the exchange
 * that offered what the target did, the one whose tool output quotes the words the target's request said, the
 * next request on the same subject (docs/search-log.md, "Neighbour confusion"). Verbatim text cannot tell them
 * apart: both hold the words. The distilled object can: it says what an exchange was asked and did, without the
 * tool output it quoted. So two exchanges of one conversation that stand next to each other among the first
 * RERANK_DEPTH candidates (the conversation's first two there) are put in the order BM25 on their distilled facets
 * gives; one whose distilled text does not match goes second, equals keep their order. Nothing else moves: no
 * other conversation's exchange is lifted by the distilled text (as a signal of its own it lifted look-alikes with
 * conviction), no hit leaves its place in the list, and a continuation stays below its request.
 */
export async function orderNeighbours(
  reads: SearchReads,
  terms: readonly string[],
  fused: readonly Fused[],
  conversation: ReadonlyMap<number, string>,
  requests: ReadonlyMap<number, number>,
): Promise<Fused[]> {
  const head = fused.slice(0, RERANK_DEPTH);
  const firstTwo = new Map<string, number[]>();
  head.forEach((f, i) => {
    const places = firstTwo.get(conversation.get(f.n) ?? '') ?? [];
    if (places.length < 2) firstTwo.set(conversation.get(f.n) ?? '', [...places, i]);
  });
  const pairs = [...firstTwo.values()].filter(([a, b]) => b === a! + 1 && !continues(head[a]!.n, head[b]!.n, requests));
  if (pairs.length === 0) return [...fused];
  const ns = pairs.flatMap(([a, b]) => [head[a]!.n, head[b]!.n]);
  const scores = await reads.distilledScores('all-facets', terms, ns);
  const out = [...fused];
  for (const [a, b] of pairs) {
    const upper = scores.get(head[a]!.n);
    const lower = scores.get(head[b]!.n);
    if (lower !== undefined && (upper === undefined || lower > upper)) [out[a], out[b]] = [head[b]!, head[a]!];
  }
  return out;
}

/** Whether one of two exchanges continues the other (continuation.ts): their order is BM25 on verbatim's. */
function continues(x: number, y: number, requests: ReadonlyMap<number, number>): boolean {
  return requests.get(x) === y || requests.get(y) === x;
}
