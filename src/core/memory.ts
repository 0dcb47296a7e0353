import { type CancellationSignal, NEVER_CANCELLED } from './cancellation';
import { buildDigest, type Digest } from './digest';
import type { Distiller, DistillInput } from './distill/distiller';
import { distillPending, type DistillProgress, type DistillReport } from './distill/stage';
import type { Embedder } from './embed/embedder';
import { embedStore, type EmbedProgress, type EmbedReport } from './embed/stage';
import { storedVectorSpace } from './store/vectorStore';
import { indexWorkspace, type IndexOptions, type IndexProgress, type IndexReport, offlineDistiller } from './indexer';
import { prepareOfflineTables } from './distill/offline';
import type { DistilledView, ExchangeSummary, Layer, SavedCopy } from './model';
import { redactedListing } from './outbound';
import { type RawView, rawView } from './rawView';
import { type RoomProject, roomTree } from './roomTree';
import { facetFilters, isConversationListing, isEmptyRequest, moreLikeThisText, RECALL_CANDIDATES, recall, type RecallAnswer, type RecallRequest, recentCandidate } from './recall';
import { nearCopiesOf } from './search/copies';
import { DistanceBounds } from './search/distanceBound';
import { LexiconBm25 } from './search/lexiconBm25';
import { createSearcher } from './search/searcher';
import type { Searcher, SearchQuery, SearchResult } from './search/types';
import {
  anyProjectOutside,
  conversationNeighbours,
  distillerUsage,
  type DistillerUsage,
  type ExchangeListing,
  exchangeListings,
  exchangesInRoom,
  exchangesTouchingFile,
  type FileHistoryEntry,
  type FileTouchCount,
  fileTouchCounts,
  listRooms,
  type RoomListing,
  roomListings,
  type Neighbours,
  recentExchanges,
  exchangesInOrder,
  type RoomSort,
  type RoomSummary,
} from './store/browse';
import { type CompressionStats, compressionStats, countPendingDistillation, type DistillTarget, pendingDistillation } from './store/distilledStore';
import type { StoredExchange } from './store/rows';
import { type CompactReport, compactStore } from './store/compact';
import type { IntegrityReport } from './store/integrity';
import type { MigrationProgress } from './store/schema';
import type { OpenCheck } from './store/pageCheck';
import { SearchReads } from './store/searchReads';
import { changeStamp } from './store/sharing';
import { exchangeFilter } from './store/searchFilter';
import { Store } from './store/store';
import { DiscoveryMemo } from './sources/discover';
import type { StoreCounts, StoreStats } from './store/storeStats';
import { describeLost, type LostSource } from './store/ledger';
import type { TableSalvage } from './store/salvage';
import { countTokens } from './tokens';
import { ApartUnavailable, runApart, runsApart } from './workers/apartRun';

/**
 * The front door of core (DESIGN.md "Layers"): the host, the CLI and any other front end ask a Memory;
 * none of them touches the store's database or its query functions.
 *
 *   open       Memory.open(file) (Memory.rebuild(file) after `store-corrupt`), close()
 *   pipeline   index(options)   discover -> parse -> segment -> tokens -> distill -> embed, the distiller
 *                               (or a gate deciding it after ingestion) and the embedder as options;
 *              distill(d), embed(e), pendingDistillation(n), countPendingDistillation(), offlineDistiller(),
 *              markAllSourcesStale() (a rebuild re-parses, deleting nothing)
 *   search     search(query, embedding?), searcher(embedding?), hasVectors()
 *   recall     recall(request, embedding?) -> candidates shaped for display; moreLikeThis(id) -> query text
 *   read       exchange(id), rawView(id), distilled(id), neighbours(id), listings(ids), recent(n), list(page),
 *              rooms(sort, filter), roomTree(sort, filter, folders), roomExchanges(room), fileTouchCounts(), fileHistory(path),
 *              digest(budget, query?), stats(), counts(), compression(), distillerUsage(), check(), repair()
 *
 * `embedding` is what a front end has loaded (an embedder, or a notice why none): the searcher built on it
 * is kept while it is the same, since it caches term statistics.
 */

/** The embedding model a front end has loaded, or why it has none (search stays lexical, with the notice). */
export interface Embedding {
  readonly embedder?: Embedder | undefined;
  readonly notice?: string | undefined;
}

export class Memory {
  private searcherFor: { embedder: Embedder | undefined; notice: string | undefined; searcher: Searcher } | undefined;

