import { RecallError } from '../errors';
import type { SearchReads } from '../store/searchReads';
import type { ExchangeFilter } from '../store/searchFilter';
import { afterRequests, type PlacesReader, requestsOf } from './continuation';
import type { Scored, SignalList } from './fusion';
import type { TermStats } from './idf';
import type { LexiconBm25 } from './lexiconBm25';
import { type SignalSpec, signalName } from './modes';
import type { NearestVectors } from './nearestVectors';
import { withProximity } from './proximity';
import type { SearchContext } from './searchContext';
import { vectorSearch } from './vector';

/** What a signal is asked for: this many candidates, of those passing `filter`; `queryVector` for a vector signal. */
export interface CandidateAsk {
  readonly k: number;
  readonly filter: ExchangeFilter | undefined;
  readonly queryVector: Float32Array | undefined;
}

/**
 * Each signal's candidates, best first: BM25 on verbatim (the lexicon, then proximity and continuations), BM25 on
 * a distilled layer (FTS5), or the nearest vectors of a layer. The exchanges the user set aside are left out.
 */
export class Candidates {
  constructor(
    private readonly reads: SearchReads,
    private readonly lexicon: LexiconBm25,
    private readonly stats: TermStats,
    private readonly knn: NearestVectors,
    /** The candidates' places: the store, or what the searcher kept of them (KnownPlaces). */
    private readonly places: PlacesReader = reads,
  ) {}

  /** `spec`'s ranked list for this search; a vector signal without a query vector (nothing to embed) finds nothing. */
  async list(spec: SignalSpec, ask: CandidateAsk, c: SearchContext): Promise<SignalList> {
    const { excluded } = c.ask;
    const hits = spec.mechanism === 'vector' && !ask.queryVector ? [] : (await this.run(spec, ask, c)).filter((h) => !excluded.has(h.n));
    return { signal: signalName(spec), mechanism: spec.mechanism, hits };
  }

  private run(spec: SignalSpec, ask: CandidateAsk, c: SearchContext): Promise<Scored[]> {
    const { terms } = c.ask;
    if (spec.mechanism === 'bm25') {
      if (spec.layer === 'verbatim') return this.verbatimWords(ask, c);
      return this.reads.distilledMatches(spec.layer, terms, ask.k, ask.filter);
    }
    if (!ask.queryVector) throw new RecallError('bad-argument', `The ${signalName(spec)} signal needs a query vector.`);
    return vectorSearch(this.reads, spec.layer, ask.queryVector, ask.k, { filter: ask.filter, knn: this.knn, conversations: c.conversations });
  }

  /**
   * BM25 on verbatim over the lexicon, then its second stage: proximity (reading the first candidates' hit rows) and,
   * beside it on the second connection, what the continuations among the candidates continue.
   */
  private async verbatimWords({ k, filter }: CandidateAsk, c: SearchContext): Promise<Scored[]> {
    const { terms } = c.ask;
    const hits = await this.lexicon.search(terms, k, filter);
    const [near, requests] = await Promise.all([
      // one word has no neighbour: no proximity, and no IDF lookup on every single-word search
      terms.length < 2 ? hits : this.stats.idf(terms).then((idf) => withProximity(c.proximityForms, terms, idf, hits)),
      requestsOf(this.places, hits, c.conversations),
    ]);
    for (const [n, request] of requests) c.requests.set(n, request); // fusion keeps them in order too (ranking.ts)
    return afterRequests(near, requests);
  }
}
