import { detached, memoize } from './memo';
import type { RoomType } from './model';

/**
 * Room keys: the machine form of a room's name, for identity only (distill/rooms.ts hashes it with the type and
 * project); labels stay human. Pure, so the store reads keys as the distiller writes them (store/roomFamilies.ts).
 *
 * What merges (decided here, tested in test/unit/rooms.test.ts):
 * - case, separators and camelCase: `Auth Service`, `auth-service`, `auth_service`, `AuthService` → `auth_service`
 *   (`p5Instance` and `p5instance` → `instance_p5`, `E2E` stays `e2e`);
 * - a version mark after a name: `MarkdownV2`, `Markdown v2` → `markdown` (`V8 engine` keeps its `v8`);
 * - plurals and common inflections (Latin script): `Services`, `authenticating`, `authentication`,
 *   `authenticated` each reduce to one stem, so each family is one room; so do a long -ct verb's act and
 *   agent: `fact extraction`, `fact extractor`, `extracts facts`;
 * - word order: `timeout retry` and `retry timeout` → `retry_timeout` (tokens are sorted).
 * What does not merge: abbreviations and synonyms (`auth` vs `authentication`, `db` vs `database`). Telling
 * them apart needs knowledge a deterministic rule does not have (`auth` may be `author`), and a wrong merge
 * hides exchanges in the wrong room, which is worse than one alias too many.
 * File rooms are keyed by the workspace-relative path, lower-cased, never stemmed: `auth.ts` and
 * `auth.test.ts` are different files.
 */

/** Splits camelCase and separators, lower-cases, stems; '' when nothing word-like is left. */
export function normaliseKey(type: RoomType, raw: string): string {
  if (type === 'file') return normalisePath(raw);
  return sortedUnique(keyWords(raw)).join('_');
}

/**
 * normaliseKey('concept', …) of a phrase written as words one space apart (`rate limiting`; `tabla de pedidos`
 * with its connector), from each word's key words, remembered by word: a phrase of plain words has its words' key
 * words, in order (see keyWords). Undefined when a word is not plain: the phrase's key is then made whole.
 */
export function phraseConceptKey(first: string, second: string, via?: string): string | undefined {
  const a = plainKeyWords(first);
  const b = a && plainKeyWords(second);
  return a && b ? phraseKeyOf(a, b, via) : undefined;
}

/** phraseConceptKey from its two words' plainKeyWords (a reader of consecutive phrases asks each word's once). */
export function phraseKeyOf(first: readonly string[], second: readonly string[], via?: string): string | undefined {
  if (via === undefined) {
    // two words of one key word each (nearly every phrase): sortedUnique's order without the arrays
    if (first.length === 1 && second.length === 1) {
      const a = first[0]!;
      const b = second[0]!;
      return a === b ? a : a < b ? `${a}_${b}` : `${b}_${a}`;
    }
    return sortedUnique([...first, ...second]).join('_');
  }
  const c = plainKeyWords(via);
  return c ? sortedUnique([...first, ...c, ...second]).join('_') : undefined;
}

/** keyWords of a plain word (null when it is not: PLAIN_WORDS_RE), each a copy that holds no longer text alive. */
export const plainKeyWords = memoize((word: string): readonly string[] | null => (PLAIN_WORDS_RE.test(word) ? mapped(keyWords(word), detached) : null), 50_000);

/**
 * `words.map(fn)` as one kind of array: the builtin's `map` makes a packed array and TurboFan's inlined one a holey
 * array, so the arrays sortedUnique and the concept scan read changed map once their makers were optimised, and code
 * compiled for the first (normaliseKey, the concept scan's addTheme and plainUses) was thrown away and compiled again.
 */
function mapped(words: readonly string[], fn: (word: string) => string): string[] {
  const out: string[] = [];
  for (const w of words) out.push(fn(w));
  return out;
}

/**
 * The distinct tokens in code-unit order (as `sort()` orders strings). Nearly every concept has one or two words:
 * those are ordered without a Set and a sort (a first index asks for ~60,000 keys).
 */
function sortedUnique(tokens: string[]): string[] {
  if (tokens.length < 2) return tokens;
  if (tokens.length === 2) {
    const [a, b] = tokens as [string, string];
    return a === b ? [a] : a < b ? tokens : [b, a];
  }
  return [...new Set(tokens)].sort();
}

/**
 * Words of ASCII letters, each lower-case after an optional capital, one space, hyphen or underscore apart
 * (`session middleware`, `Docker`, `full-text`, `retry_timeout`): nothing below splits them further.
 */
const PLAIN_WORDS_RE = /^[A-Za-z][a-z]*(?:[ _-][A-Za-z][a-z]*)*$/;
const PLAIN_SEPARATOR_RE = /[ _-]/;

/** The words of a concept's name as its key has them (split, lower-cased, stemmed), in the order written. */
function keyWords(raw: string): string[] {
  // most names are plain words: the same words, without the passes below
  if (PLAIN_WORDS_RE.test(raw)) return mapped(raw.toLowerCase().split(PLAIN_SEPARATOR_RE), stem);
  const words = raw
    .normalize('NFKC')
    // an acronym's plural is the acronym (`user IDs` is the room of `user_id`, `APIs` of `API`)
    .replace(/(\p{Lu}{2,})s(?!\p{L})/gu, '$1')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    // a word after a digit (`p5Instance`, `H264Decoder`), not a code's last letter (`E2E`)
    .replace(/(\p{N})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    // the same in lower case: `p5instance` is `p5Instance` (three letters at least: `e2e`, `k8s`, `2fa` stay whole)
    .replace(/(\p{N})(\p{Ll}{3,})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    // a version mark after a name is the name (`MarkdownV2`, `sudo_prompt_v3`); one that leads stays (`V8 engine`)
    .filter((t, i) => i === 0 || !VERSION_MARK_RE.test(t));
  return mapped(words, stem);
}

const VERSION_MARK_RE = /^v\d+$/;

/**
 * The keys a label could name a one-word concept room by, most specific first: its first written word with its
 * camelCase parts joined (`GitHub Actions` → `github`, the key of "Github"), then the first word its key splits
 * off (`GeminiClient` → `gemini`). store/roomFamilies.ts files a room under the first of these that is a room.
 */
export function leadingNames(label: string): string[] {
  const first = label.normalize('NFKC').trim().split(/\s+/u)[0] ?? '';
  const joined = keyWords(first.replace(/[-_.]+/gu, ' ').toLowerCase()).join('');
  const lead = keyWords(label)[0];
  return [...new Set([stem(joined), ...(lead !== undefined ? [lead] : [])])].filter(Boolean);
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