  /** What search reads of the store (search/ never holds the db handle). */
  private readonly reads: SearchReads;

  /** The word index's reader, shared by this memory's searchers: what it read is the same whatever their model. */
  private readonly lexicon: LexiconBm25;
  /** The vectors' distance bounds, shared by this memory's searchers likewise. */
  private readonly bounds: DistanceBounds;
  /** What this memory's index runs found of each transcript: the next whole run reads no head of an unchanged file. */
  private discoveries = new DiscoveryMemo();
  /** Index runs under way on threads of their own (IndexOptions.apart). */
  private readonly apartRuns = new Set<{ stop: () => void; ended: Promise<void> }>();

  private constructor(private readonly store: Store) {
    this.reads = new SearchReads(store);
    this.lexicon = new LexiconBm25(this.reads);
    this.bounds = new DistanceBounds(this.reads);
  }

  /**
   * Opens (creating when missing) and migrates the memory in `file`. A damaged file raises `store-corrupt`;
   * callers offer `Memory.rebuild`. `onMigration` hears how far the update of a store an older version wrote has
   * come (store/schema.ts). `check` 'background' returns before every page is checked (store/pageCheck.ts):
   * `verified` then says how that went.
   */
  static async open(file: string, options: { onMigration?: (progress: MigrationProgress) => void; check?: OpenCheck } = {}): Promise<Memory> {
    return new Memory(await Store.open(file, options));
  }

  /**
   * Resolves once every page of the store is known sound; rejects with `store-corrupt` when the check opening
   * left to the background found damage (from then on everything asked of this memory fails with that error).
   */
  verified(): Promise<void> {
    return this.store.verified;
  }

  /**
   * Opens an existing memory for reading only, beside a process that may be indexing into the same file:
   * nothing is created, migrated or written (the MCP server's way in).
   */
  static async openReadOnly(file: string): Promise<Memory> {
    return new Memory(await Store.openReadOnly(file));
  }

