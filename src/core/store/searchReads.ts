import type { Layer } from '../model';
import { type CandidatePlace, candidatePlaces } from './continuations';
import { distilledMatches, type FtsMatch, similarPromptExchanges } from './ftsSearch';
import { conversationsOf, type ExchangeText, exchangeTexts, type HitRow, loadHitRows, readShownRooms, rowNumbersOf, type ShownRooms } from './hitRows';
import { type LexiconDocs, type PostingChunk, readLexiconDocs, readPostings } from './lexicon';
import { type ExchangeFilter, passingFilter } from './searchFilter';
import { changeStamp } from './sharing';
import type { Store } from './store';
import { type LayerVectors, layerHasVectors, layerVectors, nearestInLayer, type ReadVectors, sampleVectors, storedVectorSpace, vectorCount, type VectorExchange, vectorExchanges, type VectorSpace } from './vectorStore';
import type { VectorHit } from './vectors';

/**
 * Everything search reads of the store, in the domain's words (DESIGN.md: the schema in store/, the ranking in
 * search/). search/ ranks with what these return and never holds the database handle (a lint rule); each read is
 * one statement whose SQL lives in the module named in its group.
 */
export class SearchReads {
  constructor(private readonly store: Store) {}

  /** Whether sqlite-vec loaded (vector search can run at all), and why not when it did not. */
  get vectorsAvailable(): boolean {
    return this.store.vectorsAvailable;
  }

  get vectorError(): string | undefined {
    return this.store.vectorError;
  }

  /** Changes whenever the store does (sharing.ts): what was read of it before is read again. */
  changeStamp(): Promise<string> {
    return changeStamp(this.store.db);
  }

  // ---- words (lexicon.ts, ftsSearch.ts, searchFilter.ts)

  /** Every live exchange's segment and length in the verbatim lexicon. */
  lexiconDocs(): Promise<LexiconDocs> {
    return readLexiconDocs(this.store.db);
  }

  /** The lexicon's postings of `terms`, and of every term beginning with one of `prefixes`. */
  postings(terms: readonly string[], prefixes: readonly string[]): Promise<PostingChunk[]> {
    return readPostings(this.store.db, terms, prefixes);
  }

  /** The `k` best BM25 matches of `terms` in a distilled layer. */
  distilledMatches(layer: Exclude<Layer, 'verbatim'>, terms: readonly string[], k: number, filter?: ExchangeFilter): Promise<FtsMatch[]> {
    return distilledMatches(this.store.db, layer, terms, k, filter);
  }

  /** Which of exchanges `ns` pass `filter`. */
  passing(ns: readonly number[], filter: ExchangeFilter): Promise<Set<number>> {
    return passingFilter(this.store.db, ns, filter);
  }

  // ---- exchanges (hitRows.ts, continuations.ts)

  /** The rooms big enough to be shown as chips. */
  shownRooms(): Promise<ShownRooms> {
    return readShownRooms(this.store.db);
  }

  /** What was asked in exchanges `ns`, and their whole verbatim texts. */
  exchangeTexts(ns: readonly number[]): Promise<Map<number, ExchangeText>> {
    return exchangeTexts(this.store.db, ns);
  }

  /** What hits show of exchanges `ns` (all but their texts), with their rooms among `shown`. */
  hitRows(ns: readonly number[], shown: ShownRooms): Promise<Map<number, HitRow>> {
    return loadHitRows(this.store.db, ns, shown);
  }

  /** The conversation of each of exchanges `ns` (those in `known` are not asked for again). */
  conversationsOf(ns: readonly number[], known?: ReadonlyMap<number, string>): Promise<Map<number, string>> {
    return conversationsOf(this.store.db, ns, known);
  }

  /**
   * Each exchange's conversation and, for a continuation, its request: on the second connection when it can
   * be had (beside a statement on the first: two cores), else on the first.
   */
  async candidatePlaces(ns: readonly number[]): Promise<CandidatePlace[]> {
    return candidatePlaces((await this.store.reader()) ?? this.store.db, ns);
  }

  /** The row numbers of exchanges `ids`. */
  rowNumbersOf(ids: readonly string[]): Promise<Set<number>> {
    return rowNumbersOf(this.store.db, ids);
  }

  /** The other exchanges whose prompt holds a run of exchange `exchangeId`'s prompt words (candidates for its near copies). */
  similarPromptExchanges(exchangeId: string, prompt: string): Promise<number[]> {
    return similarPromptExchanges(this.store.db, exchangeId, prompt);
  }

  /** Opens the second connection now, if it is not open (Searcher.warm). */
  async openReader(): Promise<void> {
    await this.store.openSecond();
  }

  // ---- vectors (vectorStore.ts)

  /** The model and dimension of the stored vectors, when any were stored. */
  vectorSpace(): Promise<VectorSpace | undefined> {
    return storedVectorSpace(this.store.db);
  }

  layerHasVectors(layer: Layer): Promise<boolean> {
    return layerHasVectors(this.store.db, layer);
  }

  vectorCount(layer: Layer): Promise<number> {
    return vectorCount(this.store.db, layer);
  }

  /**
   * What a distance bound is made of (distanceBound.ts): how many vectors a layer holds, and about `size` of them
   * evenly spread. Read on the second connection when it has sqlite-vec, outside any snapshot: a searcher takes them
   * as the store opens (Searcher.prepare), and the first search's own statements on the first connection do not
   * wait behind them (at 250,000 exchanges the sample takes 60-86 ms). Any bound leaves the KNN exact.
   */
  async boundCount(layer: Layer): Promise<number> {
    return vectorCount((await this.store.vectorReader()) ?? this.store.db, layer);
  }

  async sampleVectors(layer: Layer, size: number): Promise<Float32Array[]> {
    return sampleVectors((await this.store.vectorReader()) ?? this.store.db, layer, size);
  }

  /** Every vector of a layer, for a copy in memory. */
  layerVectors(layer: Layer, dimension: number, how?: ReadVectors): Promise<LayerVectors> {
    return layerVectors(this.store.db, layer, dimension, how);
  }

  /** The `k` vectors of `layer` nearest to `query` (vec0), within `within` when given. */
  nearestVectors(layer: Layer, query: Float32Array, k: number, within?: number): Promise<VectorHit[]> {
    return nearestInLayer(this.store.db, layer, query, k, within);
  }

  /** The exchanges of vectors `rowids` of `layer` still there and passing `filter`. */
  vectorExchanges(layer: Layer, rowids: readonly number[], filter?: ExchangeFilter): Promise<VectorExchange[]> {
    return vectorExchanges(this.store.db, layer, rowids, filter);
  }
}
