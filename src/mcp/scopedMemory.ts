import type { Embedder } from '../core/embed/embedder';
import { Memory, type ExchangeListing, type FileHistoryEntry, type Neighbours, type StoredExchange } from '../core/memory';
import type { DistilledView } from '../core/model';
import type { SearchQuery, SearchResult } from '../core/search/types';
import { insideAny } from '../core/sources/discover';
import { WARM_UP_QUERIES } from '../core/search/warmUpQueries';
import { WarmUpTurns } from '../core/search/warmUpTurns';

/**
 * The warm-up's searches run only after the server has been idle this long (an agent asks again seconds after an
 * answer, a client asking in a batch within a few ms, or ~100 on a loaded machine: at 50 the bench's back-to-back
 * calls met warm-up searches, +2-3 ms of CPU a call), and stop after this many calls (they compiled the same code).
 */
const WARM_UP_QUIET_MS = 200;
const WARM_UP_ENOUGH_CALLS = 9;
/**
 * The warm-up also asks for what the newest exchanges of the store were about, this many of them (warmUp). Searches
 * new to the process are what compile a new query's path (reading and lower-casing texts not read before, their
 * snippets, counting pieces not counted before): after 25 (16 of these), a fresh server's first 10 new calls still
 * took ~20 ms of CPU each, after ~100 ~8, as its later calls; the 25 asked four times over gained nothing (issue 42,
 * docs/search-log.md, twenty-fifth pass).
 */
export const WARM_UP_OWN_QUERIES = 96;
/** Words of such a query: the start of its exchange's prompt, as an agent would ask about it. */
const WARM_UP_QUERY_WORDS = 8;

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

  /** Whether the searcher's warm-up (Searcher.warm) was started. */
  private warming = false;
  /** The warm-up gives way to every call. */
  private readonly turns = new WarmUpTurns(WARM_UP_ENOUGH_CALLS, WARM_UP_QUIET_MS);

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
   * queries, then on the starts of the prompts of the store's newest exchanges (what an agent in this workspace is
   * likely to ask about next), results unused. A fresh process's first calls ran in V8's interpreter and read every
   * hit's text for the first time: 21.5-23.5 ms of CPU each for the first 20 new queries against 9-11 after (issue 42,
   * docs/benchmarks.md). Each search runs only while no call is under way and none has ended for WARM_UP_QUIET_MS
   * (WarmUpTurns: a call meets at most the one already running), none after WARM_UP_ENOUGH_CALLS calls; each is one
   * snapshot of its own, as a call is.
   */
  async warmUp(search: (m: ScopedMemory, text: string) => Promise<unknown>): Promise<void> {
    if (!(await this.turns.next())) return;
    const own = await this.memory.read(() => this.recent(WARM_UP_OWN_QUERIES)).catch(() => []);
    // each once: a search asked again takes the kept paths, not a new query's
    const texts = [...new Set([...WARM_UP_QUERIES, ...own.map((e) => promptStart(e.prompt))])].filter((t) => t.length > 0);
    for (const [i, text] of texts.entries()) {
      if (i > 0 && !(await this.turns.next())) return;
      await this.memory.read(() => search(this, text)).catch(() => undefined);
    }
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const within = await this.boundary();
    const embedder = await this.embedder;
    const result = await this.memory.search(within ? { ...query, filters: { ...query.filters, within } } : query, { embedder });
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
   * workspace's own store holds only its projects, and its queries then skip the filter's joins.
   */
  private async boundary(): Promise<readonly string[] | undefined> {
    return this.within && (await this.memory.hasProjectsOutside(this.within)) ? this.within : undefined;
  }
}

/** The first words of what an exchange was asked. */
function promptStart(prompt: string): string {
  return prompt.split(/\s+/u).filter(Boolean).slice(0, WARM_UP_QUERY_WORDS).join(' ');
}
