import { indexTerm } from '../indexTerms';
import { addLivePostings, decodePairs, type LexiconDocs, type PostingChunk } from '../store/lexicon';
import type { SearchReads } from '../store/searchReads';
import type { ExchangeFilter } from '../store/searchFilter';
import type { Scored } from './fusion';

/** FTS5's bm25() parameters, kept: the ranking measured so far was FTS5's. */
const K1 = 1.2;
const B = 0.75;

/** FTS5's floor of a word's IDF: a word in more than half the exchanges still counts a little. */
export const IDF_FLOOR = 1e-6;

/** FTS5's IDF, floored like FTS5 does. */
export function fts5Idf(total: number, df: number): number {
  return Math.max(IDF_FLOOR, Math.log((total - df + 0.5) / (df + 0.5)));
}

/** The postings' bytes a reader keeps (KEPT_POSTINGS): past it, it starts over. */
const MAX_KEPT_POSTING_BYTES = 8_000_000;

/** Candidates checked against a filter per statement, growing: most filters pass a good share of the first ones. */
const FILTER_BATCHES = [256, 2048, 16384];

/**
 * BM25 on verbatim over the lexicon (store/lexicon.ts): every exchange holding a query term gets its exact
 * score, as FTS5's bm25() would give over the same words (k1 = 1.2, b = 0.75, IDF floored), and the best `k`
 * are returned. One statement reads the query terms' postings; scoring is a pass over them in typed arrays.
 * The exchanges' lengths are read once per store change (`storeChanged`), and again when the postings come
 * from a segment they do not know (a write committed after the searcher's change check).
 *
 * The query's terms are its distinct lexicon terms (`color` and `colors` are one), each weighed once. A term
 * ending in `*` (a Korean word without its particle, terms.ts) is a prefix: every term it begins counts as
 * that one term, as in an FTS5 prefix query.
 */
export class LexiconBm25 {
  private docs: Promise<Docs> | undefined;
  /** The store's change stamp `docs` and `ahead` belong to (SearchReads.changeStamp). */
  private stamp = '';
  /** A search's postings read ahead (`readAhead`), by its terms. */
  private ahead: { readonly terms: string; readonly chunks: Promise<PostingChunk[]> } | undefined;
  /**
   * The postings read since the store last changed, by exact term ([]: none): a query asked again, or one of the same
   * words, reads no postings (the statement was ~0.35 ms of the process's CPU a search on the corpus). Chunks are read-only.
   */
  private readonly kept = new Map<string, readonly PostingChunk[]>();
  private keptBytes = 0;
  private arrays: Scratch = { scores: new Float64Array(0), counts: new Float64Array(0), holding: new Int32Array(0), tfs: new Int32Array(0), touched: new Int32Array(0) };

  constructor(private readonly reads: SearchReads) {}

  /**
   * The store's change stamp as a searcher's change check read it: when it is not the one this reader last saw, the
   * exchanges' lengths and the terms' frequencies are read again when next asked. By stamp, not by whose check saw
   * a change: one reader serves every searcher of a store (Memory), whichever model each has.
   */
  storeChanged(stamp: string): void {
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.docs = undefined;
    this.ahead = undefined;
    this.kept.clear();
    this.keptBytes = 0;
  }

  /**
   * Starts reading the postings of a search's terms, beside the searcher's change check: one round trip
   * through the driver's thread pool instead of two in a row (~0.3-0.7 ms each on 2 cores). `search` of the
   * same terms takes them unless the store changed since (`storeChanged` drops them).
   */
  readAhead(queryTerms: readonly string[]): void {
    const terms = searchTerms(queryTerms);
    if (terms.length === 0) return;
    const chunks = this.read(terms);
    chunks.catch(() => undefined); // a failed read is read again by the search, which reports its failure
    this.ahead = { terms: terms.join('\n'), chunks };
  }

  /** Reads the exchanges' lengths now, if not read since the store changed (Searcher.warm, Memory.prepareWords). */
  async warm(): Promise<void> {
    this.storeChanged(await this.reads.changeStamp());
    await this.lexiconDocs();
  }

