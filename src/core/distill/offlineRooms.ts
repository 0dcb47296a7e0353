import { memoize } from '../memo';
import type { TouchKind } from '../model';
import { compareText } from '../order';
import type { DistillInput } from './distiller';
import { CHAT_VARIABLE, isRedaction, isReferenceTail, ScriptTally, withoutReferences } from './nonThemes';
import { contentWords, type ContentWord } from './contentWords';
import { normaliseKey, phraseKeyOf, plainKeyWords } from '../roomKey';
import { THEME_WORD_RANK, type WordRarity } from './wordRarity';
import type { RoomAssignment } from './types';
import type { VerbatimPart } from './verbatimParts';

/**
 * Offline room proposals: up to four concept candidates (themes the participants kept using), a file room
 * from the file most worked on, a workflow room from tool commands. Keys are proposed as written; rooms.ts
 * normalises them; the store's rooms read model shows a room only once it recurs (store/roomStats.ts), the
 * others stay on the exchange as facets.
 */

const FILE_RELEVANCE: Record<TouchKind, number> = { write: 0.9, edit: 0.9, read: 0.6, mention: 0.4 };

interface Workflow {
  readonly key: string;
  readonly label: string;
  readonly re: RegExp;
  /** Also matched against the user's prompt (not for words prose uses otherwise: "make sure"). */
  readonly inPrompt: boolean;
}

/** Matched against tool calls (commands, paths) and, where `inPrompt`, the user's prompt. */
const WORKFLOWS: readonly Workflow[] = [
  {
    key: 'tests',
    label: 'Tests',
    inPrompt: true,
    re: /\b(?:npm (?:run )?test|yarn test|pnpm test|pytest|jest|vitest|mocha|go test|cargo test|node --test|unittest|rspec|phpunit|playwright test)\b|\.(?:test|spec)\.[jt]sx?\b/i,
  },
  {
    key: 'git',
    label: 'Git',
    inPrompt: true,
    re: /\bgit (?:commit|push|pull|merge|rebase|checkout|switch|branch|diff|log|status|stash|cherry-pick|reset|add|tag|clone)\b|\bgh (?:pr|issue|run|release|repo)\b/i,
  },
  {
    key: 'build',
    label: 'Build',
    inPrompt: false,
    re: /\b(?:npm run build|yarn build|pnpm build|tsc|make|cmake|cargo build|go build|gradle|mvn|webpack|esbuild|vite build|docker build|docker compose build)\b/i,
  },
  {
    key: 'deploy',
    label: 'Deploy',
    inPrompt: true,
    re: /\b(?:deploy\w*|kubectl|helm|terraform (?:apply|plan)|docker push|vercel|netlify|fly deploy|gcloud|heroku|systemctl)\b/i,
  },
  {
    key: 'dependencies',
    label: 'Dependencies',
    inPrompt: true,
    re: /\b(?:npm (?:install|i|ci|uninstall)|yarn add|pnpm add|pip3? install|poetry add|uv (?:add|pip)|cargo add|go get|bundle install|brew install|apt(?:-get)? install)\b/i,
  },
  { key: 'lint', label: 'Lint & format', inPrompt: true, re: /\b(?:eslint|prettier|ruff|flake8|pylint|clippy|rustfmt|gofmt|biome)\b/i },
];

export { CHAT_VARIABLE };

/** A prompt about something broken, in the languages of the corpus. */
const TROUBLE_RE = /error|bug|fail|broken|crash|exception|traceback|doesn't work|not working|ошибк|не работает|сломал|fallo|falla|no funciona|erreur|fehler/iu;

export function proposeRooms(input: DistillInput, parts: readonly VerbatimPart[], stats: WordRarity): RoomAssignment[] {
  const rooms: RoomAssignment[] = [...conceptRooms(input.prompt, parts, stats)];
  const file = fileRoom(input);
  if (file) rooms.push(file);
  const workflow = workflowRoom(input.prompt, parts);
  if (workflow) rooms.push(workflow);
  return rooms;
}

/**
 * The file most worked on: written or edited before read before mentioned. A bare mentioned name
 * (`Nuxt.js`, `README.md` in prose) is too often not a file of the project to found a room on. A file room is
 * a file of the exchange's project, named by its path in the project: an exchange whose project is unknown
 * founds none (its `README.md` is any repository's), nor does a file outside its project (an absolute or
 * home path: another machine's folders, `/boot/…`, `~/.config/…`).
 */
