import { sameExchange } from '../../src/core/search/copies';
import { isStopWord } from '../../src/core/distill/stopWords';
import { englishRarity, words } from '../../src/core/distill/wordRarity';

/**
 * The defects of a headline (the distilled core) a reader meets, by class (issue 39). Written from the issue's
 * examples before the distiller was changed and not tuned to its output; each detector is a plain rule a
 * reader can check by eye:
 * - `filler`: the assistant's part opens with an announcement or an interjection ("Let me…", "I'll…", "Sure",
 *   "Now", "First", "Looking at…") instead of what was done;
 * - `narration`: progress titles run together ("Analyzing X Evaluating Y") or an answer that is one
 *   ("Planning persona investigation");
 * - `droppedSpan`: a sentence broken where the source lost a code span ("backup the database to and start",
 *   "The is a Redis runtime directory", "packages (,,, )");
 * - `bare`: nothing but a contentless request ("do it", "resume") with no answer or a contentless one
 *   ("hi → I'm Claude Code, ready to help");
 * - `repeat`: the same headline as another exchange that is not a copy of this one (copies: search/copies.ts);
 * - `overLong`: more than MAX_HEADLINE_CHARS characters;
 * - `empty`: no headline at all.
 * The detail line (specific context) is checked apart: `noisyDetail` (digits and punctuation only: "2024",
 * "0.0.1").
 */

export const MAX_HEADLINE_CHARS = 140;
export const DEFECTS = ['filler', 'narration', 'droppedSpan', 'bare', 'repeat', 'overLong', 'empty'] as const;
export type Defect = (typeof DEFECTS)[number];

export interface CheckedExchange {
  readonly id: string;
  readonly agent: string;
  readonly prompt: string;
  readonly verbatim: string;
  readonly core: string;
  readonly context: string;
}

const JOINER = ' → ';

/** The request and the assistant's part of a headline (`request → answer`); a headline without the joiner is one or the other. */
export function headlineParts(e: Pick<CheckedExchange, 'core' | 'prompt'>): { request: string; answer: string } {
  const at = e.core.indexOf(JOINER);
  if (at >= 0) return { request: e.core.slice(0, at), answer: e.core.slice(at + JOINER.length) };
  const head = flat(e.core).replace(/…$/, '').slice(0, 30);
  return flat(e.prompt).includes(head) && head.length > 0 ? { request: e.core, answer: '' } : { request: '', answer: e.core };
}

const FILLER_RE = new RegExp(
  String.raw`^(?:let me|let's|let us|now\b|i'll|i will|i'm going to|i am going to|i'm now|i need to|i'm about to|` +
    String.raw`sure\b|understood|got it|okay|ok\b|alright|all right|great\b|perfect\b|excellent\b|good\b|absolutely|` +
    String.raw`certainly|of course|first\b|next\b|then\b|looking at|i see\b|i can see|you're right|you are right|` +
    String.raw`thanks|thank you|déjame|voy a|perfecto|listo|vale\b|claro|entendido|давайте|сейчас|отлично|хорошо|готово|понял)`,
  'iu',
);

