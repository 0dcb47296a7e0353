import { withoutRepeatMark } from '../render';
import { completedSteps } from './agentPlan';
import { CHAT_VARIABLE } from './offlineRooms';
import { oneLine, type ProseSentence, proseLine, proseSentences, proseShare } from './prose';
import { isStopWord } from './stopWords';
import { fitTokens, wordPieceTokens, wordTokens } from './tokenFit';
import type { VerbatimPart } from './verbatimParts';
import { type WordRarity, words } from './wordRarity';
import { type ExchangeWords, exchangeWords } from './exchangeWords';

/**
 * The offline headline (`exchangeCore`): what was asked `→` what was done or decided, in the exchange's own
 * words (selected and trimmed, never written), at most MAX_HEADLINE_CHARS characters, code kept as code.
 * - the request is the human's most informative sentence without its courtesy ("Can you please …"); a request
 *   that names nothing ("do it", "proceed") is replaced by the assistant's own statement of the task ("I'll
 *   implement the quota check" → "implement the quota check"), or left out;
 * - the outcome is the assistant's final statement: the best sentence of its last text that states something
 *   (not an announcement "Let me…", a progress title "Analyzing…", a question or an offer), without the
 *   interjection it opens with ("Perfect! Now the…", "Looking at the logs, …");
 * - sentences are ranked by the exchange's topic words (rare in English, frequent in the exchange) among the
 *   words that will be shown (a long sentence is cut: its tail counts for nothing), earlier ones preferred.
 */

export const MAX_HEADLINE_CHARS = 140;
/** When both halves do not fit, the request keeps at least this much and the outcome the rest. */
const REQUEST_CHARS = Math.floor(MAX_HEADLINE_CHARS / 3);
const JOINER = ' → ';
/** How much earlier sentences are preferred, per position: the human's request comes first; an answer's summary opens its last text. */
const REQUEST_DECAY = 0.4;
const OUTCOME_DECAY = 0.3;

/**
 * How often the exchange's prose and tool calls use each word (exchangeWords.ts: a word's uses here are its `said` and
 * `inCalls`), and its weight (topicWeight) once asked.
 */
type TopicWeights = ExchangeWords;

export function buildHeadline(prompt: string, parts: readonly VerbatimPart[], stats: WordRarity, maxTokens: number, topic: TopicWeights = exchangeWords(prompt, parts)): string {
  const asked = pickRequest(prompt, topic, stats);
  // a piece of a conversation without the human's words or an answer (tool calls alone): its first call
  const answered = parts.some((p) => p.kind === 'assistant');
  const request = asked && namesNothing(asked, stats) ? (restatedTask(parts) ?? '') : asked || (answered ? '' : firstToolCall(parts));
  const room = MAX_HEADLINE_CHARS - (request ? Math.min(request.length, REQUEST_CHARS) + JOINER.length : 0);
  const statement = planTitle(parts) ?? finalStatement(parts, topic, stats, room);
  const outcome = statement?.text ?? planDone(parts) ?? failure(parts) ?? '';
  // a bare "resume" with nothing after it is still what happened
  const headline = compose(request || (outcome ? '' : asked), outcome, maxTokens);
  if (!statement?.list) return headline;
  const listed = withList(headline, outcome, statement.list, maxTokens);
  // "Here's your current config at …:" says only that something follows; when none of it fits, what follows
  if (listed === headline && PRESENTING_RE.test(outcome)) return compose(request, statement.list.join('; '), maxTokens);
  return listed;
}

