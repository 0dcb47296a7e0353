import { compareText } from '../order';
import type { DistillInput } from './distiller';
import { isStopWord } from './stopWords';
import { GENERIC_RANK, type WordRarity, words } from './wordRarity';
import type { PartKind, VerbatimPart } from './verbatimParts';

/**
 * Candidates for `specific_context` (paper: "one concrete detail: a number, error message, parameter name,
 * or file path, copied exactly"), ranked by how distinctive they are (rarity in the language of their
 * rarest word), where they occur and how often the exchange names them. Every candidate returned occurs
 * verbatim in the exchange; the offline detail line holds as many as fit (offline.ts).
 */

/** Between the details of the offline detail line: one token, no word (FTS5 and words() read it as a space). */
export const DETAIL_SEPARATOR = ' · ';

/** The details of a detail line, each a substring of its exchange's verbatim. */
export function detailItems(line: string): string[] {
  return line ? line.split(DETAIL_SEPARATOR) : [];
}

type DetailKind = 'code' | 'error' | 'path' | 'identifier' | 'number';

const KIND_WEIGHT: Record<DetailKind, number> = { error: 1.3, code: 1.2, path: 1.1, identifier: 1, number: 0.8 };
/** Where a detail was said matters: the human's words and the assistant's statements are what is remembered. */
const PART_WEIGHT: Record<PartKind, number> = {
  user: 1.25, assistant: 1.1, error: 1.15, tool: 1, result: 0.8, context: 0.7, other: 0.8,
};
const MAX_DETAIL_CHARS = 90;
/** Parts are read up to this length (tool output is already cut to 600 chars by render.ts). */
const MAX_PART_CHARS = 20_000;

/**
 * A code span of 3 to 80 characters; every pair of backticks is consumed, the empty and the longer spans too, so a
 * span never runs from one span's closing backtick to the next one's opening (the prose between two code spans,
 * ". However, I should have", where SpecStory lost a span's text: "the `` directory … with `05`. However, …").
 */