  /** Runs `fn`'s reads on one snapshot: a writer's transaction is seen whole or not at all. */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.db.snapshot(fn);
  }

  /**
   * Replaces a damaged store with a fresh one holding every row that could still be read (`salvaged`: copied
   * and lost, table by table); the damaged file is kept beside it. Refused (`store-locked`) while another
   * process has the store open.
   */
  static async rebuild(file: string): Promise<{ memory: Memory; movedTo?: string; salvaged?: TableSalvage[] }> {
    const { store, movedTo, salvaged } = await Store.rebuild(file);
    return { memory: new Memory(store), ...(movedTo ? { movedTo } : {}), ...(salvaged ? { salvaged } : {}) };
  }

  /** Why vector search is unavailable (sqlite-vec did not load), when it is. */
  get vectorError(): string | undefined {
    return this.store.vectorError;
  }

  async close(): Promise<void> {
    // a run on its own thread writes through a connection of its own: it stops (what it wrote stays) before this one closes
    for (const run of this.apartRuns) run.stop();
    await Promise.all([...this.apartRuns].map((r) => r.ended));
    return this.store.close();
  }

  // ---- pipeline

  index(options: IndexOptions, onProgress?: (p: IndexProgress) => void, token: CancellationSignal = NEVER_CANCELLED): Promise<IndexReport> {
    if (runsApart(options)) return this.indexApart(options, onProgress, token);
    return this.store.unmappedWhile(() => indexWorkspace(this.store, options, onProgress, token, this.discoveries));
  }

  /**
   * The run on a thread of its own (`options.apart`), or here when that thread cannot start. Its writes wait for
   * the store's check as this connection's do; closing this memory stops it first.
   */
  private async indexApart(options: IndexOptions, onProgress: ((p: IndexProgress) => void) | undefined, token: CancellationSignal): Promise<IndexReport> {
    await this.store.verified;
    const stop = { isCancellationRequested: false };
    const either: CancellationSignal = {
      get isCancellationRequested() {
        return stop.isCancellationRequested || token.isCancellationRequested;
      },
    };
    const run = runApart(this.store.db.file, options, onProgress ?? (() => undefined), either);
    const running = { stop: () => (stop.isCancellationRequested = true), ended: run.then(() => undefined, () => undefined) };
    this.apartRuns.add(running);
    try {
      const report = await run;
      // The runs after it (live indexing's, of the sources an agent wrote) distill here: the offline distiller's tables
      // made ahead now, a step at a time, not in the first of them, where a search for the exchange that run had just
      // written waited behind them (0.3-0.4 s, firstUpdates.js; a first index apart made them on its own thread only).
      if (options.distiller === undefined) void prepareOfflineTables().catch(() => undefined);
      return report;
    } catch (err) {
      if (!(err instanceof ApartUnavailable)) throw err;
      return this.index({ ...options, apart: false }, onProgress, token);
    } finally {
      this.apartRuns.delete(running);
      // that thread's discovery kept its memo in the store: this memory's next whole run here restores it from there
      this.discoveries = new DiscoveryMemo();
    }
  }

  /** The distill stage on its own: every exchange without a distilled object (resumable, `limit` stops early). */
  distill(
    distiller: Distiller,
    onProgress?: (p: DistillProgress) => void,
    token: CancellationSignal = NEVER_CANCELLED,
    options: { limit?: number } = {},
  ): Promise<DistillReport> {
    return distillPending(this.store.db, distiller, onProgress, token, options);
  }

  /** The embedding stage on its own: what has no vector yet in `layers`. */
  embed(embedder: Embedder, layers: readonly Layer[], onProgress?: (p: EmbedProgress) => void, token?: CancellationSignal): Promise<EmbedReport> {
    return embedStore(this.store, embedder, { layers }, onProgress, token);
  }

  /** The deterministic extractive distiller over this memory's document frequencies. */
  offlineDistiller(): Distiller {
    return offlineDistiller(this.store);
  }

  /**
   * Exchanges waiting for distillation (due for a retry, when they failed), oldest first: those without an
   * object, or for `target` its whole backlog (an LLM's includes what was distilled offline; DistillTarget).
   */
  pendingDistillation(limit: number, target?: DistillTarget): Promise<DistillInput[]> {
    return pendingDistillation(this.store.db, limit, 0, Date.now(), target);
  }

  countPendingDistillation(target?: DistillTarget): Promise<number> {
    return countPendingDistillation(this.store.db, Date.now(), target);
  }

  /** True before the first transcript was indexed (a cheap check, unlike stats()). */
  isEmpty(): Promise<boolean> {
    return this.store.isEmpty();
  }

  /**
   * Transcripts whose exchanges the store recorded after its last index run and no longer held when opened (a lost
   * write-ahead log); opening the store marked those still on disk for the next index run to read again.
   */
  async lostWrites(): Promise<{ sources: readonly LostSource[]; message?: string }> {
    const sources = this.store.lostAtOpen;
    const message = describeLost(sources);
    return { sources, ...(message ? { message } : {}) };
  }

  /** Makes the next index run re-parse every transcript that still exists; nothing is deleted. */
  markAllSourcesStale(): Promise<void> {
    return this.store.markAllSourcesStale();
  }

  // ---- search and recall

  /** The searcher over this memory with `embedding`'s model (lexical with its notice when it has none). */
  searcher(embedding: Embedding = {}): Searcher {
    const f = this.searcherFor;
    if (!f || f.embedder !== embedding.embedder || f.notice !== embedding.notice) {
      this.searcherFor = {
        embedder: embedding.embedder,
        notice: embedding.notice,
        searcher: createSearcher(this.reads, embedding.embedder, { lexicon: this.lexicon, bounds: this.bounds, ...(embedding.notice ? { embedderNotice: embedding.notice } : {}) }),
      };
    }
    return this.searcherFor!.searcher;
  }

  /**
   * Reads now what any searcher of this memory reads first, whichever model it gets: the word index's exchange
   * lengths (Searcher.prepare reads the rest once the model is known). For a front end whose model is still loading.
   * (Sampling the vectors' distance bounds here too, while the model loads, made a confident first answer at 250,000
   * exchanges ~30 ms of CPU dearer and no faster on two cores: docs/search-log.md, the nineteenth pass.)
   */
  prepareWords(): Promise<void> {
    return this.lexicon.warm();
  }

  search(query: SearchQuery, embedding?: Embedding): Promise<SearchResult> {
    return this.searcher(embedding).search(query);
  }

  /** Whether vector search could run here at all (sqlite-vec loaded and vectors stored). */
  async hasVectors(): Promise<boolean> {
    return (await this.vectorModel()) !== undefined;
  }

  /** The model the stored vectors come from (e.g. `Xenova/all-MiniLM-L6-v2`, `local:NAME`), when vector search could run. */
  async vectorModel(): Promise<string | undefined> {
    return this.store.vectorsAvailable ? (await storedVectorSpace(this.store.db))?.modelId : undefined;
  }

  /** One step of a recall session: the request's candidates, shaped for display. */
  async recall(request: RecallRequest, embedding?: Embedding, now = Date.now()): Promise<RecallAnswer> {
    // nothing asked yet: the workspace's most recent exchanges (of the agent and time chosen, without those
    // set aside), so the panel is useful before typing
    // a conversation without text: its exchanges in order, so the user can walk it (e.g. from "N more in this conversation")
    const inOrder = isConversationListing(request);
    if (isEmptyRequest(request) || inOrder) {
      const filters = facetFilters(request.facets ?? {}, now);
      const where = exchangeFilter(filters);
      const exclude = request.exclude ?? [];
      const limit = (request.limit ?? RECALL_CANDIDATES) + exclude.length;
      const listed = inOrder ? await exchangesInOrder(this.store.db, limit, where!) : await recentExchanges(this.store.db, limit, where);
      const candidates = listed.filter((l) => !exclude.includes(l.exchangeId)).slice(0, request.limit ?? RECALL_CANDIDATES);
      return { candidates: candidates.map((l) => recentCandidate(l, now)), confidence: 'low', ...(inOrder ? { inOrder: true } : { recent: true }) };
    }
    const like = request.facets?.like;
    if (!like) return recall((q) => this.search(q, embedding), request, now);
    // "more like this": the seed's distilled object joins the user's words; the seed itself is never a candidate
    const text = `${request.text} ${await this.moreLikeThis(like.id)}`.trim();
    return recall((q) => this.search(q, embedding), { ...request, text, exclude: [...(request.exclude ?? []), like.id] }, now);
  }

  /** "More like this": the query text that stands for an exchange. */
  async moreLikeThis(exchangeId: string): Promise<string> {
    const d = await this.distilled(exchangeId);
    return moreLikeThisText(
      d ? { core: d.exchangeCore, context: d.specificContext } : undefined,
      d ? undefined : (await this.exchange(exchangeId))?.prompt,
    );
  }

  // ---- read models

  /** An exchange verbatim with its provenance and files, by id or an unambiguous prefix of 6+ characters. */
  exchange(idOrPrefix: string): Promise<StoredExchange | undefined> {
    return this.store.getExchange(idOrPrefix);
  }

  /**
   * Where else an exchange was saved, as a search hit lists it: its exact copies and the near ones (copies.ts).
   * Asked only by readers that show it (the viewer, `show`): the near ones cost a statement (~6 ms at 50K).
   */
  async savedCopies(e: StoredExchange): Promise<SavedCopy[]> {
    return [...(e.copies ?? []), ...(await nearCopiesOf(this.reads, e))];
  }

  /**
   * "Open raw": the exchange's source as inert text (its file's, or its records pretty-printed where the file's
   * lines do not place it) with the exchange's lines; undefined when the exchange is not in the index.
   */
  async rawView(exchangeId: string): Promise<RawView | undefined> {
    const e = await this.store.getExchange(exchangeId);
    const range = e ? await this.store.recordRange(e.exchangeId) : undefined;
    return e && range ? rawView({ ...e, ...range }) : undefined;
  }

  distilled(exchangeId: string): Promise<DistilledView | undefined> {
    return this.store.getDistilled(exchangeId);
  }

  /** The exchanges before and after this one in its conversation. */
  neighbours(exchangeId: string): Promise<Neighbours | undefined> {
    return conversationNeighbours(this.store.db, exchangeId);
  }

  /** Listings of the given exchanges, in the order given (ids not found are left out). */
  listings(ids: readonly string[]): Promise<ExchangeListing[]> {
    return exchangeListings(this.store.db, ids);
  }

  /** The newest exchanges; with `within`, only those of projects inside those folders. */
  recent(limit: number, within?: readonly string[]): Promise<ExchangeListing[]> {
    return recentExchanges(this.store.db, limit, within ? exchangeFilter({ within }) : undefined);
  }

  /** Whether any conversation's project lies outside `folders` (or is unknown). */
  hasProjectsOutside(folders: readonly string[]): Promise<boolean> {
    return anyProjectOutside(this.store.db, folders);
  }

  /** What changes whenever the store does, in one O(1) statement (sharing.ts): equal stamps, nothing written between. */
  changeStamp(): Promise<string> {
    return changeStamp(this.store.db);
  }

  /** Every exchange in store order (source file, line), a page at a time. */
  list(page: { limit?: number; offset?: number } = {}): Promise<ExchangeSummary[]> {
    return this.store.listExchanges(page);
  }

  rooms(sort: RoomSort = 'recency', filter = ''): Promise<RoomSummary[]> {
    return listRooms(this.store.db, sort, filter);
  }

  /** The Rooms view's model: rooms by project, then type, each type's long tail folded unless a filter narrows them. */
  async roomTree(sort: RoomSort = 'recency', filter = '', workspaceFolders: readonly string[] = []): Promise<RoomProject[]> {
    return roomTree(await listRooms(this.store.db, sort, filter), { sort, fold: !filter.trim(), workspaceFolders });
  }

  /** The rooms of the tree (every room with `includeSmall`), largest first, with their exchanges' ids (CLI `rooms`). */
  roomListings(includeSmall = false): Promise<RoomListing[]> {
    return roomListings(this.store.db, includeSmall);
  }

  roomExchanges(roomId: string, limit?: number): Promise<ExchangeListing[]> {
    return exchangesInRoom(this.store.db, roomId, limit);
  }

  fileTouchCounts(): Promise<FileTouchCount[]> {
    return fileTouchCounts(this.store.db);
  }

  /** Exchanges that touched `path` (workspace-relative POSIX, or absolute), newest first; `within` as in recent. */
  fileHistory(path: string, limit?: number, within?: readonly string[]): Promise<FileHistoryEntry[]> {
    return exchangesTouchingFile(this.store.db, path, limit, within);
  }

  /**
   * A token-budgeted digest of the newest exchanges, or of the best matches of `query`, for an agent's prompt:
   * its secrets redacted (outbound.ts), as in everything the language-model tools return.
   */
  async digest(budget: number, query?: string, embedding?: Embedding, limit = DIGEST_ENTRIES): Promise<Digest> {
    if (query?.trim()) {
      const result = await this.search({ text: query, limit: Math.min(limit, 200), perConversation: 3 }, embedding);
      const listings = await this.listings(result.hits.map((h) => h.exchangeId));
      return buildDigest(listings.map(redactedListing), budget, countTokens, `Agent Recall memory: "${query.trim()}"`);
    }
    return buildDigest((await this.recent(limit)).map(redactedListing), budget, countTokens, 'Agent Recall memory: recent exchanges');
  }

  stats(): Promise<StoreStats> {
    return this.store.stats();
  }

  /** Exchanges and conversations, by agent too: cheap enough to read while an index run writes. */
  counts(): Promise<StoreCounts> {
    return this.store.counts();
  }

  compression(): Promise<CompressionStats> {
    return compressionStats(this.store.db);
  }

  distillerUsage(): Promise<DistillerUsage[]> {
    return distillerUsage(this.store.db);
  }

  check(): Promise<IntegrityReport> {
    return this.store.check();
  }

  repair(): Promise<void> {
    return this.store.repair();
  }

  /**
   * Rewrites the store without its free pages (store/compact.ts): for a command run on its own, as `agent-recall
   * compact`; it holds the store's write lock until it ends. Once the store's pages are known sound.
   */
  async compact(): Promise<CompactReport> {
    await this.store.verified;
    return this.store.unmappedWhile(() => compactStore(this.store.db));
  }
}

/** More than a budget can hold, so a digest is cut by tokens, not by count. */
const DIGEST_ENTRIES = 2000;

export type { RawView } from './rawView';
export type { MigrationProgress };
export type { RoomProject, RoomTypeGroup } from './roomTree';
export type { CompactReport, CompressionStats, DistillerUsage, ExchangeListing, FileHistoryEntry, FileTouchCount, IntegrityReport, Neighbours, RoomSort, RoomSummary, StoreCounts, StoreStats, StoredExchange };
export type { DistillBacklog, DistillGate, IndexOptions, IndexProgress, IndexReport } from './indexer';
export type { DiscoveredSource } from './sources/discover';
export type { DistillProgress, DistillReport, EmbedProgress, EmbedReport };
export { DEFAULT_VECTOR_LAYERS } from './embed/stage';
export { LLM_BACKLOG, type DistillTarget } from './store/distilledStore';
