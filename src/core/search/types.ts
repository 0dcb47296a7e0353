import type { Confidence, Hit, Layer, SearchFilters } from '../model';
import type { WarmUpTurns } from './warmUpTurns';

export type { Confidence, Hit, HitRoom, Layer, SavedCopy, ScorePart, SearchFilters } from '../model';

/**
 * The search contract between core/search (which ranks) and its callers (CLI, recall panel, LM tool),
 * which only ask and display. Mode and fusion names are the CLI's stable contract (DESIGN.md).
 */

export type Mechanism = 'bm25' | 'vector';

export type ModeName =
  | `${Layer}/${Mechanism}`
  | 'bm25(v)+vec(d)'
  | 'vec(v)+bm25(d)'
  | '3-signal';

/**
 * `rrf`, `combmnz`, `additive`, `max`, `adaptive`, `weighted:<w>` (w in 0..1, the weight of the first signal),
 * or `selective[:<w>]` (the first signal alone when its answer is confident, else `weighted:<w>`; w = 0.8).
 */
export type FusionName = string;

export interface SearchQuery {
  readonly text: string;
  readonly mode?: ModeName;
  readonly fusion?: FusionName;
  /** Hits to return (default 10). */
  readonly limit?: number;
  /** At most this many hits per conversation (diversity; default 2). */
  readonly perConversation?: number;
  readonly filters?: SearchFilters;
  /** Exchange ids the user said "not these" about: removed before the per-conversation cap, so they never take a slot. */
  readonly exclude?: readonly string[];
  /**
   * Snippets for answers that leave the store (MCP, language-model tools): cut from the text with its secrets
   * redacted, since a window can open inside a key block or right after a password's name. Ranking and
   * matched terms are those of the text as stored.
   */
  readonly redact?: boolean;
}

export interface SearchResult {
  readonly hits: readonly Hit[];
  readonly mode: ModeName;
  readonly fusion: FusionName;
  /** Confidence of the whole answer (the best hit's, calibrated on the dev queries). */
  readonly confidence: Confidence;
  /** False when vectors were unavailable and the search fell back to lexical only. */
  readonly semantic: boolean;
  /** Set when something degraded the search (e.g. model unavailable), for the UI to show. */
  readonly notice?: string;
  /** Why a search meant to match by meaning too matched words only (with `notice`). */
  readonly wordsOnly?: WordsOnlyReason;
  readonly tookMs: number;
}

/**
 * `no-model`: no embedding model is loaded; `model-failed`: it failed on this query; `no-vector-extension`:
 * sqlite-vec did not load; `not-embedded`: the store holds no vectors this model can use yet (nothing embedded,
 * another model's, an empty layer), which the next embedding run cures.
 */
export type WordsOnlyReason = 'no-model' | 'model-failed' | 'no-vector-extension' | 'not-embedded';

export interface WarmOptions {
  /** Whether `warm` runs its warm-up searches (WARM_UP_QUERIES); default true. */
  readonly searches?: boolean;
}

export interface Searcher {
  search(query: SearchQuery): Promise<SearchResult>;
  /**
   * Reads now what the next search would otherwise read on its way, once per store change: the word index's
   * exchange lengths, whether vectors can be used, the default mode's vector samples (distance bounds), and
   * the second connection. For a front end, when the store has opened or an index run has ended: at 50,000
   * exchanges a search that reads them waits ~80 ms more (docs/search-log.md, "Latency passes"). Then, once a
   * searcher, a few searches that compile the code a search runs; with `turns`, each only when they give it one;
   * none with `searches: false` (a front end that runs them through its own path: the MCP server's tools.ts).
   */
  warm(turns?: WarmUpTurns, options?: WarmOptions): Promise<void>;
  /**
   * Reads ahead, in the background, what the first search would read on its way and is the same for every query:
   * the word index's exchange lengths and the default mode's distance bounds (their samples on the second
   * connection). Lighter than `warm` (no copy of the vectors, no warm-up searches): for a front end that has just
   * opened the store and expects a search at once (the MCP server, issue 42).
   */
  prepare(): Promise<void>;
}