function fileRoom(input: DistillInput): RoomAssignment | undefined {
  if (input.project === undefined) return undefined;
  const ranked = input.filesTouched.filter((f) => inProject(f.path) && (f.how !== 'mention' || f.path.includes('/'))).sort(
    (a, b) => FILE_RELEVANCE[b.how] - FILE_RELEVANCE[a.how] || compareText(a.path, b.path),
  );
  const top = ranked[0];
  return top ? { type: 'file', key: top.path, label: fileLabel(top.path), relevance: FILE_RELEVANCE[top.how] } : undefined;
}

/** A path as files.ts stores a file inside the project: relative, not climbing out of it. */
function inProject(path: string): boolean {
  return !/^(?:[/\\~]|[a-z]:|\.\.(?:[/\\]|$))/i.test(path);
}

/** A path short enough for the rooms tree: its last segments, led by an ellipsis when cut. */
export function fileLabel(path: string): string {
  if (path.length <= 60) return path;
  const segments = path.split('/');
  let label = segments.pop()!;
  while (segments.length && label.length + segments[segments.length - 1]!.length + 1 <= 56) label = `${segments.pop()}/${label}`;
  return `…/${label}`;
}

function workflowRoom(prompt: string, parts: readonly VerbatimPart[]): RoomAssignment | undefined {
  // (pushed into a literal: see nameRooms)
  const lines: string[] = [];
  for (const p of parts) if (p.kind === 'tool') lines.push(p.text);
  const errors = parts.filter((p) => p.kind === 'error').length;
  let best: { w: Workflow; hits: number } | undefined;
  for (const w of WORKFLOWS) {
    const hits = lines.filter((l) => w.re.test(l)).length + (w.inPrompt && w.re.test(prompt) ? 1 : 0);
    if (hits > 0 && (!best || hits > best.hits)) best = { w, hits };
  }
  const debugging = errors >= 2 || (errors >= 1 && TROUBLE_RE.test(prompt)) ? 1 + errors : 0;
  if (debugging > (best?.hits ?? 0)) return { type: 'workflow', key: 'debugging', label: 'Debugging', relevance: relevance(debugging) };
  return best ? { type: 'workflow', key: best.w.key, label: best.w.label, relevance: relevance(best.hits) } : undefined;
}

function relevance(hits: number): number {
  return +(0.5 + 0.1 * Math.min(hits, 4)).toFixed(2);
}

/** Concept candidates one exchange offers; the rooms read model shows those that recur (store/roomStats.ts). */
const MAX_CONCEPTS = 4;
const IDENTIFIER_RE = /^(?:\p{Ll}+(?:\p{Lu}[\p{Ll}\p{N}]*)+|\p{Lu}[\p{Ll}\p{N}]+(?:\p{Lu}[\p{Ll}\p{N}]*)+|[\p{L}][\p{L}\p{N}]*(?:_[\p{L}\p{N}]+)+)$/u;

export interface Theme {
  /** The first surface form as written, and its uses while it is the only one (most themes have one). */
  readonly surface: string;
  surfaceUses: number;
  /**
   * Surface forms as written, with how often each was used (the label is the most used): made when a second form
   * comes (the corpus's exchanges make ~60,000 themes a pass, most of them used once).
   */
  surfaces: Map<string, number> | undefined;
  tf: number;
  inPrompt: boolean;
  /** An identifier or a phrase: a theme by its form. A capitalised word is one by how it is used (`named`). */
  sure: boolean;
  /** Uses of a capitalised word as a name: not after another capitalised word (see ContentWord.titled). */
  named: number;
  /** Its words, lower-cased: its IDF (their mean) is asked only of a theme that is scored. */
  readonly lowerWords: readonly string[];
  readonly words: number;
  /** Its first word, lower-cased: the script it is written in (nonThemes.ts ScriptTally). */
  readonly first: string;
}

/**
 * Concept candidates: themes a person would name, not words. A theme is two adjacent content words
 * ("rate limiting", "session middleware"), an identifier or error name (`sessionMiddleware`, `TypeError`,
 * `retry_timeout`), or a name rare in English ("Nuxt", "Docker"). Generic
 * words (the language's 3,000 most frequent, wordRarity.ts) never make a theme alone, nor do two of them
 * together ("next step"). A theme must be used twice in the exchange or asked about by the human. Up to
 * MAX_CONCEPTS candidates are proposed, keyed by rooms.ts's normal form; whether a candidate becomes a
 * room in the tree is decided over the whole store (3+ exchanges from 2+ conversations), so an exchange's
 * candidates depend on nothing but the exchange.
 */
