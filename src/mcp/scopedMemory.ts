import { projectWithin } from '../core/search/filters';
import { insideAny } from '../core/sources/discover';
import { createSearcher } from '../core/search/searcher';
import type { Searcher, SearchQuery, SearchResult } from '../core/search/types';
import { conversationNeighbours, type DistilledView, distilledOf, exchangesTouchingFile, type ExchangeListing, type FileHistoryEntry, type Neighbours, recentExchanges } from '../core/store/browse';
import type { StoredExchange } from '../core/store/rows';
import { Store } from '../core/store/store';

/**
 * The memory as the MCP server reads it: one store opened read-only, every answer read as one snapshot
 * (an index run writing the same file in another process is seen entirely or not at all), and, when
 * workspace folders are given, nothing from a project outside them.
 */
export class ScopedMemory {
  private readonly searcher: Searcher;

  private constructor(
    private readonly store: Store,
    /** Folders of the workspace; undefined: the whole store (the user named the file). */
    readonly within: readonly string[] | undefined,
  ) {
    this.searcher = createSearcher(store);
  }

  static async open(file: string, within?: readonly string[]): Promise<ScopedMemory> {
    return new ScopedMemory(await Store.openReadOnly(file), within);
  }

  get file(): string {
    return this.store.db.file;
  }

  /** Runs `fn` on one consistent snapshot of the store. */
  read<T>(fn: (m: ScopedMemory) => Promise<T>): Promise<T> {
    return this.store.db.snapshot(() => fn(this));
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const within = await this.boundary();
    return this.searcher.search(within ? { ...query, filters: { ...query.filters, within } } : query);
  }

  /** The exchange, unless it lies outside the workspace (then it is as good as absent). */
  async exchange(idOrPrefix: string): Promise<StoredExchange | undefined> {
    const e = await this.store.getExchange(idOrPrefix);
    return e && this.contains(e.project) ? e : undefined;
  }

  distilled(exchangeId: string): Promise<DistilledView | undefined> {
    return distilledOf(this.store.db, exchangeId);
  }

  /** Neighbours in the same conversation: one project, so inside the boundary whenever the exchange is. */
  neighbours(exchangeId: string): Promise<Neighbours | undefined> {
    return conversationNeighbours(this.store.db, exchangeId);
  }

  async fileHistory(path: string, limit: number): Promise<FileHistoryEntry[]> {
    return exchangesTouchingFile(this.store.db, path, limit, await this.boundary());
  }

  async recent(limit: number): Promise<ExchangeListing[]> {
    return recentExchanges(this.store.db, limit, await this.boundary());
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private contains(project: string | undefined): boolean {
    return !this.within || (project !== undefined && insideAny(project, this.within));
  }

  /**
   * The folders to filter by, or undefined when no conversation of the store lies outside them: a
   * workspace's own store holds only its projects, and its searches then skip the filter's join.
   */
  private async boundary(): Promise<readonly string[] | undefined> {
    if (!this.within) return undefined;
    const scope = projectWithin(this.within);
    const outside = await this.store.db.get<{ one: number }>(
      `SELECT 1 AS one FROM conversations c WHERE c.project IS NULL OR NOT ${scope.sql} LIMIT 1`,
      scope.params,
    );
    return outside ? this.within : undefined;
  }
}
