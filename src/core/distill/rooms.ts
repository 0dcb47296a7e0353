import { stableId } from '../ids';
import type { RoomAssignment, RoomType, StoredRoom } from '../model';

/**
 * Room identity and key normalisation (paper 3.2: rooms are deduplicated by a hash of type, key and
 * project). Keys are machine forms used only for identity; labels stay human.
 *
 * What merges (decided here, tested in test/unit/rooms.test.ts):
 * - case, separators and camelCase: `Auth Service`, `auth-service`, `auth_service`, `AuthService` → `auth_service`
 *   (`p5Instance` → `instance_p5`, `E2E` stays `e2e`);
 * - plurals and common inflections (Latin script): `Services`, `authenticating`, `authentication`,
 *   `authenticated` each reduce to one stem, so each family is one room; so do a long -ct verb's act and
 *   agent: `fact extraction`, `fact extractor`, `extracts facts`;
 * - word order: `timeout retry` and `retry timeout` → `retry_timeout` (tokens are sorted);
 * - one-letter typos between long keys (≥ 8 chars) of the same type and project, against rooms already known
 *   (LLM distillers only, see RoomRegistry).
 * What does not merge: abbreviations and synonyms (`auth` vs `authentication`, `db` vs `database`). Telling
 * them apart needs knowledge a deterministic rule does not have (`auth` may be `author`), and a wrong merge
 * hides exchanges in the wrong room, which is worse than one alias too many.
 * File rooms are keyed by the workspace-relative path, lower-cased, never stemmed: `auth.ts` and
 * `auth.test.ts` are different files.
 */

/** An exchange's rooms as stored: the offline distiller's concept candidates (4), a file and a workflow room. */
export const MAX_ROOMS_PER_EXCHANGE = 6;

/** Rooms of a type and project whose keys differ by one edit merge only when keys are at least this long. */
const TYPO_MIN_LENGTH = 8;

/** Splits camelCase and separators, lower-cases, stems; '' when nothing word-like is left. */
export function normaliseKey(type: RoomType, raw: string): string {
  if (type === 'file') return normalisePath(raw);
  const tokens = raw
    .normalize('NFKC')
    // an acronym's plural is the acronym (`user IDs` is the room of `user_id`, `APIs` of `API`)
    .replace(/(\p{Lu}{2,})s(?!\p{L})/gu, '$1')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    // a word after a digit (`p5Instance`, `H264Decoder`), not a code's last letter (`E2E`)
    .replace(/(\p{N})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map(stem);
  return [...new Set(tokens)].sort().join('_');
}

function normalisePath(raw: string): string {
  return raw.normalize('NFKC').trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/{2,}/g, '/').toLowerCase();
}

/**
 * A light, deterministic stemmer for identity only (never shown): plurals and -ing/-ed/-ation/-ctor/-e
 * endings of words in Latin script. Other scripts are lower-cased only: a wrong stem there would merge unrelated rooms.
 */
export function stem(token: string): string {
  if (!/^[a-z]+$/.test(token) || token.length <= 3) return token;
  let t = token;
  if (t.endsWith('ies') && t.length > 4) t = t.slice(0, -3) + 'y';
  else if (t.endsWith('sses')) t = t.slice(0, -2);
  else if (/(x|ch|sh)es$/.test(t)) t = t.slice(0, -2);
  else if (t.endsWith('s') && !/(ss|us|is)$/.test(t)) t = t.slice(0, -1);
  if (t.length > 6 && t.endsWith('ation')) t = t.slice(0, -3);
  // an agent in -ctor is the room of its act in -ction: extractor → extraction, collector → collection (long
  // words only: a factor is no faction); the act keeps its ending, as "production" is not "product"
  else if (t.length > 8 && t.endsWith('ctor')) t = `${t.slice(0, -2)}ion`;
  else if (t.length > 5 && t.endsWith('ing')) t = t.slice(0, -3);
  else if (t.length > 4 && t.endsWith('ed')) t = t.slice(0, -2);
  // undouble after a cut suffix (embedding → embedd → embed) and drop a final e (cache/caching → cach)
  if (/([b-df-hj-np-tv-z])\1$/.test(t) && !/(ll|ss|zz)$/.test(t)) t = t.slice(0, -1);
  if (t.length > 4 && t.endsWith('e')) t = t.slice(0, -1);
  return t;
}

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
