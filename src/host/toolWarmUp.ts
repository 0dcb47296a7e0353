import { warmUp, warmUpTurns } from '../core/search/warmUp';
import type { Embedding, Memory } from '../core/memory';
import { searchForAgent } from './agentAnswers';

/** Where the warm-up finds the memory and the model searches use (IndexService in the host). */
export interface MemorySource {
  memory(): Promise<Memory>;
  embedding(): Promise<Embedding>;
}

/**
 * The language-model tools' warm-up in the extension host, as the MCP server's (core/search/warmUp.ts, one piece for
 * both): once a store, after an index run has ended, `agent_recall_search`'s own path (search, redaction, the
 * answer's text) asked the searcher's warm-up queries and the starts of the newest prompts, results unused, so an
 * agent's first calls meet code V8 has compiled and the store's pages read. It gives way: no search of it starts while
 * one of the user's (a tool's call, the recall panel's query, a digest) or an index run is under way, nor within the
 * quiet time after one; it stops after a few calls (they compiled the same code), and when the store is about to
 * close (stop: a change of scope; the first run on the other store starts it again) or the extension ends (dispose).
 * None of VS Code's API here: the bench runs this class as the host does (test/bench/hostTools.mjs).
 */
export class ToolWarmUp {
  /** The turns of the open store's warm-up: a new store's are new, its calls counted afresh. */
  private turns = warmUpTurns();
  private running: Promise<number> | undefined;
  private disposed = false;

  constructor(private readonly source: MemorySource) {}

  /** A search the user (or the user's agent) asked: the warm-up gives way to it, and it counts as a call. */
  searching<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.during(work);
  }

  /** An index run: no warm-up search starts while it runs (one under way ends first); it is not counted as a call. */
  indexing<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.during(work, false);
  }

  /**
   * After an index run: reads ahead what the next search needs of the store as the run left it (Searcher.warm, its
   * own searches left out: they gave way to nothing and left a new query's path cold), then starts the warm-up (once
   * a process). Rejects when the reads ahead failed (the warm-up is not started then).
   */
  async afterRun(): Promise<void> {
    const [memory, embedding] = await Promise.all([this.source.memory(), this.source.embedding()]);
    await memory.searcher(embedding).warm(undefined, { searches: false });
    void this.start();
  }

  /** Starts the warm-up, once a store (later calls return the same run): resolves with the number of searches it ran. */
  start(): Promise<number> {
    this.running ??= warmUp(
      this.turns,
      async (limit) => (await (await this.source.memory()).recent(limit)).map((e) => e.prompt),
      async (text) => searchForAgent(await this.source.memory(), await this.source.embedding(), { query: text }),
    );
    return this.running;
  }

  /**
   * Stops the warm-up of the store about to close (a change of scope); resolves once the search under way, if any, has
   * ended. The next run's end (afterRun) starts one on the store open then.
   */
  async stop(): Promise<void> {
    this.turns.stop();
    await this.running;
    this.running = undefined;
    if (!this.disposed) this.turns = warmUpTurns();
  }

  /** Stops the warm-up for good (the extension ends): no run's end starts it again. */
  dispose(): Promise<void> {
    this.disposed = true;
    return this.stop();
  }
}