function conceptRooms(prompt: string, parts: readonly VerbatimPart[], rarity: WordRarity): RoomAssignment[] {
  const scan = conceptScan(prompt, parts, rarity);
  const { themes, scripts } = scan;

  const scored: Array<{ key: string; label: string; score: number }> = [];
  // a capitalised word is a name when the exchange writes it so more often than as a common word in lower case
  // ("Docker", "Chrome"; not the "Apps" of "Web Apps" and "the apps you installed"); words of another script
  // than the exchange's are quoted text (nonThemes.ts)
  const eligible = new Map<string, Theme>();
  for (const [k, t] of themes) {
    if ((t.tf >= 2 || t.inPrompt) && (t.sure || (t.named > 0 && t.named > plainUses(scan, k))) && scripts.allows(t.first)) eligible.set(k, t);
  }
  const named = nameRooms(eligible);
  for (const [k, t] of eligible) {
    if (named.dropped.has(k)) continue;
    const idf = t.lowerWords.reduce((acc, w) => acc + rarity.idf(w), 0) / t.lowerWords.length;
    const score = Math.log1p(t.tf) * idf * (t.words > 1 ? 1.3 : 1) * (t.inPrompt ? 1.2 : 1);
    const label = themeLabel(t);
    scored.push({ key: named.keyedBy.get(k) ?? label, label, score });
  }
  scored.sort((a, b) => b.score - a.score || compareText(a.label, b.label));
  return scored.slice(0, MAX_CONCEPTS).map(({ key, label, score }, i) => ({
    type: 'concept',
    key,
    label,
    relevance: i === 0 ? 0.9 : Math.max(0.3, +(0.9 * (score / scored[0]!.score)).toFixed(2)),
  }));
}

/**
 * One exchange's concept scan: its themes, the scripts its words are written in, its plain words. The steps below are
 * functions of the module, not closures made in each conceptRooms call: V8 holds a closure's optimised code only
 * while one of its closures lives, so each full collection between two exchanges cost their compilation again
 * (`--trace-opt`: `add` 6 times, `plainUses` 5, `keysOf` 4, `count` 3 in one worker distilling the corpus).
 */
export interface ConceptScan {
  readonly themes: Map<string, Theme>;
  readonly scripts: ScriptTally;
  /**
   * Lower-case uses in prose (not opening a sentence, not code), in order, counted by key (plainUses) only when a
   * capitalised word asks: the word's uses as a common word.
   */
  readonly plainWords: string[];
  /** The plain words' uses by concept key, made when a capitalised word first asks (plainUses). */
  plain: Map<string, number> | undefined;
  readonly rarity: WordRarity;
}

/** The themes of the prompt and of the assistant's texts, latest first, up to a budget: long exchanges repeat themselves. */
export function conceptScan(prompt: string, parts: readonly VerbatimPart[], rarity: WordRarity): ConceptScan {
  const scan: ConceptScan = { themes: new Map(), scripts: new ScriptTally(), plainWords: [], plain: undefined, rarity };
  scanWords(scan, prompt.slice(0, 8_000), true);
  let budget = 12_000;
  for (let i = parts.length - 1; i >= 0 && budget > 0; i--) {
    const p = parts[i]!;
    if (p.kind !== 'assistant') continue;
    scanWords(scan, p.text.slice(0, Math.min(8_000, budget)), false);
    budget -= p.text.length;
  }
  return scan;
}

/** A theme's use: its lower-case words (`second` undefined for a word alone; their list made only for a new theme). */
function addTheme(
  scan: ConceptScan,
  first: string,
  second: string | undefined,
  surface: string,
  inPrompt: boolean,
  use: 'sure' | 'named' | 'titled',
  phraseKey: string | undefined,
): void {
  const key = phraseKey ?? conceptKey(surface);
  if (!key || isRedaction(first) || (second !== undefined && isRedaction(second))) return;
  let t = scan.themes.get(key);
  if (!t) {
    const lowerWords = second === undefined ? [first] : [first, second];
    scan.themes.set(key, (t = { surface, surfaceUses: 0, surfaces: undefined, tf: 0, inPrompt: false, sure: false, named: 0, lowerWords, words: lowerWords.length, first }));
  }
  t.tf++;
  t.inPrompt ||= inPrompt;
  t.sure ||= use === 'sure';
  if (use === 'named') t.named++;
  if (t.surfaces !== undefined) t.surfaces.set(surface, (t.surfaces.get(surface) ?? 0) + 1);
  else if (surface === t.surface) t.surfaceUses++;
  else t.surfaces = new Map([[t.surface, t.surfaceUses], [surface, 1]]);
}