  private lexiconDocs(): Promise<Docs> {
    if (!this.docs) {
      const reading = this.reads.lexiconDocs().then(withLengthNorms);
      this.docs = reading;
      reading.catch(() => {
        if (this.docs === reading) this.docs = undefined; // a failed read is tried again
      });
    }
    return this.docs;
  }

  async search(queryTerms: readonly string[], k: number, filter?: ExchangeFilter): Promise<Scored[]> {
    const terms = searchTerms(queryTerms);
    if (terms.length === 0) return [];
    const [docs, chunksOf] = await this.postings(terms);
    if (docs.count === 0) return [];
    const { scores, counts, holding, tfs, touched } = this.scratch(docs);
    let scored = 0;
    for (const [t, chunks] of chunksOf.entries()) {
      const term = terms[t]!;
      // an exact term's chunks in segments without a dead document: each exchange holding it is in one posting, live
      if (!term.endsWith('*') && chunks.every((c) => !docs.partial.has(c.segment))) {
        let held = 0;
        for (const chunk of chunks) held = decodePairs(chunk.postings, holding, tfs, held);
        docs.frequencies.set(term, held);
        scored = addPostingScores(fts5Idf(docs.count, held), held, holding, tfs, docs.lengthNorm, scores, touched, scored);
        continue;
      }
      const held = gather(chunks, docs.segmentOf, counts, holding);
      docs.frequencies.set(term, held);
      scored = addScores(fts5Idf(docs.count, held), held, holding, counts, docs.lengthNorm, scores, touched, scored);
    }
    // the shared arrays are read and cleared before anything is awaited: another search may use them then
    const candidates = touched.subarray(0, scored);
    const ranked = filter ? Array.from(candidates, (n) => ({ n, score: scores[n]! })).sort((a, b) => b.score - a.score || a.n - b.n) : best(candidates, scores, k);
    zeroAt(scores, candidates, scored);
    return filter ? this.bestPassing(ranked, k, filter) : ranked;
  }

  /**
   * How many exchanges hold each of the query's words (exact: live postings counted) and how many there are.
   * A search counts its words as it scores them; only words no search has read since the store changed cost
   * a statement.
   */
  async documentFrequencies(queryTerms: readonly string[]): Promise<{ readonly exchanges: number; readonly of: ReadonlyMap<string, number> }> {
    let docs = await this.lexiconDocs();
    const missing = [...new Set(queryTerms.map(lexiconTerm))].filter((t) => searchable(t) && !docs.frequencies.has(t));
    if (missing.length > 0) {
      const [read, chunksOf] = await this.postings(missing);
      docs = read;
      const { counts, holding } = this.scratch(docs);
      for (const [t, chunks] of chunksOf.entries()) {
        const held = gather(chunks, docs.segmentOf, counts, holding);
        zeroAt(counts, holding, held);
        docs.frequencies.set(missing[t]!, held);
      }
    }
    return { exchanges: docs.count, of: new Map(queryTerms.map((t) => [t, docs.frequencies.get(lexiconTerm(t)) ?? 0])) };
  }

  /** The exchanges' lengths and, for each of `terms` (lexicon terms), its postings' chunks. */
  private async postings(terms: readonly string[]): Promise<[Docs, PostingChunk[][]]> {
    let reading: Promise<PostingChunk[]>;
    if (this.ahead?.terms === terms.join('\n')) {
      reading = this.ahead.chunks.catch(() => this.read(terms));
      this.ahead = undefined;
    } else {
      reading = this.read(terms);
    }
    let [docs, chunks] = await Promise.all([this.lexiconDocs(), reading]);
    if (chunks.some((c) => !docs.segments.has(c.segment))) {
      this.docs = undefined;
      [docs, chunks] = await Promise.all([this.lexiconDocs(), this.read(terms)]);
    }
    const chunksOf = terms.map((term) => {
      const prefix = term.endsWith('*') ? term.slice(0, -1) : undefined;
      return chunks.filter((c) => (prefix === undefined ? c.term === term : c.term.startsWith(prefix)));
    });
    return [docs, chunksOf];
  }

