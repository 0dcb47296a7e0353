import { isStopWord } from './stopWords';
import { THEME_WORD_RANK, type WordRarity, words } from './wordRarity';

/**
 * The things a request names, in the order asked: what a person remembers of what they asked for ("move the
 * files into projects/Claude-Zima, distinguish zimaboard(proxmox) vs slate(BE3600)"; "I'd lean towards ramda").
 * A headline's request is cut to its share of the room, often before these; the detail line then carries them
 * (offline.ts). Each is a verbatim substring of the request.
 */

/** At most this many of the request's names join the detail line: the exchange's own details keep the rest. */
export const MAX_REQUEST_NAMES = 2;
const MAX_NAME_CHARS = 80;

/** What the rest of the exchange says about a word or a token of its request. */
export interface NameEvidence {
  /** Whether the exchange writes a (lower-case) word with a capital ("Ramda", "DHCP") more often than without. */
  writtenAsName(word: string): boolean;
  /** Whether a tool call of the exchange holds the text: "projects/Claude-Zima" is a folder it touched, "bold/italic" a choice. */
  inToolCall(text: string): boolean;
}

/** A code span as the detail line takes one (details.ts). */
const CODE_SPAN_RE = /`([^`\n]{3,80})`/gu;
/** A name by its shape: a path or dotted name, a snake_ or camelCase identifier, letters with digits, a call `name(arg)`. */
const SHAPED_RE = /\p{L}[/._]\p{L}|[/._]\p{L}.*\p{L}|\p{Ll}\p{Lu}|\p{L}\p{N}|\p{N}\p{L}|\p{L}\(\p{L}[^()]*\)$/u;
/** Two words joined by a slash, nothing else: a choice ("suspend/resume") unless the exchange used it as a path. */
const WORD_OR_WORD_RE = /^[\p{L}\p{N}-]+\/[\p{L}\p{N}-]+$/u;
/** Punctuation around a word in a sentence, not part of the name. */
const LEADING_RE = /^["'“‘«(<[`]+/u;
const TRAILING_RE = /["'”’»)>\].,;:!?…`]+$/u;

/**
 * The names of a request, in its order, each once: its code spans, then its words shaped like names (a path, an
 * identifier, letters with digits) and its name words (see isNameWord) with the capitalised words around them
 * ("Gemini CLI", "Lenovo Legion"). No link, redaction marker or escaped string.
 */
export function requestNames(request: string, stats: WordRarity, evidence: NameEvidence): string[] {
  const names: string[] = [];
  const add = (name: string): void => {
    if (name.length >= 3 && name.length <= MAX_NAME_CHARS && !names.includes(name)) names.push(name);
  };
  const spans = [...request.matchAll(CODE_SPAN_RE)];
  for (const m of spans) add(m[1]!.trim());
  const prose = spans.length > 0 ? request.replace(CODE_SPAN_RE, ' ') : request;
  // a run of capitalised words inside a sentence, ended by punctuation; a name when one of its words is
  let run: string[] = [];
  let named = false;
  const endRun = (): void => {
    if (named) add(run.join(' '));
    run = [];
    named = false;
  };
  let opening = true;
  for (const token of prose.split(/\s+/u)) {
    const name = trimmed(token);
    const ws = words(name).filter((w) => !isStopWord(w) && /\p{L}{2}/u.test(w));
    const usable = ws.length > 0 && !/:\/\/|^www\.|\\|\[REDACTED/iu.test(token);
    if (usable && SHAPED_RE.test(name)) {
      endRun();
      if (isShapedName(name, ws, stats, evidence)) add(name);
    } else if (usable && !opening && /^\p{Lu}/u.test(name) && ws.every((w) => !stats.isGeneric(w))) {
      run.push(name);
      named ||= ws.some((w) => isNameWord(w, stats, evidence));
      if (name !== token) endRun();
    } else {
      endRun();
      if (usable && ws.some((w) => isNameWord(w, stats, evidence))) add(name);
    }
    // a capital after "Error:" or a full stop opens a sentence
    opening = /[.:!?]$/u.test(token);
  }
  endRun();
  return names;
}

/** A token without the sentence's punctuation around it; a parenthesis stays when it closes inside ("zimaboard(proxmox)"). */
function trimmed(token: string): string {
  const t = token.replace(LEADING_RE, '');
  const closes = t.includes('(') ? t.replace(/[.,;:!?…"'”’`]+$/u, '') : '';
  return closes.endsWith(')') ? closes : t.replace(TRAILING_RE, '');
}

/** A shaped token names a thing unless it is two words joined by a slash the exchange never used as a path, or only generic words ("e.g"). */
function isShapedName(token: string, ws: readonly string[], stats: WordRarity, evidence: NameEvidence): boolean {
  if (WORD_OR_WORD_RE.test(token)) return evidence.inToolCall(token);
  return ws.some((w) => !stats.isGeneric(w));
}

/**
 * A word that names a thing, as a room's name word must (offlineRooms.ts): Latin letters (the English list judges
 * no other script: "Скажи" quoted in an English request is none), rare in English, its singular too ("Ramda",
 * "Proxmox", "DHCP"; not "Providers", "Phase"), and written with a capital more often than without (not the jargon
 * "deprecated", "repo", nor a typo, "avalible").
 */
function isNameWord(word: string, stats: WordRarity, evidence: NameEvidence): boolean {
  if (!/^[a-z][a-z\d]*$/u.test(word)) return false;
  const singular = word.replace(/(?<=[^s])s$/u, '');
  return stats.rank(word) > THEME_WORD_RANK && stats.rank(singular) > THEME_WORD_RANK && evidence.writtenAsName(word);
}