/** The themes of one text: its identifiers, names and phrases of two content words. */
function scanWords(scan: ConceptScan, text: string, inPrompt: boolean): void {
  const { scripts, plainWords, rarity } = scan;
  const seq = contentWords(withoutReferences(text));
  // a word's key words, asked once where it is both the second word of a phrase and the first of the next
  let keysAt = -1;
  let keys: readonly string[] | null = null;
  for (let i = 0; i < seq.length; i++) {
    const w = seq[i]!;
    if (!w.code) scripts.add(w.lower, inPrompt);
    if (!w.initial && !w.code && w.surface === w.lower) plainWords.push(w.lower);
    const kind = themeWordKind(w, rarity);
    // the head of a title or of a longer name ("Web Apps", "Docker Desktop") is capitalised as its part
    if (kind) addTheme(scan, w.lower, undefined, w.surface, inPrompt, kind === 'identifier' ? 'sure' : w.titled ? 'titled' : 'named', undefined);
    const next = seq[i + 1];
    // a phrase is two words next to each other or joined by a connector: only then is it weighed
    if (!next || !(next.adjacent || next.via) || !isThemePhrase(w.lower, next.lower, rarity)) continue;
    // an identifier of a value or an action is no part of a theme either ("bot_id check", "add_turn stores")
    if (w.valueOrAction || next.valueOrAction) continue;
    // (a phrase's key from its words' keys: most phrases are new, their words are not; phraseConceptKey's steps)
    if (keysAt !== i) keys = plainKeyWords(w.surface);
    const first: readonly string[] | null = keys;
    const second: readonly string[] | null = first && plainKeyWords(next.surface);
    keys = second;
    keysAt = first ? i + 1 : -1;
    const via = next.adjacent ? undefined : next.via;
    const phraseKey = first && second ? phraseKeyOf(first, second, via) : undefined;
    if (next.adjacent) addTheme(scan, w.lower, next.lower, `${w.surface} ${next.surface}`, inPrompt, 'sure', phraseKey);
    else addTheme(scan, w.lower, next.lower, `${w.surface} ${next.via} ${next.surface}`, inPrompt, 'sure', phraseKey);
  }
}

/**
 * The plain words' uses of a concept key. Their map is made when a capitalised word first asks (in a third of the
 * corpus's exchanges): a key for every plain word of every exchange was most of the concept keys made, and a count
 * by word for every exchange two lookups a word.
 */
function plainUses(scan: ConceptScan, k: string): number {
  if (!scan.plain) {
    const byWord = new Map<string, number>();
    for (const word of scan.plainWords) byWord.set(word, (byWord.get(word) ?? 0) + 1);
    const plain = new Map<string, number>();
    for (const [word, uses] of byWord) {
      const key = conceptKey(word);
      plain.set(key, (plain.get(key) ?? 0) + uses);
    }
    scan.plain = plain;
  }
  return scan.plain.get(k) ?? 0;
}

/**
 * A name ("E2E", "Claude") and the phrases made with it ("E2E testing", "E2E plan", "Claude Code") are one
 * room, keyed by the name: otherwise each exchange would sit in two rooms of the same topic, and the store would
 * show both. An exchange proposes it once, labelled by the phrase that carries most of the name's uses (the
 * name's count includes them), else by the name; the room's label is then the one its exchanges used most
 * (store/roomStats.ts). Returns the themes to drop and, for a phrase that labels a name's room, the name.
 */
