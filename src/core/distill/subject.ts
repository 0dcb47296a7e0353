import type { AgentKind } from '../model';
import { DETAIL_SEPARATOR, detailItems } from './details';
import { isStopWord } from './stopWords';
import { fitTokens } from './tokenFit';
import { words } from './wordRarity';

/**
 * The conversation's subject on the detail line (issue 39 (b)): a person recalls an exchange by its conversation's
 * topic ("the time in the alacritty session we …"), which a follow-up's own words do not say ("resume", "what are
 * these", "yes please"). Such an exchange's detail line ends with its conversation's title, as its agent recorded it
 * (Claude Code's summary, Gemini CLI's, a SpecStory heading), when the title says a word the headline and the details
 * do not. Only where the request names little: a title on every exchange made a conversation's exchanges alike, and
 * the one a query looked for fell behind its neighbours.
 */

/** A request naming at most this many content words says too little to carry its conversation's subject. */
const BARE_REQUEST_WORDS = 3;
/** The subject's room, beyond the detail line's (a title is a short phrase; a longer one is cut at a word). */
export const SUBJECT_MAX_TOKENS = 12;

/** SpecStory names a chat it has no title for by the first 50 characters of its first prompt, cut inside a word. */
const SPECSTORY_CUT = 50;

/** The title to show as the exchange's subject, or '' (none recorded, the request names enough, nothing new). */
export function conversationSubject(prompt: string, title: string | undefined, said: string, agent?: AgentKind): string {
  let subject = oneLine(title);
  // "Recently, I had a problem where I made some (suppo": its whole words, marked as cut
  if (agent === 'specstory' && title?.length === SPECSTORY_CUT && subject.includes(' ')) subject = `${subject.slice(0, subject.lastIndexOf(' '))}…`;
  if (!subject || contentWords(prompt).size > BARE_REQUEST_WORDS) return '';
  const known = new Set(words(said));
  if (![...contentWords(subject)].some((w) => !known.has(w))) return '';
  return fitTokens(subject, SUBJECT_MAX_TOKENS, false);
}

/**
 * A detail line shown under its conversation's title (the recall card): without its last item when that item is the
 * subject conversationSubject ended it with (the title whole, or cut at a word), which the card shows already.
 */
export function withoutSubject(detailLine: string, title: string | undefined): string {
  const items = detailItems(detailLine);
  const last = oneLine(items[items.length - 1]?.replace(/…$/u, ''));
  const named = oneLine(title);
  // the whole title, or a cut of at least three words: a short item the title happens to begin with is a detail
  const isTitle = last === named || (named.startsWith(`${last} `) && last.split(' ').length >= 3);
  return last && isTitle ? items.slice(0, -1).join(DETAIL_SEPARATOR) : detailLine;
}

function oneLine(text: string | undefined): string {
  return text?.trim().replace(/\s+/gu, ' ') ?? '';
}

/** Words of 3+ characters that are neither function words nor numbers. */
function contentWords(text: string): Set<string> {
  return new Set(words(text).filter((w) => w.length >= 3 && !isStopWord(w) && !/^\d+$/u.test(w)));
}
