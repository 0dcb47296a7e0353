import { stableId } from '../ids';
import type { RoomAssignment, RoomType, StoredRoom } from '../model';
import { normaliseKey } from '../roomKey';

/**
 * Room identity (paper 3.2: rooms are deduplicated by a hash of type, key and project). Keys are machine forms
 * used only for identity (core/roomKey.ts says what merges); labels stay human. One-letter typos between long
 * keys (≥ 8 chars) of the same type and project merge against rooms already known (LLM distillers only, see
 * RoomRegistry).
 */

/** An exchange's rooms as stored: the offline distiller's concept candidates (4), a file and a workflow room. */
export const MAX_ROOMS_PER_EXCHANGE = 6;

/** Rooms of a type and project whose keys differ by one edit merge only when keys are at least this long. */
const TYPO_MIN_LENGTH = 8;

export function roomId(type: RoomType, key: string, project: string | undefined): string {
  return stableId('room', type, key, project ?? '');
}

/** A room as stored: identity plus the project it belongs to. */
/** A proposed room resolved to its stored identity. */
export type ResolvedRoom = StoredRoom;

/**
 * Resolves proposed rooms to stored identities. Labels stay the exchange's own words: the room's label
 * is the one its exchanges used most (store/roomStats.ts). With `mergeTypos` (LLM distillers, which write
 * free text), a key one edit away from a known key of the same type and project joins that room; the first
 * key seen wins. The offline distiller does without: its keys are the participants' words, and a merge that
 * depends on what was seen first would make its output depend on indexing order.
 */
export class RoomRegistry {
  private readonly byScope = new Map<string, Set<string>>();

  constructor(private readonly mergeTypos = true) {}

  /** Registers a stored room key. */
  add(type: RoomType, key: string, project: string | undefined): void {
    this.scope(type, project).add(key);
  }

  /**
   * Normalises, merges and deduplicates one exchange's proposed rooms: at most `max`, highest relevance
   * first, each (type, key) once (keeping the higher relevance). Rooms whose key normalises to '' are dropped.
   */
  resolve(proposed: readonly RoomAssignment[], project: string | undefined, max = MAX_ROOMS_PER_EXCHANGE): ResolvedRoom[] {
    const out = new Map<string, ResolvedRoom>();
    for (const p of proposed) {
      const normal = normaliseKey(p.type, p.key || p.label);
      if (!normal) continue;
      const scope = this.scope(p.type, project);
      const key = scope.has(normal) || !this.mergeTypos ? normal : (this.nearDuplicate(scope, normal) ?? normal);
      scope.add(key);
      const label = humanLabel(p.label || p.key);
      const id = roomId(p.type, key, project);
      const relevance = clamp01(p.relevance);
      const prev = out.get(id);
      if (!prev || prev.relevance < relevance) {
        out.set(id, { id, type: p.type, key, label, relevance, ...(project !== undefined ? { project } : {}) });
      }
    }
    return [...out.values()].sort((a, b) => b.relevance - a.relevance || a.id.localeCompare(b.id)).slice(0, max);
  }

  private scope(type: RoomType, project: string | undefined): Set<string> {
    const k = `${type}\u0000${project ?? ''}`;
    let s = this.byScope.get(k);
    if (!s) this.byScope.set(k, (s = new Set()));
    return s;
  }

  private nearDuplicate(scope: Set<string>, key: string): string | undefined {
    if (key.length < TYPO_MIN_LENGTH) return undefined;
    for (const known of scope) {
      if (known.length >= TYPO_MIN_LENGTH && Math.abs(known.length - key.length) <= 1 && withinOneEdit(known, key)) return known;
    }
    return undefined;
  }
}

/** A label as people write it: trimmed, whitespace collapsed, at most 60 characters. */
export function humanLabel(raw: string): string {
  const t = raw.replace(/\s+/g, ' ').trim();
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** True when a and b differ by at most one insertion, deletion, substitution or adjacent swap. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
