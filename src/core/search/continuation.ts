import type { CandidatePlace } from '../store/continuations';
import type { Scored } from './fusion';
import { KeptUntilChange } from './keptUntilChange';

/** Where candidates' places are read: the store (SearchReads), or a searcher's KnownPlaces. */
export interface PlacesReader {
  candidatePlaces(ns: readonly number[]): Promise<CandidatePlace[]>;
}

/** Places a searcher keeps at most (~2.5 MB); past it they are read again as asked (a bound at no cost per search). */
const MAX_KNOWN_PLACES = 20_000;

/**
 * The candidates' places a searcher has read (store/continuations.ts), kept until the store changes: a candidate's
 * conversation and the request it continues belong to the exchange, not to the query, and the same candidates come
 * back search after search (at 1,518 exchanges, half of the dev queries' candidates were an earlier query's). Only
 * those not known yet are read: the statement (~100 candidates, the largest of a search's reads: ~0.45 ms of the
 * main thread's CPU and ~0.75 of the process's for a query asked again) then reads none or a few.
 */
export class KnownPlaces implements PlacesReader {
  private readonly known: KeptUntilChange<CandidatePlace>;

  constructor(
    private readonly reads: PlacesReader,
    max = MAX_KNOWN_PLACES,
  ) {
    this.known = new KeptUntilChange(max);
  }

  async candidatePlaces(ns: readonly number[]): Promise<CandidatePlace[]> {
    const out: CandidatePlace[] = [];
    const missing: number[] = [];
    for (const n of ns) {
      const place = this.known.get(n);
      if (place) out.push(place);
      else missing.push(n);
    }
    if (missing.length === 0) return out;
    const generation = this.known.generation;
    for (const place of await this.reads.candidatePlaces(missing)) {
      this.known.keep(place.n, place, generation);
      out.push(place);
    }
    return out;
  }

  /** The store changed: a place kept may be another exchange's now. */
  storeChanged(): void {
    this.known.storeChanged();
  }
}

/**
 * An exchange in which no human spoke (its prompt is empty: the agent carried on after a tool loop, a resumed
 * or compacted session) continues the request of the last exchange before it, in its conversation, that has a
 * prompt. Its text carries that request out and restates it, often with the query's words more often than
 * the request itself, but what a user recalls is the request: the moment they asked. So a continuation
 * ranked above its own request, when the request is a candidate too, goes right below it (with its score:
 * the two are one piece of evidence). A continuation whose request is not among the candidates stays where
 * it is, so work found only there is still found.
 *
 * On the dev queries no target is a continuation; two lost to one (docs/search-log.md, "Neighbour confusion"). A
 * retry (Copilot's "@agent Try Again", store/rows.ts RETRY_PROMPT) is one too: it answers the request before it
 * again. "Continue to iterate?" is not: it goes on with new work, and a target was one (docs/search-log.md,
 * "Distilled text as a signal"). In fused modes the order stays after fusion (ranking.ts).
 *
 * `requestsOf` reads what the candidates continue (store/continuations.ts; a searcher's KnownPlaces), and records every candidate's
 * conversation in `conversations`, which the per-conversation cap needs next: one statement instead of two. It
 * depends only on which exchanges are candidates, not on their order, so it runs beside proximity's reading.
 * `afterRequests` then moves the continuations.
 */
export async function requestsOf(reads: PlacesReader, hits: readonly Scored[], conversations?: Map<number, string>): Promise<Map<number, number>> {
  const requests = new Map<number, number>();
  if (hits.length < 2) return requests;
  // a loop, not `map`: a packed array whatever tier runs this (TurboFan's inlined `map` makes holey ones: issue 42)
  const ns: number[] = [];
  for (const h of hits) ns.push(h.n);
  for (const { n, conversationId, request } of await reads.candidatePlaces(ns)) {
    conversations?.set(n, conversationId);
    if (request !== undefined) requests.set(n, request);
  }
  return requests;
}

/** `hits` with each continuation ranked above its own request (`requests`: continuation -> request) moved right below it, with its score. */
export function afterRequests<T extends Scored>(hits: readonly T[], requests: ReadonlyMap<number, number>): T[] {
  const position = new Map(hits.map((h, i) => [h.n, i]));
  const requestOf = new Map<number, number>();
  for (const [n, request] of requests) {
    if ((position.get(request) ?? -1) > position.get(n)!) requestOf.set(n, request);
  }
  if (requestOf.size === 0) return [...hits];
  /** Request row number -> its continuations that rank above it, in rank order. */
  const following = new Map<number, T[]>();
  for (const h of hits) {
    const request = requestOf.get(h.n);
    if (request !== undefined) following.set(request, [...(following.get(request) ?? []), h]);
  }
  const out: T[] = [];
  for (const h of hits) {
    if (requestOf.has(h.n)) continue;
    out.push(h, ...(following.get(h.n) ?? []).map((c) => ({ ...c, score: h.score })));
  }
  return out;
}