  /**
   * The postings' chunks of `terms` (lexicon terms; a `*` ends a prefix): those kept since the store last changed when
   * every term is an exact one kept, else all read in one statement (and the exact terms' kept).
   */
  private read(terms: readonly string[]): Promise<PostingChunk[]> {
    const exact = terms.filter((t) => !t.endsWith('*'));
    const prefixes = terms.filter((t) => t.endsWith('*')).map((t) => t.slice(0, -1));
    if (prefixes.length === 0 && exact.every((t) => this.kept.has(t))) return Promise.resolve(exact.flatMap((t) => this.kept.get(t)!));
    const stamp = this.stamp;
    const reading = this.reads.postings(exact, prefixes);
    reading.then(
      (chunks) => {
        if (stamp === this.stamp) this.keep(exact, chunks);
      },
      () => undefined, // met, and reported, by the search that reads them
    );
    return reading;
  }

  /** Keeps the chunks of terms `exact` from `chunks`, read since the store last changed. */
  private keep(exact: readonly string[], chunks: readonly PostingChunk[]): void {
    for (const term of exact) {
      if (this.kept.has(term)) continue;
      const own = chunks.filter((c) => c.term === term);
      const bytes = own.reduce((sum, c) => sum + c.postings.length, 0);
      if (this.keptBytes + bytes > MAX_KEPT_POSTING_BYTES) {
        this.kept.clear();
        this.keptBytes = 0;
      }
      this.kept.set(term, own);
      this.keptBytes += bytes;
    }
  }

  /** The typed arrays a pass over postings works in, at least as long as the row numbers: zero between passes. */
  private scratch(docs: Docs): Scratch {
    const size = docs.segmentOf.length;
    if (this.arrays.scores.length < size) {
      this.arrays = { scores: new Float64Array(size), counts: new Float64Array(size), holding: new Int32Array(size), tfs: new Int32Array(size), touched: new Int32Array(size) };
    }
    return this.arrays;
  }

  /** The best `k` of `ranked` (best first) that pass `filter`: checked in that order, a batch per statement. */
  private async bestPassing(ranked: readonly Scored[], k: number, filter: ExchangeFilter): Promise<Scored[]> {
    const out: Scored[] = [];
    for (let from = 0, batch = 0; from < ranked.length && out.length < k; batch++) {
      const size = FILTER_BATCHES[Math.min(batch, FILTER_BATCHES.length - 1)]!;
      const slice = ranked.slice(from, from + size);
      from += size;
      const pass = await this.reads.passing(slice.map((h) => h.n), filter);
      for (const h of slice) if (pass.has(h.n) && out.length < k) out.push(h);
    }
    return out;
  }
}

interface Scratch {
  /** BM25 scores by row number. */
  readonly scores: Float64Array;
  /** One term's counts by row number. */
  readonly counts: Float64Array;
  /** The row numbers holding one term. */
  readonly holding: Int32Array;
  /** The term's count in each of them, where no posting of it can be dead (decodePairs). */
  readonly tfs: Int32Array;
  /** The row numbers scored. */
  readonly touched: Int32Array;
}

/** A query word as the lexicon holds it (`word*`, a prefix, keeps its star). */
function lexiconTerm(word: string): string {
  return word.endsWith('*') ? `${indexTerm(word.slice(0, -1))}*` : indexTerm(word);
}

/** A query's distinct lexicon terms. */
function searchTerms(queryTerms: readonly string[]): string[] {
  return [...new Set(queryTerms.map(lexiconTerm))].filter(searchable);
}

/** Marks alone are no word (indexTerm gives ''), nor is a star alone. */
function searchable(term: string): boolean {
  return term !== '' && term !== '*';
}

interface Docs extends LexiconDocs {
  /** By row number: BM25's length part of the denominator, k1 * (1 - b + b * length / mean length). */
  readonly lengthNorm: Float64Array;
  /** Lexicon terms' document frequencies counted so far (in this state of the store). */
  readonly frequencies: Map<string, number>;
}

function withLengthNorms(docs: LexiconDocs): Docs {
  const lengthNorm = new Float64Array(docs.lengthOf.length);
  const mean = docs.count > 0 ? docs.totalLength / docs.count : 1;
  for (let n = 0; n < lengthNorm.length; n++) lengthNorm[n] = K1 * (1 - B + (B * docs.lengthOf[n]!) / mean);
  return { ...docs, lengthNorm, frequencies: new Map() };
}

