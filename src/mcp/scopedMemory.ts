import type { Embedder } from '../core/embed/embedder';
import { Memory, type ExchangeListing, type FileHistoryEntry, type Neighbours, type StoredExchange } from '../core/memory';
import type { DistilledView } from '../core/model';
import type { SearchQuery, SearchResult } from '../core/search/types';
import { insideAny } from '../core/sources/discover';
import { warmUp, warmUpTurns } from '../core/search/warmUp';

/**
 * The memory as the MCP server reads it: opened read-only, every answer read as one snapshot (an index run
 * writing the same file in another process is seen entirely or not at all), and, when workspace folders
 * are given, nothing from a project outside them. With an embedder, search runs its default with meaning
 * too (bm25(v)+vec(d), selective), as the extension's recall panel does. The embedder may still be loading
 * (searches wait for it); the searcher prepares as the store opens (Searcher.prepare) and warms after the first
 * answer, not before it, giving way to the calls (Searcher.warm, WarmUpTurns).
 */
export class ScopedMemory {
  private constructor(
    private readonly memory: Memory,
    readonly file: string,
    /** Folders of the workspace; undefined: the whole store (the user named the file). */
    readonly within: readonly string[] | undefined,
    private readonly embedder: Promise<Embedder | undefined>,
  ) {}

  /**
   * Whether the store held a conversation outside `within`, as read at change stamp `stamp` (boundary): the same until
   * the store changes, so a search does not wait for it (search).
   */
  private outside: { readonly stamp: string; readonly outside: boolean } | undefined;
  /** Whether the searcher's warm-up (Searcher.warm) was started. */
  private warming = false;
  /** The warm-up gives way to every call. */
  private readonly turns = warmUpTurns();

  static async open(file: string, within?: readonly string[], embedder?: Embedder | Promise<Embedder | undefined>): Promise<ScopedMemory> {
    const memory = new ScopedMemory(await Memory.openReadOnly(file), file, within, Promise.resolve(embedder));
    memory.prepare();
    return memory;
  }

  /**
   * Reads, while the client's handshake is under way, what the first search needs whatever it asks: the word index's
   * exchange lengths at once, while the model still loads (Memory.prepareWords: ~60 ms at 250,000 exchanges), the rest
   * once it has (Searcher.prepare: the vectors' distance bound alone took ~150 ms of the first answer). A failure
   * here is met again, and reported, by the search.
   */
  private prepare(): void {
    this.memory.prepareWords().catch(() => undefined);
    this.embedder.then((embedder) => this.memory.searcher({ embedder }).prepare()).catch(() => undefined);
  }

  /** Runs `fn` on one consistent snapshot of the store. */
  read<T>(fn: (m: ScopedMemory) => Promise<T>): Promise<T> {
    return this.turns.during(() => this.memory.read(() => fn(this)));
  }

  /**
   * The server's warm-up, after its first answer or once it has been left idle after the handshake (server.ts):
   * `search` (the search tool's own path: the search, redaction, snippets, token budget) run on the searcher's warm-up
   * queries and the starts of the newest prompts, giving way to the calls (core/search/warmUp.ts, shared with the
   * extension host's language-model tools); each search is one snapshot of its own, as a call is.
   */
  async warmUp(search: (m: ScopedMemory, text: string) => Promise<unknown>): Promise<void> {
    await warmUp(
      this.turns,
      async (limit) => (await this.memory.read(() => this.recent(limit))).map((e) => e.prompt),
      (text) => this.memory.read(() => search(this, text)),
    );
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const embedder = await this.embedder;
    const searched = (outside: boolean): Promise<SearchResult> =>
      this.memory.search(outside && this.within ? { ...query, filters: { ...query.filters, within: this.within } } : query, { embedder });
    const known = this.within && this.outside;
    let result: SearchResult;
    if (known) {
      // the search within the boundary as it was, with the check that the store has not changed since beside it (one
      // round trip through SQLite's pool less a call); in one snapshot, so an equal stamp means the same boundary
      const [stamp, answer] = await Promise.allSettled([this.memory.changeStamp(), searched(known.outside)]);
      const same = stamp.status === 'fulfilled' && stamp.value === known.stamp ? true : ((await this.boundary()) !== undefined) === known.outside;
      if (same && answer.status === 'rejected') throw answer.reason;
      result = same && answer.status === 'fulfilled' ? answer.value : await searched(!known.outside);
    } else {
      result = await searched((await this.boundary()) !== undefined);
    }
    if (!this.warming) {
      this.warming = true;
      // once the first answer is on its way (its reads ahead and copies; the warm-up's searches are warmUp's); a
      // failure here is met again, and reported, by the next search
      setImmediate(() => void this.memory.searcher({ embedder }).warm(this.turns, { searches: false }).catch(() => undefined));
    }
    return result;
  }

  /** The exchange, unless it lies outside the workspace (then it is as good as absent). */
  async exchange(idOrPrefix: string): Promise<StoredExchange | undefined> {
    const e = await this.memory.exchange(idOrPrefix);
    return e && this.contains(e.project) ? e : undefined;
  }

  distilled(exchangeId: string): Promise<DistilledView | undefined> {
    return this.memory.distilled(exchangeId);
  }

  /** Neighbours in the same conversation: one project, so inside the boundary whenever the exchange is. */
  neighbours(exchangeId: string): Promise<Neighbours | undefined> {
    return this.memory.neighbours(exchangeId);
  }

  async fileHistory(path: string, limit: number): Promise<FileHistoryEntry[]> {
    return this.memory.fileHistory(path, limit, await this.boundary());
  }

  async recent(limit: number): Promise<ExchangeListing[]> {
    return this.memory.recent(limit, await this.boundary());
  }

  close(): Promise<void> {
    return this.memory.close();
  }

  private contains(project: string | undefined): boolean {
    return !this.within || (project !== undefined && insideAny(project, this.within));
  }

  /**
   * The folders to filter by, or undefined when no conversation of the store lies outside them: a
   * workspace's own store holds only its projects, and its queries then skip the filter's joins. Read again only
   * when the store has changed (the check scans every conversation when none lies outside).
   */
  private async boundary(): Promise<readonly string[] | undefined> {
    const within = this.within;
    if (!within) return undefined;
    let known = this.outside;
    if (!known) {
      const [stamp, outside] = await Promise.all([this.memory.changeStamp(), this.memory.hasProjectsOutside(within)]);
      known = this.outside = { stamp, outside };
    } else {
      const stamp = await this.memory.changeStamp();
      if (stamp !== known.stamp) known = this.outside = { stamp, outside: await this.memory.hasProjectsOutside(within) };
    }
    return known.outside ? within : undefined;
  }
}
