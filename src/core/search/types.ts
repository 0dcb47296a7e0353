import type { RoomType } from '../distill/types';
import type { AgentKind, ExchangeSummary, FileTouch } from '../model';

/**
 * The search contract between core/search (which ranks) and its callers (CLI, recall panel, LM tool),
 * which only ask and display. Mode and fusion names are the CLI's stable contract (DESIGN.md).
 */

export type Mechanism = 'bm25' | 'vector';

/** Which layer or facet a signal searched. */
export type Layer = 'verbatim' | 'core' | 'core+files' | 'core+rooms' | 'all-facets';

export type ModeName =
  | `${Layer}/${Mechanism}`
  | 'bm25(v)+vec(d)'
  | 'vec(v)+bm25(d)'
  | '3-signal';

/** `rrf`, `combmnz`, `additive`, `max`, `adaptive`, or `weighted:<w>` (w in 0..1, the weight of the first signal). */
export type FusionName = string;

export type Confidence = 'high' | 'medium' | 'low';

export interface SearchFilters {
  readonly agents?: readonly AgentKind[];
  /** ISO timestamps, inclusive. */
  readonly since?: string;
  readonly until?: string;
  /** Workspace-relative path of a touched file. */
  readonly file?: string;
  /** Room id. */
  readonly room?: string;
  readonly project?: string;
}

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
}

/** One signal's contribution to a hit: which mechanism on which layer found it, at what rank and score. */
export interface ScorePart {
  readonly signal: string;
  readonly rank: number;
  /** The mechanism's raw score (bm25: positive, higher is better; vector: cosine similarity). */
  readonly score: number;
}

export interface HitRoom {
  readonly id: string;
  readonly type: RoomType;
  readonly label: string;
}

export interface Hit extends ExchangeSummary {
  readonly conversationId: string;
  /** Fused score (higher is better). */
  readonly score: number;
  readonly parts: readonly ScorePart[];
  readonly confidence: Confidence;
  /** Distilled object, when the exchange has been distilled. */
  readonly core?: string;
  readonly context?: string;
  readonly rooms: readonly HitRoom[];
  readonly filesTouched: readonly FileTouch[];
  /** A short verbatim excerpt; matched terms wrapped in \u0001 … \u0002 (the UI escapes, then marks). */
  readonly snippet: string;
  /** Query terms that matched, for "why it matched". */
  readonly matchedTerms: readonly string[];
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
  readonly tookMs: number;
}

export interface Searcher {
  search(query: SearchQuery): Promise<SearchResult>;
}
