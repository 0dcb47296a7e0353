import type { SearchReads } from '../store/searchReads';
import { afterRequests } from './continuation';
import { copiesAmong } from './copies';
import { type Capped, capPerConversation } from './diversity';
import { demoteWordless } from './evidence';
import { type Fused, type Fusion, fuse, type SignalList } from './fusion';
import type { TermStats } from './idf';
import type { SearchContext } from './searchContext';

/** The hits kept, and the near copies folded into each (row numbers), by its row number. */
export type Ranking = Capped<Fused> & { readonly folded: ReadonlyMap<number, readonly number[]> };

/**
 * Fuses the signals' lists and keeps at most N hits per conversation, each exchange once: a hit that is the
 * same exchange as a candidate above it (copies.ts) is folded into that one, and the next candidate takes its
 * place. The candidates above are those kept and those the cap left out whose texts were read already (the
 * first RERANK_DEPTH, proximity's), so that a conversation saved twice does not come back through its copy
 * once the cap has left its original out, nor the copy of an exchange the user said "not these" about. Where
 * vectors took part, a fused hit holding no query word goes below those that hold one; a continuation stays
 * right below its request, as BM25 on verbatim placed it.
 */
export async function rank(reads: SearchReads, stats: TermStats, lists: readonly SignalList[], fusion: Fusion, c: SearchContext): Promise<Ranking> {
  const { terms, perConversation, limit, excluded } = c.ask;
  const merged = fuse(lists, fusion, fusion.kind === 'adaptive' ? await stats.lexicalWeight(terms) : undefined);
  // the other signals may put a continuation above its request again (its distilled core restates the request)
  const ordered = lists.length > 1 ? afterRequests(merged, c.requests) : merged;
  const semantic = lists.some((l) => l.mechanism === 'vector');
  const fused = lists.length > 1 && semantic ? await demoteWordless((ns) => c.evidenceOf(ns), terms, ordered) : ordered;
  const ns: number[] = []; // a loop, not `map`: a packed array (continuation.ts's requestsOf)
  for (const f of fused) ns.push(f.n);
  const conversation = await reads.conversationsOf(ns, c.conversations);
  const folded = new Map<number, number[]>();
  for (let candidates = fused; ; ) {
    const capped = capPerConversation(candidates, conversation, perConversation, limit);
    const last = capped.kept.at(-1);
    const above = last ? candidates.slice(0, candidates.indexOf(last) + 1).map((f) => f.n) : [];
    const texts = await c.textsOf([...excluded, ...capped.kept.map((f) => f.n)]);
    const copies = copiesAmong([...excluded, ...above], (n) => texts.get(n));
    if (copies.size === 0) return { ...capped, folded };
    for (const [copy, original] of copies) if (!excluded.has(original)) folded.set(original, [...(folded.get(original) ?? []), copy]);
    candidates = candidates.filter((f) => !copies.has(f.n));
  }
}