/**
 * Adds the live postings of one term's chunks to `counts` (by row number) and lists the row numbers holding it
 * in `holding`; returns how many (its document frequency). The hot loop of a search, on typed arrays.
 */
function gather(chunks: readonly PostingChunk[], segmentOf: Int32Array, counts: Float64Array, holding: Int32Array): number {
  let held = 0;
  for (const chunk of chunks) held = addLivePostings(chunk.postings, chunk.segment, segmentOf, counts, holding, held);
  return held;
}

/*
 * The loops over every posting of a search (~50,000 at 50K exchanges) are plain functions, not in the async
 * `search`: there they ran about twice as slow (measured: V8 did not optimise them while the search ran).
 */

/**
 * Adds one term's BM25 part (its `idf`, the counts of the `held` exchanges listed in `holding`) to `scores`, and
 * clears those counts. Exchanges scored for the first time are listed in `touched` after its first `scored`;
 * returns how many are listed now.
 */
function addScores(idf: number, held: number, holding: Int32Array, counts: Float64Array, lengthNorm: Float64Array, scores: Float64Array, touched: Int32Array, scored: number): number {
  for (let h = 0; h < held; h++) {
    const n = holding[h]!;
    const tf = counts[n]!;
    counts[n] = 0;
    if (scores[n] === 0) touched[scored++] = n;
    scores[n] += (idf * tf * (K1 + 1)) / (tf + lengthNorm[n]!);
  }
  return scored;
}

/**
 * addScores where the term's counts are listed beside its row numbers (`tfs`, from decodePairs) instead of by row
 * number: the same parts, in the same order, added to the same scores.
 */
function addPostingScores(idf: number, held: number, holding: Int32Array, tfs: Int32Array, lengthNorm: Float64Array, scores: Float64Array, touched: Int32Array, scored: number): number {
  for (let h = 0; h < held; h++) {
    const n = holding[h]!;
    const tf = tfs[h]!;
    if (scores[n] === 0) touched[scored++] = n;
    scores[n] += (idf * tf * (K1 + 1)) / (tf + lengthNorm[n]!);
  }
  return scored;
}

/** Sets `values` back to 0 at the first `count` row numbers of `at`. */
function zeroAt(values: Float64Array, at: Int32Array, count: number): void {
  for (let i = 0; i < count; i++) values[at[i]!] = 0;
}

/** The `k` best-scored row numbers, best first (ties: lower row number first), by a bounded min-heap. */
function best(touched: Int32Array, scores: Float64Array, k: number): Scored[] {
  const heap: number[] = [];
  // `worse(a, b)`: a ranks below b
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  // not `[x, y] = [y, x]`: an array a swap where V8 has not optimised the loop (~0.06 MB of an agent's call)
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const down = (from: number) => {
    for (let c = from; ; ) {
      const l = 2 * c + 1;
      const r = l + 1;
      let m = c;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === c) return;
      swap(c, m);
      c = m;
    }
  };
  // the heap's lowest score once it is full: most candidates score below it and are passed at one comparison
  let floor = -Infinity;
  for (let i = 0; i < touched.length; i++) {
    const n = touched[i]!;
    if (scores[n]! < floor) continue;
    if (heap.length < k) {
      heap.push(n);
      for (let c = heap.length - 1; c > 0; ) {
        const p = (c - 1) >> 1;
        if (!worse(heap[c]!, heap[p]!)) break;
        swap(c, p);
        c = p;
      }
      if (heap.length === k) floor = scores[heap[0]!]!;
    } else if (k > 0 && worse(heap[0]!, n)) {
      heap[0] = n;
      down(0);
      floor = scores[heap[0]!]!;
    }
  }
  heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  // a loop, not `map`: a packed array whatever tier runs this (TurboFan's inlined `map` makes holey ones: issue 42)
  const out: Scored[] = [];
  for (const n of heap) out.push({ n, score: scores[n]! });
  return out;
}
