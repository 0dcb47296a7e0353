import { blankBetween, endsSentence, joinedBetween } from './gaps';
import { namesValueOrAction } from './nonThemes';
import { isStopWord } from './stopWords';

/**
 * The content words of a text, in order, as room proposals read them (offlineRooms.ts): each with what its place
 * says (follows the previous one directly, opens a sentence, is code, joined by a connector). Paths, URLs and code
 * blocks are not prose and are skipped.
 */

export interface ContentWord {
  readonly lower: string;
  readonly surface: string;
  /** Follows the previous content word directly (no stop word, number or punctuation between). */
  readonly adjacent: boolean;
  /** Starts a sentence, line or list item (its capital says nothing about it being a name). */
  readonly initial: boolean;
  /**
   * Capitalised after another capitalised word ("Web Apps", "Docker Desktop", "JSON Schema"): the head of a
   * title or of a longer name, whose capital says nothing about the word alone.
   */
  readonly titled: boolean;
  /** Inside an inline code span (`docker compose`): a command's or a file's spelling, not the prose's. */
  readonly code: boolean;
  /** The one connector between this word and the previous content word ("tabla de pedidos"), if so joined. */
  readonly via: string | undefined;
  /** An identifier of a value or an action (`user_id`, `add_turn`: nonThemes.ts), in no theme. */
  readonly valueOrAction: boolean;
}

/** Prepositions that join the two nouns of a noun phrase in the corpus's languages ("rate of change"). */
const CONNECTORS = new Set(['of', 'de', 'del', 'des', 'du', 'da', 'do', 'di', 'der', 'von']);

/**
 * An English clitic after a word: a contraction ("I've", "don't", "we'll") or a possessive ("Google's").
 * Other apostrophes (French "l'API", "O'Brien") end the word as before.
 */
