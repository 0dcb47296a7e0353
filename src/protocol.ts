/**
 * The recall panel's message protocol, shared by the host (src/host/recallPanel.ts) and the webview
 * (webview/main.ts, which imports these types only). Every message has a `type`; requests from the webview
 * carry a `seq` the answer repeats, so a slow answer to an old query is dropped.
 */

import type { AgentKind, Confidence } from './core/model';
import type { Candidate, Facets, TimeFacet } from './core/recall';

// The panel shows core's shapes as they are: candidates, facets, agents and confidence come from core.
export type { Candidate, CandidateFile, Facets, SnippetPart, TimeFacet } from './core/recall';
export type AgentName = AgentKind;
export type ConfidenceTier = Confidence;

export interface IndexStatus {
  readonly indexing: boolean;
  readonly exchanges: number;
  /**
   * While a run works on what it has stored (distillation, embedding): what it does now. Every exchange is
   * searchable by its words already; headlines and search by meaning follow.
   */
  readonly background?: string;
  /**
   * The agents the memory knows: the id a facet takes, the name a chip or the banner shows. Their chips show
   * when there are two or more (one agent's chip would change nothing).
   */
  readonly agents: ReadonlyArray<{ readonly id: AgentName; readonly name: string }>;
  /** The time chips that narrow this memory (core/recall.ts refiningTimes). */
  readonly times: readonly TimeFacet[];
  readonly message?: string;
  /** Whether queries are also matched by meaning: "on (model)", or "off: why". */
  readonly semantic: string;
  /** An example query from this workspace's memory (its biggest concept room), for the empty search box. */
  readonly example?: string;
}

// webview -> host
export type WebviewMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'query'; readonly seq: number; readonly text: string; readonly facets: Facets; readonly exclude: readonly string[] }
  | { readonly type: 'open'; readonly exchangeId: string }
  | { readonly type: 'openFile'; readonly exchangeId: string; readonly path?: string };

// host -> webview
export type HostMessage =
  | { readonly type: 'status'; readonly status: IndexStatus }
  | {
      readonly type: 'results';
      readonly seq: number;
      readonly candidates: readonly Candidate[];
      readonly confidence: ConfidenceTier;
      readonly notice?: string;
      /** An empty query's answer: the workspace's most recent exchanges, not matches. */
      readonly recent?: boolean;
      /** A conversation facet without text: its exchanges in conversation order, not matches. */
      readonly inOrder?: boolean;
      /** The host's time for this answer (test/bench/hostTiming.mjs reads it; the panel does not show it). */
      readonly tookMs: number;
    }
  | { readonly type: 'setQuery'; readonly text: string; readonly facets: Facets }
  | { readonly type: 'error'; readonly seq?: number; readonly message: string };

const WEBVIEW_TYPES = new Set(['ready', 'query', 'open', 'openFile']);

/** Messages from a webview are untrusted input: check the shape before acting on one. */
export function isWebviewMessage(m: unknown): m is WebviewMessage {
  if (typeof m !== 'object' || m === null) return false;
  const r = m as Record<string, unknown>;
  if (typeof r['type'] !== 'string' || !WEBVIEW_TYPES.has(r['type'])) return false;
  switch (r['type']) {
    case 'query':
      return typeof r['seq'] === 'number' && typeof r['text'] === 'string' && isFacets(r['facets']) &&
        Array.isArray(r['exclude']) && (r['exclude'] as unknown[]).every((x) => typeof x === 'string');
    case 'open':
      return typeof r['exchangeId'] === 'string';
    case 'openFile':
      return typeof r['exchangeId'] === 'string' && (r['path'] === undefined || typeof r['path'] === 'string');
    default:
      return true;
  }
}

/** The facets' shape; those that name something (a room, an exchange, a conversation) carry its id and label. */
function isFacets(f: unknown): f is Facets {
  if (typeof f !== 'object' || f === null) return false;
  const r = f as Record<string, unknown>;
  return (['room', 'like', 'conversation'] as const).every((k) => r[k] === undefined || isNamed(r[k]));
}

function isNamed(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r['id'] === 'string' && r['id'] !== '' && typeof r['label'] === 'string';
}