/** An outcome that only presents what follows it: "Here's the commit message…", "Here are the steps…". */
const PRESENTING_RE = /^here(?:['’]s| is| are)\b/iu;

/* ---- what was asked ---- */

/** The human's most informative sentence, among those that name something ("Different error this time:" does not). */
function pickRequest(prompt: string, topic: TopicWeights, stats: WordRarity): string {
  const asked = withoutBoilerplate(prompt);
  // the human's first sentences carry the request; later ones are often pasted logs
  const first = proseSentences(asked, 4).slice(0, 4);
  const naming = kept(first, (s) => !namesNothing(s.text, stats));
  const best = bestSentence(naming.length > 0 ? naming : first, topic, stats, REQUEST_DECAY, REQUEST_CHARS)?.text;
  return withoutColon(withoutCourtesy(best ?? (proseLine(asked) || loggedError(asked))));
}

/** A prompt that is only a pasted log (no prose): its first error line, else its first line. */
function loggedError(text: string): string {
  const lines = text.slice(0, 60_000).split('\n').filter((l) => /\p{L}{3}/u.test(l) && !/^\s*```/u.test(l));
  const line = lines.find((l) => /(?:Error|Exception|FAIL|[Ff]ailed|error:)/u.test(l)) ?? lines[0] ?? '';
  // pytest marks an error line with `E` and the failing line with `>`
  return oneLine(line.replace(/^\s*(?:[E>](?=\s))?/u, ''));
}

/**
 * Agent boilerplate in prompts: chat participants and commands (`@workspace /fix`, `@agent Continue:`), chat
 * variables (`#terminalLastCommand`), and Copilot's "Continue to iterate?" that is no request at all.
 */
function withoutBoilerplate(prompt: string): string {
  return prompt
    .replace(/^\s*@[\w-]+(?:\s+\/[\w-]+)?\s*:?\s*/u, '')
    .replace(/^\s*\/[\w-]+\s+/u, '')
    // a chat variable reads as what it names: `#file:src/a.ts` as the path, `#terminalLastCommand` as words
    .replace(CHAT_VARIABLE, (_, pre: string, name: string, arg?: string) => `${pre}${arg ?? name.replace(/(?<=[a-z])(?=[A-Z])/gu, ' ').toLowerCase()}`)
    .replace(/^\s*(?:Continue:\s*)?"?Continue to iterate\?"?\s*$/iu, '')
    .trim();
}

/** The first tool call of a piece, on one line: what a piece of tool calls alone did. */
function firstToolCall(parts: readonly VerbatimPart[]): string {
  const call = parts.find((p) => p.kind === 'tool');
  return call ? oneLine(call.text.split('\n')[0]!) : '';
}

/** "Can you please", "I want you to", "Please": courtesy before the request, not the request. */
const COURTESY_RE = /^(?:(?:please|pls|kindly|hey|ok|okay|so|now|also|and)[,!]?\s+|(?:can|could|would|will) (?:you|u)(?: please)?\s+|i (?:want|need|would like|['’]d like) you to\s+|i['’]d like you to\s+)+/iu;

function withoutCourtesy(request: string): string {
  const rest = request.replace(COURTESY_RE, '');
  return rest.split(' ').length >= 2 ? rest : request;
}

/** Words of chat control that name no task: "proceed", "implement it", "try again", "still erroring". */
const CONTROL_WORDS = new Set(
  ('continue proceed resume retry redo implement implementation fix fixes update apply execute go ahead yes yep yeah no nope ok okay lgtm ' +
    'approve approved again erroring errors error hi hello hey thanks recommended suggested proposed remaining option').split(' '),
);

/** A request of a few words, each a function word, a generic English word, a number or a chat control word. */
function namesNothing(request: string, stats: WordRarity): boolean {
  const ws = words(request);
  return ws.length <= 6 && ws.every((w) => isStopWord(w) || stats.isGeneric(w) || CONTROL_WORDS.has(w) || /^\d+$/.test(w));
}

/** The assistant's first statement of what it is about to do, without its "I'll": the task a bare "do it" asked for. */
function restatedTask(parts: readonly VerbatimPart[]): string | undefined {
  const first = parts.find((p) => p.kind === 'assistant');
  const opening = first && proseSentences(first.text, 1)[0];
  if (!opening || opening.heading) return undefined;
  const said = withoutOpener(opening.text);
  const task = said.replace(PROMISE_RE, '');
  return task !== said && task.split(' ').length >= 3 ? withoutColon(task.replace(/[.!]$/u, '')) : undefined;
}

/** The assistant promising the task ("I'll", "Let me"), not thinking aloud about it ("I need to", "I should"). */
const PROMISE_RE = /^(?:let me|i['’]ll|i will|i['’]m going to|i am going to|voy a|déjame)\s+(?:(?:help you|go ahead and|now|first)\s+)*/iu;

/* ---- what was done ---- */

/** Openers that announce work rather than state a result (several languages). */
const ANNOUNCEMENT_RE =
  /^(?:let me|let['’]s|let us|i['’]ll|i will|i['’]m going to|i am going to|i need to|we need to|i['’]m about to|i want to|we['’]ll|we will|i['’]m gonna|i should|déjame|voy a|vamos a|давайте|сейчас я)\s+(?:(?:help you|go ahead and|now|first|also|quickly|just|start by|then)\s+)*/iu;
/**
 * Interjections and lead-ins before a statement: "Now", "Perfect! Now", "Sure,", "Looking at the logs,",
 * "You're right,"; a dash or colon left in front. An interjection needs its punctuation ("Good news" is no "Good,").
 */
const OPENER_RE =
  /^(?:[—–:;,.-]+\s*|(?:now|so|ok|okay|alright|all right|first|next|then|finally|also)\b[,!.:;—–-]*\s+|(?:(?:sure|great|perfect|excellent|good|awesome|done|yes|right|well|absolutely|certainly|of course|understood|got it|thanks|thank you|perfecto|listo|vale|claro|отлично|хорошо|готово)(?: (?:question|catch|point|news|thing))?|(?:thanks|thank you) for [^—–.!:]{1,60})\s*[,!.:;—–-]+\s+|(?:looking at|based on|after (?:reviewing|checking|looking at)|according to)\b[^,]{1,80},\s+|(?:you['’]re|you are) (?:absolutely |exactly )?right(?: to [^,.;—–-]{1,60})?(?:[,.;!:]|\s[—–-])?\s+(?:that\s+)?)+/iu;
/**
 * "I can see (from the logs) that", "It looks like": a lead-in before what was seen; not before a question word
 * or a place ("I see what you mean", "I noticed in your paste that…" say something else).
 */
const SEEING_RE =
  /^(?:I (?:can )?see|I notice|I noticed|It (?:looks|seems) like)(?: from [^,]{1,60}? that| that)?\s+(?!(?:from|in|on|at|what|why|how|if|where|whether|now|here|to)\b)/u;
/** Work in progress, not its result: "I'm now reading the plan", "I'm considering a retry", a model's thinking "The user wants…". */
const IN_PROGRESS_RE = /^(?:the user(?:['’]s)?\b|(?:i['’]m|i am|we['’]re|we are) (?:now |currently |still |just )?\p{L}+ing\b)/iu;
/** A sentence opening with a gerund is most often a progress title run into its text ("Updating the UI…"). */
const GERUND_OPENER_RE = /^\p{Lu}\p{Ll}+ing\b/u;

/** Questions, offers and thanks end an answer without saying what it did. */
const OFFER_RE = /\?$|^(?:would you like|do you want|let me know|if you(?:['’]d)? (?:like|want)|feel free|should i|shall i|want me to|thanks|thank you)\b/iu;

function withoutOpener(sentence: string): string {
  const rest = sentence.replace(OPENER_RE, '').replace(SEEING_RE, '');
  if (rest === sentence || rest.split(' ').length < 3) return sentence;
  if (!/\p{L}/u.test(rest[0]!)) return rest;
  return rest[0]!.toUpperCase() + rest.slice(1);
}

/**
 * The first sentences of one assistant text that may end a headline, opener removed: no titles, questions or
 * offers. (Its last sentences were tried as well, for answers that conclude at the end: recall on the tuning
 * fold of the dev queries fell.)
 */
function statementCandidates(text: string): ProseSentence[] {
  const out: ProseSentence[] = [];
  for (const s of proseSentences(withoutAsides(text), 8, isStatement)) {
    if (out.length === 8) break;
    if (isStatement(s)) out.push({ text: withoutOpener(s.text), heading: s.heading, list: s.list });
  }
  return out;
}

/**
 * `sentences.filter(keep)` as one kind of array (the builtin's and TurboFan's filter and map make arrays of other
 * maps): bestSentence's code, compiled for the lists it met first, was thrown away at a list of the other kind.
 */
function kept(sentences: readonly ProseSentence[], keep: (s: ProseSentence) => boolean): ProseSentence[] {
  const out: ProseSentence[] = [];
  for (const s of sentences) if (keep(s)) out.push(s);
  return out;
}

/** A sentence that may end a headline: no title, question or offer. */
function isStatement(s: ProseSentence): boolean {
  return !s.heading && !OFFER_RE.test(s.text);
}

/**
 * Claude Code's explanatory output style sets background apart in "★ Insight" blocks between two rules ("macOS
 * uses PAM for sudo"): a lesson beside the work, not what was done.
 */
const INSIGHT_BLOCK_RE = /`?★ Insight[ ─━═]*`?[\s\S]*?\n`?[─━═]{10,}`?/gu;

function withoutAsides(text: string): string {
  return text.includes('★') ? text.replace(INSIGHT_BLOCK_RE, '\n\n') : text;
}

/**
 * The assistant's final statement: the best sentence of its last text (up to three back) that states
 * something, opener removed; failing that, its best announcement with the announcing words removed.
 */
function finalStatement(parts: readonly VerbatimPart[], topic: TopicWeights, stats: WordRarity, room: number): Statement | undefined {
  const replies = parts.filter((p) => p.kind === 'assistant');
  let announced: string | undefined;
  for (let i = replies.length - 1; i >= Math.max(0, replies.length - 3); i--) {
    const candidates = statementCandidates(replies[i]!.text);
    const statements = kept(candidates, (s) => !ANNOUNCEMENT_RE.test(s.text) && !IN_PROGRESS_RE.test(s.text));
    const best = bestSentence(statements, topic, stats, OUTCOME_DECAY, room);
    if (best) return { text: withoutColon(best.text), list: best.list };
    if (announced === undefined) {
      const task = bestSentence(candidates, topic, stats, OUTCOME_DECAY, room)?.text.replace(ANNOUNCEMENT_RE, '');
      if (task && task.split(' ').length >= 2) announced = withoutColon(task[0]!.toUpperCase() + task.slice(1));
    }
  }
  if (announced) return { text: announced };
  // nothing but questions and titles: the first of them, else the text as it stands
  const last = replies[replies.length - 1];
  if (!last) return undefined;
  const any = proseSentences(last.text, 1)[0]?.text;
  if (any) return { text: withoutColon(withoutOpener(any)) };
  // a text broken where the transcript lost its code spans reads wrong: no outcome rather than that
  const line = proseLine(last.text);
  return line ? { text: line } : undefined;
}

/**
 * In plan mode the answer is the plan (exitPlan.ts): its title when it opens with one ("Implementation Plan: Claude
 * Code Native Messaging for Helium Browser"), else (undefined here) its best sentence, as of any last text.
 */
function planTitle(parts: readonly VerbatimPart[]): Statement | undefined {
  const last = parts.filter((p) => p.kind === 'assistant').at(-1);
  if (!last?.plan) return undefined;
  const first = proseSentences(last.text, 1)[0];
  return first?.heading ? { text: withoutColon(first.text) } : undefined;
}

/** An exchange without an answer whose agent kept a to-do list: the steps it marked done, in its words. */
function planDone(parts: readonly VerbatimPart[]): string | undefined {
  const done = completedSteps(parts);
  return done.length > 0 ? done.join('; ') : undefined;
}

/** An exchange without an answer ended in an error: its first line of words says what happened ("Exit code: 1" says little). */
function failure(parts: readonly VerbatimPart[]): string | undefined {
  const error = parts.find((p) => p.kind === 'error');
  const lines = error?.text.split('\n').filter((l) => /\p{L}{3}/u.test(l)) ?? [];
  // not the runner's labels: "Exit code: 1", "Wall time: 0 seconds", "Output:"
  const line = lines.find((l) => !/^[\p{L} ]{0,24}(?::\s*[\d.]*\s*\p{L}*|\s+-?\d+)\s*$/u.test(l)) ?? lines[0];
  return line ? oneLine(withoutRepeatMark(line)) : undefined;
}

/** The outcome sentence, and the list it leads in to when it ends in a colon. */
interface Statement {
  readonly text: string;
  readonly list?: readonly string[];
}

/**
 * A headline whose outcome is a list's lead-in ("All four poems are now complete:") goes on with as many whole
 * items of the list as fit ("…: Sushi (mine); Thai Red Curry - fiery, bold"): the lead-in alone names little.
 * None when the outcome was cut, or an item holds the headline's arrow.
 */
function withList(headline: string, outcome: string, list: readonly string[], maxTokens: number): string {
  if (!outcome || !headline.endsWith(outcome)) return headline;
  let said = headline;
  for (const [i, item] of list.entries()) {
    if (item.includes('→')) break;
    const more = `${said}${i === 0 ? ': ' : '; '}${item.replace(/[\s.;,:]+$/u, '')}`;
    if (more.length > MAX_HEADLINE_CHARS || wordTokens(more) > maxTokens) break;
    said = more;
  }
  return said;
}

/* ---- ranking ---- */

/** A word's weight in the exchange: its IDF in English times 1 + ln(its uses in the exchange). */
function topicWeight(word: string, topic: TopicWeights, stats: WordRarity): number {
  const known = topic.get(word);
  // the uses in prose and tool calls (the counts hold the search terms' words of errors too: those have none here)
  const uses = known === undefined ? 0 : known.said + known.inCalls;
  // a word of the exchange is weighed once, however many sentences hold it
  if (uses === 0) return stats.idf(word);
  return (known!.weight ||= stats.idf(word) * (1 + Math.log(uses)));
}

function contentWords(text: string): string[] {
  return words(text).filter((w) => !isStopWord(w));
}

/**
 * Scores sentences by the topic weight of the distinct content words within their first `room` characters
 * (what the headline can show of them), times the square of their share of prose words (a pasted log line is
 * rare, not informative), halved for a gerund opener, earlier ones preferred (`decay` per position); ties go
 * to the earlier sentence. (Measured against the words per √length of the whole sentence: that picked short
 * lists of jargon over the summary before them.)
 */
function bestSentence(candidates: readonly ProseSentence[], topic: TopicWeights, stats: WordRarity, decay: number, room: number): ProseSentence | undefined {
  let best: ProseSentence | undefined;
  let bestScore = 0;
  for (const [i, s] of candidates.entries()) {
    const content = new Set(contentWords(s.text.slice(0, room)));
    let info = 0;
    for (const w of content) info += topicWeight(w, topic, stats);
    const gerund = GERUND_OPENER_RE.test(s.text) ? 0.5 : 1;
    // the prose share (at most 1) read only of a sentence that could beat the best with all of it
    if ((info * gerund) / (1 + decay * i) <= bestScore) continue;
    const score = (info * proseShare(s.text) ** 2 * gerund) / (1 + decay * i);
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  return best;
}

/* ---- fitting ---- */

/** A trailing colon announces what follows (a log, a tool call): a headline ends before it. */
function withoutColon(text: string): string {
  return text.replace(/[\s:]+$/u, '');
}

/** Request and outcome within the budget; when both do not fit, the outcome (what was done) keeps the larger share. */
function compose(request: string, outcome: string, maxTokens: number): string {
  // the task the assistant restated and then only announced is said once
  if (sameWords(request, outcome)) return cutHeadline(request, maxTokens);
  if (!outcome) return cutHeadline(request, maxTokens);
  if (!request) return cutHeadline(outcome, maxTokens);
  const whole = `${request}${JOINER}${outcome}`;
  if (whole.length <= MAX_HEADLINE_CHARS && wordTokens(whole) <= maxTokens) return whole;
  const requestChars = Math.max(REQUEST_CHARS, MAX_HEADLINE_CHARS - outcome.length - JOINER.length);
  const requestTokens = Math.max(Math.floor(maxTokens / 3), maxTokens - wordTokens(outcome) - 1);
  const requestPart = cutHeadline(request, requestTokens, requestChars);
  // a request cut to a prompt sign or a path stub ("$…") says nothing: the outcome alone
  if (!/\p{L}{2}/u.test(requestPart)) return cutHeadline(outcome, maxTokens);
  const rest = MAX_HEADLINE_CHARS - requestPart.length - JOINER.length;
  return `${requestPart}${JOINER}${cutHeadline(outcome, maxTokens - wordTokens(requestPart) - 1, rest)}`;
}

function sameWords(a: string, b: string): boolean {
  return words(a).join(' ') === words(b).join(' ');
}

/**
 * A headline within `maxTokens` and `maxChars`, cut where a reader can stop: at the end of a sentence or clause
 * (`.`, `;`, `:`, `,`, a dash) when that keeps at least half of what fits, else after a whole word with an
 * ellipsis; never inside a word or a code span. A trailing colon (an announcement of what follows) is dropped.
 */
export function cutHeadline(text: string, maxTokens: number, maxChars = MAX_HEADLINE_CHARS): string {
  const whole = withoutColon(text);
  if (whole.length <= maxChars && wordTokens(whole) <= maxTokens) return whole;
  // the longest whole-word prefix within both limits, with room for an ellipsis (1 token, 1 character)
  const ws = whole.split(' ');
  let n = 0;
  let tokens = 0;
  let chars = -1;
  for (const [i, w] of ws.entries()) {
    tokens += wordPieceTokens(w, i);
    chars += w.length + 1;
    if (tokens > maxTokens - 1 || chars > maxChars - 1) break;
    n = i + 1;
  }
  // one long first word (a path, a pasted blob): cut by characters
  if (n === 0) return `${fitTokens(ws[0]!, maxTokens - 1, false).slice(0, maxChars - 1)}…`;
  const prefix = closedCode(ws.slice(0, n).join(' '));
  const clause = clauseEnd(prefix);
  if (clause > 0 && clause >= prefix.length / 2) {
    const cut = prefix.slice(0, clause).replace(/[\s,;:–—-]+$/u, '');
    if (cut) return cut;
  }
  const words = prefix.replace(/[\s,;:–—-]+$/u, '');
  return words ? `${words}…` : '';
}

/** A prefix never ends inside a code span: an unclosed one is left out. */
function closedCode(prefix: string): string {
  const ticks = prefix.match(/`/g)?.length ?? 0;
  return ticks % 2 === 0 ? prefix : prefix.slice(0, prefix.lastIndexOf('`')).trimEnd();
}

/**
 * Where the last sentence or clause of `text` ends (after its punctuation), or -1; never inside a code span, nor
 * after a closing parenthesis ("The first (oldest)" is no clause).
 */
function clauseEnd(text: string): number {
  let end = -1;
  for (const m of text.matchAll(/[.!?;:,](?=\s)|\s[–—-](?=\s)/gu)) {
    const at = (m.index ?? 0) + (m[0].startsWith(' ') ? 0 : 1);
    if ((text.slice(0, at).match(/`/g)?.length ?? 0) % 2 === 0) end = at;
  }
  return end;
}