const CLITIC_RE = /['’](?:s|ve|ll|re|d|m|t)$/iu;

/**
 * A path or URL (`~/Desktop/app.desktop`, `/Users/me/Dev/shop`, `src/app.ts`, `Apps/`, `https://…`): its
 * segments are the file system's words, not the participants'. One slash between two words is no path
 * ("CI/CD", "FIDO2/U2F", "and/or"): the words stay, not joined into a phrase. A candidate is a whole run of path
 * characters that has a slash in it, tried only where such a run starts (from every character, the pattern backtracked
 * over the rest of each word: quadratic in its length).
 */
const SLASHED_RE = /(?<![\p{L}\p{N}_.~@:%+=‐‑/\\-])[\p{L}\p{N}_.~@:%+=‐‑-]*[/\\][\p{L}\p{N}_.~@:%+=‐‑/\\-]*/gu;
const PATH_RE = /^(?:[/\\~]|\.{1,2}[/\\]|[a-z]:)|:\/\/|[/\\][^/\\]*[/\\]|[/\\]$|\.[\p{L}\p{N}]+$/iu;

/** Whether text has a slash or a backslash: only then can it hold a path (cheaper than looking for one). */
function hasSlash(text: string): boolean {
  return text.includes('/') || text.includes('\\');
}

/** Text with each path replaced by a slash, looked for only in lines with a slash (no run spans lines). */
function withoutPaths(text: string): string {
  if (!hasSlash(text)) return text;
  return text
    .split('\n')
    .map((line) => (hasSlash(line) ? line.replace(SLASHED_RE, (run) => (PATH_RE.test(run) ? '/' : run)) : line))
    .join('\n');
}

/** A token written with a capital (not the pronoun "I"). */
function isCapital(token: string): boolean {
  // an ASCII first character is a capital when it is A to Z (no other ASCII character is \p{Lu}): no pattern run
  const c = token.charCodeAt(0);
  if (c < 128) return c >= 65 && c <= 90 && token !== 'I';
  return /^\p{Lu}/u.test(token);
}

/** An inline code span (`docker compose`). */
const CODE_SPAN_RE = /`[^`\n]+`/g;

/**
 * A word token where one starts (at a letter: it always matches there): hyphenated compounds are one word
 * ("full-text search" is one theme, not "full text" and "text search"). Sticky and tested at each letter a scan
 * finds, so no match array is made per word (~48 MB of them over the corpus).
 */
const WORD_TOKEN_AT = /[\p{L}][\p{L}\p{N}_]*(?:[-‐‑][\p{L}\p{N}]+)*(?:['’](?:s|ve|ll|re|d|m|t)(?![\p{L}\p{N}]))?/iuy;
/** The token's first character as WORD_TOKEN_AT reads it (with its flags: `i` lets a few marks fold to letters). */
const TOKEN_START_AT = /[\p{L}]/iuy;

/** Where the next word token starts at or after `from` (the text's length when none does), code point by code point. */
export function nextTokenStart(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c < 128) {
      if ((c | 0x20) >= 97 && (c | 0x20) <= 122) return at;
      continue;
    }
    TOKEN_START_AT.lastIndex = at;
    if (TOKEN_START_AT.test(text)) return at;
    // a surrogate pair is one code point: its second half is no place to start
    if (c >= 0xd800 && c <= 0xdbff && at + 1 < text.length && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) at++;
  }
  return text.length;
}

/**
 * Where WORD_TOKEN_AT's match at `start` ends when it is ASCII letters, digits and underscores followed by a character
 * that continues no part of the pattern (not a hyphen or an apostrophe, not beyond ASCII); -1 otherwise (the pattern
 * reads it). ASCII letters and digits are \p{L} and \p{N}, and no other ASCII character folds to one.
 */
export function asciiWordEnd(text: string, start: number): number {
  let at = start;
  for (; at < text.length; at++) {
    const c = text.charCodeAt(at);
    const letter = (c | 0x20) >= 97 && (c | 0x20) <= 122;
    if (!letter && !(at > start && ((c >= 48 && c <= 57) || c === 95))) break;
  }
  if (at === start) return -1;
  if (at === text.length) return at;
  const next = text.charCodeAt(at);
  return next >= 128 || next === 45 || next === 39 ? -1 : at;
}

/** Whether an ASCII word has a capital letter (else it is its own lower case). */
function hasAsciiCapital(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

/**
 * Content words in order, with whether each follows the previous one directly, so two adjacent content
 * words can form a phrase, whether it opens a sentence, follows a capitalised word or is code.
 * Code blocks, paths and URLs are skipped. A contraction ("I've") is a function word, and a possessive
 * ("Google's latest") names its owner and ends the phrase there: its halves are neither words of their own
 * ("ve added") nor the start of a phrase with what follows.
 */
export function contentWords(text: string): ContentWord[] {
  const unfenced = text.replace(/```[\s\S]*?(?:```|$)/g, '\n');
  const prose = withoutPaths(unfenced);
  // each code span's start and end, one after the other (a flat array of numbers: one kind of array, empty or not)
  const spans: number[] = [];
  for (const m of prose.matchAll(CODE_SPAN_RE)) spans.push(m.index, m.index + m[0].length);
  // spans and tokens are in order: the one span that can hold a token is the first not ending before it
  let span = 0;
  const out: ContentWord[] = [];
  let lastEnd = -1;
  // a connector right after a content word: the connector and where it ends
  let connector: { surface: string; end: number } | undefined;
  // the previous token, content word or not (tokens are read one at a time, none kept)
  let prevToken: string | undefined;
  let prevEnd = 0;
  for (let start = nextTokenStart(prose, 0); start < prose.length; start = nextTokenStart(prose, prevEnd)) {
    // most words are ASCII letters and digits ending at a character no pattern part can take: read by codes
    const asciiEnd = asciiWordEnd(prose, start);
    if (asciiEnd < 0) {
      WORD_TOKEN_AT.lastIndex = start;
      WORD_TOKEN_AT.test(prose);
    }
    const end = asciiEnd < 0 ? WORD_TOKEN_AT.lastIndex : asciiEnd;
    const token = prose.slice(start, end);
    const before = prevToken;
    const beforeEnd = prevEnd;
    prevToken = token;
    prevEnd = end;
    const initial = before === undefined || endsSentence(prose, beforeEnd, start);
    // (each pattern only where its character is: most words have neither an apostrophe, a trailing _ nor a Unicode hyphen)
    // (an ASCII word has no apostrophe and no Unicode hyphen, and is its own lower case when it has no capital)
    const clitic = asciiEnd < 0 && (token.includes("'") || token.includes('’')) ? CLITIC_RE.exec(token) : null;
    const word = clitic ? token.slice(0, clitic.index) : token;
    const bare = word.endsWith('_') ? word.replace(/_+$/, '') : word;
    const surface = asciiEnd < 0 && (bare.includes('‐') || bare.includes('‑')) ? bare.replace(/[‐‑]/gu, '-') : bare;
    const lower = asciiEnd < 0 || hasAsciiCapital(surface) ? surface.toLowerCase() : surface;
    const possessive = clitic !== null && /^.s$/iu.test(clitic[0]) && !isStopWord(lower);
    if ((clitic && !possessive) || isStopWord(lower) || lower.length < 2) {
      connector = lastEnd >= 0 && !clitic && CONNECTORS.has(lower) && blankBetween(prose, lastEnd, start) ? { surface, end } : undefined;
      lastEnd = -1;
      continue;
    }
    const via = connector && blankBetween(prose, connector.end, start) ? connector.surface : undefined;
    const titled = before !== undefined && isCapital(token) && joinedBetween(prose, beforeEnd, start) && isCapital(before);
    while (span < spans.length && spans[span + 1]! <= start) span += 2;
    const code = span < spans.length && start > spans[span]! && end < spans[span + 1]!;
    const valueOrAction = namesValueOrAction(surface);
    // every word the same fields in the same order (one shape: `via` is undefined when absent, not left out)
    out.push({ lower, surface, adjacent: lastEnd >= 0 && joinedBetween(prose, lastEnd, start), initial, titled, code, via, valueOrAction });
    connector = undefined;
    lastEnd = possessive ? -1 : end;
  }
  return out;
}
