import type { HitRow } from '../store/hitRows';
import { type ConfidenceEvidence, confidenceOf, confidencesByRank, SELECTIVE_TRUST } from './confidence';
import type { Fused } from './fusion';
import type { TermStats } from './idf';
import { IDF_FLOOR } from './lexiconBm25';
import type { Ranking } from './ranking';
import type { SearchContext } from './searchContext';
import type { Snippet } from './snippet';
import type { Confidence, Hit, SavedCopy } from './types';

/** A ranking's hits as shown, with the confidence of the whole answer (the first hit's). */
export interface Explained {
  readonly hits: Hit[];
  readonly confidence: Confidence;
}

/**
 * Explains every kept hit: its row as shown, snippet, the query words it holds, what the cap left out of its
 * conversation (and the conversation's first prompt when it has no title), where else it was saved, and its
 * confidence among the others. What the hits show is read while their snippets are made (the texts were read
 * for proximity).
 */
export async function explain(stats: TermStats, { kept, left, folded }: Ranking, c: SearchContext): Promise<Explained> {
  const { terms } = c.ask;
  const ns: number[] = []; // a loop, not `map`: a packed array (continuation.ts's requestsOf)
  for (const f of kept) ns.push(f.n);
  const reading = c.rowsOf([...ns, ...[...folded.values()].flat()]);
  reading.catch(() => undefined); // awaited below; a failure is reported there
  const texts = await c.textsOf(ns);
  const { idf, nowhere } = kept.length > 0 ? await stats.weights(terms) : { idf: new Map<string, number>(), nowhere: 0 };
  const snippets = ns.map((n) => {
    const text = texts.get(n);
    return text && { matched: c.snippetOf(n, text.verbatim), shown: c.shownSnippet(n, text) };
  });
  const rows = await reading;
  const top = kept[0]?.score ?? 0;
  const margin = marginOf(kept);
  const shaped: Array<{ hit: Omit<Hit, 'confidence'>; evidence: ConfidenceEvidence }> = [];
  for (const [i, f] of kept.entries()) {
    const row = rows.get(f.n);
    const snippet = snippets[i];
    if (!row || !snippet) continue; // deleted between ranking and loading (a concurrent re-index)
    const matched = snippet.matched.matchedTerms;
    const { coverage, held } = wordsHeld(matched, terms, idf);
    const evidence = { coverage, held, position: i + 1, relative: top > 0 ? f.score / top : 0, margin, nowhere };
    shaped.push({ hit: shownHit(row, f, snippet, idf, left, folded.get(f.n) ?? [], rows), evidence });
  }
  // loops, not `map`: packed arrays whatever tier runs this (continuation.ts's requestsOf)
  const evidence: ConfidenceEvidence[] = [];
  for (const s of shaped) evidence.push(s.evidence);
  const labels = confidencesByRank(evidence);
  const hits: Hit[] = [];
  for (let i = 0; i < shaped.length; i++) hits.push({ ...shaped[i]!.hit, confidence: labels[i]! });
  return { hits, confidence: hits[0]?.confidence ?? 'low' };
}

/** A kept hit as shown, but for its confidence: its row, why it matched, what its conversation had left out. */
function shownHit(
  row: HitRow,
  f: Fused,
  snippet: { readonly matched: Snippet; readonly shown: string },
  idf: ReadonlyMap<string, number>,
  left: ReadonlyMap<string, number>,
  folded: readonly number[],
  rows: ReadonlyMap<number, HitRow>,
): Omit<Hit, 'confidence'> {
  const { n: _n, firstPrompt, ...shown } = row;
  const opening = left.has(row.conversationId) ? firstPrompt : undefined;
  return {
    ...shown,
    score: f.score,
    parts: f.parts,
    snippet: snippet.shown,
    matchedTerms: telling(snippet.matched.matchedTerms, idf),
    more: left.get(row.conversationId) ?? 0,
    ...(opening !== undefined ? { firstPrompt: opening } : {}),
    copies: savedCopies(row, folded, rows),
  };
}

/** The label `explain` gives a ranking's first hit, from that hit alone (selective asks before explaining). */
export async function firstConfidence(stats: TermStats, kept: readonly Fused[], c: SearchContext): Promise<Confidence> {
  const first = kept[0];
  const text = first && (await c.textsOf([first.n])).get(first.n);
  if (!text) return 'low';
  const { terms } = c.ask;
  const { idf, nowhere } = await stats.weights(terms);
  const matched = c.snippetOf(first.n, text.verbatim).matchedTerms;
  const { coverage, held } = wordsHeld(matched, terms, idf);
  return confidenceOf({ coverage, held, position: 1, relative: 1, margin: marginOf(kept), nowhere }, SELECTIVE_TRUST);
}

/** Where else the exchange of `row` was saved: its exact copies, and the near copies folded into it with theirs. */
function savedCopies(row: HitRow, folded: readonly number[], rows: ReadonlyMap<number, HitRow>): SavedCopy[] {
  const out = [...row.copies];
  for (const n of folded) {
    const copy = rows.get(n);
    if (copy) out.push({ file: copy.file, lineStart: copy.lineStart, lineEnd: copy.lineEnd }, ...copy.copies);
  }
  return out;
}

/** How far the first hit stands out: (its score - the second's) / its score; 1 alone, 0 when scored 0. */
function marginOf(kept: readonly Fused[]): number {
  const top = kept[0]?.score ?? 0;
  // a first hit scored 0 (the query's words are in most exchanges) stands out from nothing
  return top <= 0 ? 0 : kept.length > 1 ? (top - kept[1]!.score) / top : 1;
}

/** A word in most exchanges ("the", "how", "do", "one"; FTS5 floors its IDF) tells none of them apart. */
function tells(term: string, idf: ReadonlyMap<string, number>): boolean {
  return (idf.get(term) ?? 0) > IDF_FLOOR;
}

/**
 * How many of the query's words a hit holds, among the words that tell exchanges apart, and their share of those words,
 * so a hit holding only words in most exchanges covers nothing (0 when the query has no other word).
 */
function wordsHeld(matched: readonly string[], terms: readonly string[], idf: ReadonlyMap<string, number>): { readonly coverage: number; readonly held: number } {
  const held = matched.filter((t) => tells(t, idf)).length;
  const all = terms.filter((t) => tells(t, idf)).length;
  return { coverage: all > 0 ? held / all : 0, held };
}

/** The matched words a hit shows as why it matched: those that tell exchanges apart, else (none do) all of them. */
function telling(matched: readonly string[], idf: ReadonlyMap<string, number>): string[] {
  const some = matched.filter((t) => tells(t, idf));
  return some.length > 0 ? some : [...matched];
}