function nameRooms(themes: ReadonlyMap<string, Theme>): { dropped: Set<string>; keyedBy: Map<string, string> } {
  const dropped = new Set<string>();
  const keyedBy = new Map<string, string>();
  // (pushed into a literal, not filtered and mapped: an array that map makes empty has another map than a filled
  // one, and the code compiled for one was thrown away at the other; a literal's arrays keep the kind it last held)
  const phrases: Array<{ key: string; t: Theme; tokens: Set<string> }> = [];
  for (const [key, t] of themes) if (t.words > 1) phrases.push({ key, t, tokens: new Set(key.split('_')) });
  for (const [key, t] of themes) {
    if (t.words > 1) continue;
    const tokens = key.split('_');
    const nesting = phrases.filter((p) => p.key !== key && !keyedBy.has(p.key) && tokens.every((k) => p.tokens.has(k)));
    if (nesting.length === 0) continue;
    // the most used phrase; ties go to the first in key order, so the choice does not depend on reading order
    const best = nesting.reduce((a, b) => (b.t.tf > a.t.tf || (b.t.tf === a.t.tf && b.key < a.key) ? b : a));
    for (const p of nesting) dropped.add(p.key);
    if (2 * best.t.tf > t.tf) {
      dropped.delete(best.key);
      dropped.add(key);
      keyedBy.set(best.key, themeLabel(t));
    }
  }
  return { dropped, keyedBy };
}

/** normaliseKey for concepts, memoised: the same phrases recur across a store's exchanges. */
const conceptKey = memoize((surface) => normaliseKey('concept', surface), 50_000);

/** Letters, digits, then letters again: no English word is so spelled, whatever its case (`E2E`, `e2e`, `i18n`, `k8s`). */
const LETTER_DIGIT_NAME_RE = /^\p{L}+\p{N}+\p{L}[\p{L}\p{N}]*$/u;
/** A hexadecimal run as long as a short commit hash: an id, not a name. */
const HEX_ID_RE = /^[0-9a-f]{7,}$/i;

/**
 * One word names a theme when it is an identifier or error name (`sessionMiddleware`, `TypeError`), a code of
 * letters and digits in any case (`E2E` and `e2e` are one name), or a name: capitalised inside a sentence and
 * rare in English, in the plural too ("Nuxt", "Vitest", "Docker"; not the "Modes" or "Commits" of a title). A
 * plain word never does, however rare in English: "refactor", "config", "codebase" are the generic words of
 * agent conversations, and no English list ranks them so. Returns which of these it is, if any.
 */
function themeWordKind(w: ContentWord, rarity: WordRarity): 'identifier' | 'name' | undefined {
  // a word in lower-case ASCII letters (most of prose) is none of these: no capital, underscore or digit
  if (w.lower.length < 3 || /^[a-z]+$/.test(w.surface)) return undefined;
  if (IDENTIFIER_RE.test(w.surface)) return w.valueOrAction ? undefined : 'identifier';
  if (LETTER_DIGIT_NAME_RE.test(w.surface) && !HEX_ID_RE.test(w.surface)) return 'identifier';
  if (w.initial || !/^\p{Lu}[\p{Ll}\p{N}]+$/u.test(w.surface) || !/^[a-z0-9]+$/.test(w.lower)) return undefined;
  // (the singular made only for a word rare enough itself)
  return rarity.rank(w.lower) > THEME_WORD_RANK && rarity.rank(w.lower.replace(/(?<=[^s])s$/, '')) > THEME_WORD_RANK ? 'name' : undefined;
}

/**
 * Heads of a phrase that names a file or folder by its kind ("py file", "configuration files", "home
 * directory"): which file it was is the file rooms' business (keyed by path), and a kind of file is no topic.
 */
const FILE_HEADS = new Set(['file', 'files', 'folder', 'folders', 'directory', 'directories', 'dir', 'dirs']);

/**
 * Two content words, at least one of them not generic, none a single letter, neither an adverb or a
 * superlative ("loads successfully", "latest model": the name, if any, is the rest), not a kind of file, not
 * a reference field ("user IDs", "chat id": nonThemes.ts).
 */
function isThemePhrase(a: string, b: string, rarity: WordRarity): boolean {
  return (
    a.length >= 2 &&
    b.length >= 2 &&
    a !== b &&
    !FILE_HEADS.has(b) &&
    !isReferenceTail(b) &&
    !(rarity.isGeneric(a) && rarity.isGeneric(b)) &&
    !rarity.isAdverbOrSuperlative(a) &&
    !rarity.isAdverbOrSuperlative(b)
  );
}

/** A theme's label: its most used surface form (mostUsed). */
function themeLabel(t: Theme): string {
  return t.surfaces === undefined ? t.surface : mostUsed(t.surfaces);
}

/** The most used surface form; ties go to the first in sort order, so the result does not depend on reading order. */
export function mostUsed(surfaces: ReadonlyMap<string, number>): string {
  let best = '';
  let bestCount = 0;
  for (const [s, c] of surfaces) if (c > bestCount || (c === bestCount && s < best)) [best, bestCount] = [s, c];
  return best;
}
