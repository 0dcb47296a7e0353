/**
 * The recall panel's message protocol, shared by the host (src/host/recallPanel.ts) and the webview
 * (webview/main.ts, which imports these types only). Every message has a `type`; requests from the webview
 * carry a `seq` the answer repeats, so a slow answer to an old query is dropped.
 */

export type AgentName = 'claude-code' | 'codex' | 'specstory' | 'aider';
export type ConfidenceTier = 'high' | 'medium' | 'low';
export type TimeFacet = 'week' | 'month' | 'quarter';

/** Refinements that narrow a query without retyping it. */
export interface Facets {
  readonly agent?: AgentName;
  readonly time?: TimeFacet;
  readonly room?: { readonly id: string; readonly label: string };
  readonly file?: string;
}

/** A piece of snippet text; `mark` pieces matched a query term. Never HTML: the webview makes text nodes. */
export interface SnippetPart {
  readonly text: string;
  readonly mark: boolean;
}

export interface CandidateFile {
  readonly path: string;
  readonly how: string;
  /** "12–18" when the transcript recorded the touched lines. */
  readonly lines?: string;
}

/** One recall candidate, already shaped for display (the webview formats nothing). */
export interface Candidate {
  readonly exchangeId: string;
  /** The distilled core, or the prompt when the exchange is not distilled yet. */
  readonly headline: string;
  readonly distilled: boolean;
  readonly context?: string;
  readonly when: string;
  readonly date: string;
  readonly agent: AgentName;
  readonly files: readonly CandidateFile[];
  readonly rooms: ReadonlyArray<{ readonly id: string; readonly label: string }>;
  readonly confidence: ConfidenceTier;
  readonly snippet: readonly SnippetPart[];
  /** Why it matched, e.g. "matched coupon, checkout · verbatim/bm25 #1". */
  readonly why: string;
}

export interface IndexStatus {
  readonly indexing: boolean;
  readonly exchanges: number;
  readonly message?: string;
}

// webview -> host
export type WebviewMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'query'; readonly seq: number; readonly text: string; readonly facets: Facets; readonly exclude: readonly string[] }
  | { readonly type: 'open'; readonly exchangeId: string }
  | { readonly type: 'openFile'; readonly exchangeId: string; readonly path?: string }
  | { readonly type: 'moreLikeThis'; readonly exchangeId: string };

// host -> webview
export type HostMessage =
  | { readonly type: 'status'; readonly status: IndexStatus }
  | {
      readonly type: 'results';
      readonly seq: number;
      readonly candidates: readonly Candidate[];
      readonly confidence: ConfidenceTier;
      readonly notice?: string;
      readonly tookMs: number;
    }
  | { readonly type: 'setQuery'; readonly text: string; readonly facets: Facets }
  | { readonly type: 'error'; readonly seq?: number; readonly message: string };

const WEBVIEW_TYPES = new Set(['ready', 'query', 'open', 'openFile', 'moreLikeThis']);

/** Messages from a webview are untrusted input: check the shape before acting on one. */
export function isWebviewMessage(m: unknown): m is WebviewMessage {
  if (typeof m !== 'object' || m === null) return false;
  const r = m as Record<string, unknown>;
  if (typeof r['type'] !== 'string' || !WEBVIEW_TYPES.has(r['type'])) return false;
  switch (r['type']) {
    case 'query':
      return typeof r['seq'] === 'number' && typeof r['text'] === 'string' && typeof r['facets'] === 'object' && r['facets'] !== null &&
        Array.isArray(r['exclude']) && (r['exclude'] as unknown[]).every((x) => typeof x === 'string');
    case 'open':
    case 'moreLikeThis':
      return typeof r['exchangeId'] === 'string';
    case 'openFile':
      return typeof r['exchangeId'] === 'string' && (r['path'] === undefined || typeof r['path'] === 'string');
    default:
      return true;
  }
}