export function hasFillerOpener(e: Pick<CheckedExchange, 'core' | 'prompt'>): boolean {
  const { answer } = headlineParts(e);
  return FILLER_RE.test(answer.replace(/^[\s"'“*_]+/u, '').replace(/’/gu, "'"));
}

/** Verbs of the progress titles agents show while they work (Copilot's thinking headers, Codex's preambles). */
const PROGRESS_VERBS =
  'Analyzing|Evaluating|Searching|Preparing|Checking|Reviewing|Investigating|Planning|Considering|Inspecting|Examining|' +
  'Outlining|Gathering|Diagnosing|Selecting|Organizing|Starting|Handling|Verifying|Exploring|Summarizing|Marking|' +
  'Calling|Extracting|Ignoring|Running|Updating|Identifying|Confirming|Removing|Adjusting|Resolving|Simulating|' +
  'Requesting|Needing|Providing|Reading|Scanning|Locating|Finalizing|Clarifying|Assessing|Drafting|Designing|Thinking';
const PROGRESS_OPENER_RE = new RegExp(String.raw`^(?:${PROGRESS_VERBS})\b`, 'u');
/**
 * A capitalised -ing word after a lower-case word or code with no punctuation between: two titles run together
 * ("usage Evaluating"), not a name ("Native Messaging", "Secret Scanning").
 */
const RUN_TOGETHER_RE = /(?:^|\s)[\p{Ll}\p{N}_`(][^\s]*[\p{Ll}\p{N})`'"’]\s+\p{Lu}\p{Ll}{2,}ing\b/u;

export function hasNarration(e: Pick<CheckedExchange, 'core' | 'prompt'>): boolean {
  const { answer } = headlineParts(e);
  return PROGRESS_OPENER_RE.test(answer) || RUN_TOGETHER_RE.test(answer);
}

/** Two backticks with nothing between (not a fence): a code span the export lost. */
const EMPTY_SPAN_RE = /(?<!`)``(?!`)/g;
/** What a lost span leaves in a sentence: an article before a verb or conjunction, a preposition before one, lone commas. */
const BROKEN_TEXT_RES = [
  // an article before a verb or conjunction: "The is a Redis directory" ("Option A and", "the to-do list": English)
  /(?:(?<![\w-])(?:[Tt]he|an?)|(?:^|[.!?→]\s+)An?)\s+(?:is|are|was|were|has|have|and|or|to|of|in|with|for|from|on)\b(?!-)/u,
  // not "asked for and", "plugged-in and", "to and from": a preposition that ends a phrase is English
  /(?<![\w-])(?:to|of|with|from|into|named|called)\s+(?:and|or|but|is|are|was|were)\b(?!\s+(?:from|to)\b)/iu,
  /\(\s*[,;]|,\s*,|\(\s+\)|\s[,;](?=\s|$)/u,
];

export function hasDroppedSpan(e: Pick<CheckedExchange, 'core' | 'verbatim'>): boolean {
  if (BROKEN_TEXT_RES.some((re) => re.test(e.core))) return true;
  const core = e.core.toLowerCase();
  // the words on both sides of an empty span in the source, joined in the headline
  const plain = flat(core.replace(/[`*_]/g, ''));
  for (const m of e.verbatim.matchAll(EMPTY_SPAN_RE)) {
    const before = words(e.verbatim.slice(Math.max(0, m.index - 60), m.index)).slice(-2);
    const after = words(e.verbatim.slice(m.index + 2, m.index + 62)).slice(0, 2);
    if (before.length === 2 && after.length === 2 && words(plain).join(' ').includes([...before, ...after].join(' '))) return true;
  }
  return false;
}

/** Words of chat control that name nothing: "continue", "proceed", "resume", "do it". */
const CONTROL_WORDS = new Set(
  'continue proceed resume retry redo fix implement go ahead yes yep yeah no nope ok okay please thanks thank hi hello hey exit quit stop done lgtm approve approved again erroring errors error'.split(' '),
);
const BARE_MAX_WORDS = 6;

/** A text that names nothing: a few words, each a function word, a generic English word or a chat control word. */
export function isContentless(text: string): boolean {
  const ws = words(text);
  if (ws.length > BARE_MAX_WORDS) return false;
  const rarity = englishRarity();
  return ws.every((w) => isStopWord(w) || CONTROL_WORDS.has(w) || rarity.isGeneric(w) || /^\d+$/.test(w));
}

export function isBare(e: Pick<CheckedExchange, 'core' | 'prompt'>): boolean {
  const { request, answer } = headlineParts(e);
  if (!request && !answer) return false;
  return (request === '' || isContentless(request)) && (answer === '' || isContentless(answer)) ;
}

export function isNoisyDetail(context: string): boolean {
  return /^[\d\s.:/,-]+$/u.test(context) && context.trim().length > 0;
}

function flat(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export interface HeadlineReport {
  readonly headlines: number;
  /** Headlines with each defect; `any`: with at least one of DEFECTS. */
  readonly counts: Record<Defect | 'any', number>;
  /** Headlines equal to another's, copies included (for comparison with `repeat`). */
  readonly repeatsWithCopies: number;
  readonly noisyDetails: number;
  /** The ids of the exchanges with each defect. */
  readonly examples: Record<Defect, string[]>;
}

/** Every exchange's defects, and the report over them (repeats need the whole set). */
export function checkHeadlines(list: readonly CheckedExchange[]): { report: HeadlineReport; defects: Map<string, Defect[]> } {
  const byCore = new Map<string, CheckedExchange[]>();
  for (const e of list) if (e.core) byCore.set(e.core, [...(byCore.get(e.core) ?? []), e]);
  const defects = new Map<string, Defect[]>();
  const counts = Object.fromEntries([...DEFECTS, 'any'].map((d) => [d, 0])) as Record<Defect | 'any', number>;
  const examples = Object.fromEntries(DEFECTS.map((d) => [d, [] as string[]])) as Record<Defect, string[]>;
  let repeatsWithCopies = 0;
  let noisyDetails = 0;
  for (const e of list) {
    const found: Defect[] = [];
    if (!e.core.trim()) found.push('empty');
    else {
      if (hasFillerOpener(e)) found.push('filler');
      if (hasNarration(e)) found.push('narration');
      if (hasDroppedSpan(e)) found.push('droppedSpan');
      if (isBare(e)) found.push('bare');
      if (e.core.length > MAX_HEADLINE_CHARS) found.push('overLong');
      const same = (byCore.get(e.core) ?? []).filter((o) => o !== e);
      if (same.length > 0) repeatsWithCopies++;
      if (same.some((o) => !sameExchange(e, o))) found.push('repeat');
    }
    if (isNoisyDetail(e.context)) noisyDetails++;
    for (const d of found) {
      counts[d]++;
      examples[d].push(e.id);
    }
    if (found.length > 0) counts.any++;
    defects.set(e.id, found);
  }
  return { report: { headlines: list.length, counts, repeatsWithCopies, noisyDetails, examples }, defects };
}