const CODE_SPAN_RE = /`(?:([^`\n]{3,80})|[^`\n]*)`/g;
const ERROR_RE = /\b[\w.]*(?:Error|Exception|error|ERROR|FAIL|FAILED|Fatal|fatal|panic|Traceback|failed)\b[^\n]*/g;
/**
 * A path: directories and a file with an extension, or a file of a known kind alone. Both alternatives start where a
 * run of `[\w.@-]` reaches a `/` or a `.`; the lookahead says so first, so a word without either (most words) is left
 * after one scan instead of being tried by each alternative in turn (the pattern's matches are the same: a unit test
 * runs it against the pattern without the lookahead; 35-40 % less time over the corpus's verbatim).
 */
export const PATH_RE =
  /(?<![\w.@…-])(?=[\w.@-]*[/.])(?:(?:[\w.@-]+\/)+[\w.@-]+\.[A-Za-z]\w{0,7}\b|(?<![\w.@/…-])[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|rs|go|java|rb|php|md|json|ya?ml|toml|css|html|sh|sql|c|cpp|h)\b)/g;
/**
 * An identifier: camelCase, snake_case, PascalCase or a long flag. Every alternative has a capital or an underscore
 * after a first letter and lower-case letters or digits, or starts with `--`; the lookahead says so first (the same
 * matches, tested as PATH_RE is).
 */
export const IDENT_RE =
  /(?<![\w.…-])(?=--|[A-Za-z][a-z0-9]*[A-Z_])(?:[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][a-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+|--[a-z][\w-]{2,})(?![\w-])/g;
/** A number with a unit, a version, or a number of 3+ digits; never a piece of a longer one ("0.0.1" of 127.0.0.1). */
const NUMBER_RE =
  /(?<![\d.])\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|minutes|min|h|MB|KB|GB|kB|%|px|rem|tokens|x|req\/s|rps)(?![\w])|(?<![\w.])v?\d+\.\d+\.\d+(?![.\d])|(?<![\w.])\d{3,}(?![\w.])/g;

/** Strings one of which every match of ERROR_RE holds: a part without any is not searched (the pattern backtracks over every word). */
const ERROR_WORDS = ['rror', 'ERROR', 'Exception', 'FAIL', 'atal', 'panic', 'Traceback', 'failed'];

const RULES: ReadonlyArray<{ kind: DetailKind; re: RegExp; group?: number; parts?: readonly PartKind[]; needs?: readonly string[] }> = [
  { kind: 'code', re: CODE_SPAN_RE, group: 1, parts: ['user', 'assistant'] },
  { kind: 'error', re: ERROR_RE, needs: ERROR_WORDS },
  { kind: 'path', re: PATH_RE },
  { kind: 'identifier', re: IDENT_RE },
  { kind: 'number', re: NUMBER_RE },
];

/** The leading candidates (at most 12, best first), deduplicated, each a verbatim substring of the exchange. */
export function detailCandidates(parts: readonly VerbatimPart[], input: DistillInput, stats: WordRarity): string[] {
  const project = input.project?.replace(/\/+$/, '');
  // a path matched inside the project starts after its leading slash: keep what follows the project
  const inside = project ? `${project.replace(/^\/+/, '')}/` : undefined;
  // each distinct detail once, with the best weight of where and as what it was found
  const weights = new Map<string, number>();
  const said: string[] = [];
  for (const part of parts) {
    const cut = part.text.length > MAX_PART_CHARS ? part.text.slice(0, MAX_PART_CHARS) : part.text;
    const text = part.kind === 'tool' ? toolArguments(cut) : cut;
    if (SAID.has(part.kind)) said.push(text);
    for (const rule of RULES) {
      if (rule.parts && !rule.parts.includes(part.kind)) continue;
      if (rule.needs && !rule.needs.some((literal) => text.includes(literal))) continue;
      const weight = KIND_WEIGHT[rule.kind] * PART_WEIGHT[part.kind];
      for (const m of text.matchAll(rule.re)) {
        const raw = (m[rule.group ?? 0] ?? '').trim();
        const detail = trimDetail(rule.kind === 'path' && inside && raw.startsWith(inside) ? raw.slice(inside.length) : raw);
        if (weight > (weights.get(detail) ?? 0)) weights.set(detail, weight);
      }
    }
  }
  const scored: Array<[string, number]> = [];
  for (const [detail, weight] of weights) {
    if (!acceptable(detail, project)) continue;
    scored.push([detail, weight * distinctiveness(detail, stats)]);
  }
  // final scores (with the repetition bonus, a scan of the verbatim each) only for the leading candidates; sorted
  // only when there are two or more (an empty array has another map than a filled one: the sort's lookup was
  // compiled for one and thrown away at the other)
  if (scored.length > 1) scored.sort(byScore);
  const ranked: Array<[string, number]> = [];
  for (let i = 0; i < scored.length && i < 12; i++) {
    const [detail, score] = scored[i]!;
    if (input.verbatim.includes(detail)) ranked.push([detail, score * topicBonus(said, detail) * lengthPenalty(detail)]);
  }
  if (ranked.length > 1) ranked.sort(byScore);
  if (ranked.length > 0) return ranked.map(([d]) => d);
  const rare = rarestWord(parts, stats);
  return rare ? [rare] : [];
}

function byScore(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || compareText(a[0], b[0]);
}

/** Cut long details at a word boundary (a prefix stays a verbatim substring) and trim punctuation. */
function trimDetail(raw: string): string {
  let d = raw.trim();
  if (d.length > MAX_DETAIL_CHARS) {
    const cut = d.lastIndexOf(' ', MAX_DETAIL_CHARS);
    d = d.slice(0, cut > 30 ? cut : MAX_DETAIL_CHARS);
  }
  return d.replace(/[\s,;:(]+$/u, '');
}

function acceptable(detail: string, project: string | undefined): boolean {
  if (detail.length < 3 || !/[\p{L}\p{N}]/u.test(detail)) return false;
  // the paper's prompt: "do not use the project path" — it is in every exchange of the project
  if (project && (detail.includes(project) || project.endsWith(detail))) return false;
  if (detail.startsWith('[REDACTED') || detail.includes(DETAIL_SEPARATOR)) return false;
  // a banner drawn in a code span (Claude Code's "`★ Insight ─────`") is decoration, not a name
  if (/[─━═]{3}/u.test(detail)) return false;
  return words(detail).some((w) => !isStopWord(w));
}

/**
 * IDF of the detail's rarest content word: one rare token makes a detail distinctive. A number is no word of
 * the language: alone ("2024", "8080", "1.2.0") it counts as a generic word, since it names nothing by itself.
 */
function distinctiveness(detail: string, stats: WordRarity): number {
  let best = 0;
  for (const w of words(detail)) if (!isStopWord(w) && !NUMERAL_RE.test(w)) best = Math.max(best, stats.idf(w));
  return best || NUMBER_IDF;
}

/** A decimal or hexadecimal numeral ("8080", "0x8000"): a number, no word. */
const NUMERAL_RE = /^(?:\d+|0x[\da-f]+)$/u;
const NUMBER_IDF = 1 + Math.log(1 + GENERIC_RANK / 50);

/** Where the exchange's topic is said: the human's and the assistant's words, tool calls and errors (not tool output). */
const SAID: ReadonlySet<PartKind> = new Set(['user', 'assistant', 'tool', 'error']);
const MAX_USES = 20;

/**
 * How much the exchange is about a detail: 1 + ln of its uses where people and agents said something (as
 * headline.ts weighs words), so the name a conversation keeps coming back to beats a rare one-off of a listing.
 */
function topicBonus(said: readonly string[], detail: string): number {
  // the parts joined by line breaks, part by part: a use spans two parts only when the detail holds a line break (a
  // number and its unit, `5\nms`), and only such a detail is looked for in the parts joined
  const texts = detail.includes('\n') ? [said.join('\n')] : said;
  let count = 0;
  for (const text of texts) {
    for (let i = text.indexOf(detail); i >= 0 && count < MAX_USES; i = text.indexOf(detail, i + detail.length)) count++;
  }
  return 1 + Math.log(Math.max(count, 1));
}

/**
 * A tool call without the agent's plumbing: the tool's name ("TodoWrite"), its arguments' keys ("activeForm":) and
 * a to-do step's state ("status":"in_progress").
 */
function toolArguments(call: string): string {
  return call.replace(/^\S+/u, ' ').replace(/"status"\s*:\s*"[\w-]+"/gu, ' ').replace(/"[\w-]+"\s*:/gu, ' ');
}

function lengthPenalty(detail: string): number {
  return detail.length > 60 ? 0.85 : 1;
}

/** Fallback: the rarest (then longest) content word the human or the assistant wrote (or any part, failing that). */
function rarestWord(parts: readonly VerbatimPart[], stats: WordRarity): string | undefined {
  const said = parts.filter((p) => p.kind === 'user' || p.kind === 'assistant');
  let best: string | undefined;
  let bestIdf = 0;
  for (const p of said.length ? said : parts) {
    for (const m of p.text.slice(0, 20_000).matchAll(/[\p{L}\p{N}_]{3,}/gu)) {
      const w = m[0];
      const lower = w.toLowerCase();
      if (isStopWord(lower)) continue;
      const idf = stats.idf(lower);
      // equally rare: the longer word is the more specific one
      if (idf > bestIdf || (idf === bestIdf && best !== undefined && (w.length > best.length || (w.length === best.length && w < best)))) {
        bestIdf = idf;
        best = w;
      }
    }
  }
  return best;
}
