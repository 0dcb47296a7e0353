/**
 * What looks like a concept theme to offlineRooms.ts but names no topic a person would browse (issue 39, seen on
 * the corpus): redaction markers and chat variables, identifiers of a value or an action (`user_id`, `is_active`,
 * `add_turn`, `maxStates`), and words of another script quoted in an exchange written in Latin script (a bot's
 * canned reply "Скажи конкретніше" quoted in an English conversation).
 */

/** A chat variable in a prompt (`#terminalLastCommand`, `#file:src/a.ts`): a reference, not a theme. */
export const CHAT_VARIABLE = /(^|\s)#([a-z]\w*)(?::(\S+))?/giu;

/**
 * A placeholder standing for removed text: a redaction marker (`[REDACTED_EMAIL]`, `[REDACTED:api-key]`,
 * `<REDACTED>`, `***REDACTED***`) or a bracketed upper-case tag (`[USER]`, `[DEBUG]`).
 */
const PLACEHOLDER_RE = /\[REDACTED\b[^\]\n]{0,40}\]|<REDACTED\b[^>\n]{0,40}>|\*+REDACTED\*+|\[[A-Z][A-Z0-9_]{1,30}\]/gu;

/** Text without its placeholders and chat variables, for theme counting (offsets are not kept). */
export function withoutReferences(text: string): string {
  // each pattern run only on text holding what every match of it holds (most prose has neither): the same text
  const placeholders = text.includes('REDACTED') || hasBracketedCapital(text) ? text.replace(PLACEHOLDER_RE, ' ') : text;
  return placeholders.includes('#') ? placeholders.replace(CHAT_VARIABLE, '$1') : placeholders;
}

/** Whether text has a `[` followed by A to Z (PLACEHOLDER_RE's bracketed tag starts so). */
function hasBracketedCapital(text: string): boolean {
  for (let at = text.indexOf('['); at >= 0; at = text.indexOf('[', at + 1)) {
    const c = text.charCodeAt(at + 1);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

/** A redaction marker written without its brackets (`REDACTED_EMAIL`, `redacted`). */
export function isRedaction(lowerWord: string): boolean {
  return lowerWord.startsWith('redacted');
}

/**
 * First parts of an identifier that make it a function (a verb: `add_turn`, `rotateCanvas`, `escape_markdown`)
 * or a variable of a state or an amount (`is_active`, `maxStates`, `currentPosition`, `totalStored`).
 */
const ACTION_OR_STATE_HEADS = new Set([
  // verbs that start function names
  'add', 'adjust', 'analyze', 'append', 'apply', 'build', 'calc', 'calculate', 'call', 'check', 'clear', 'close',
  'compute', 'convert', 'create', 'del', 'delete', 'disable', 'do', 'download', 'draw', 'emit', 'enable', 'escape',
  'exec', 'execute', 'extract', 'fetch', 'fill', 'find', 'format', 'generate', 'get', 'handle', 'hide', 'init',
  'insert', 'invoke', 'load', 'make', 'merge', 'move', 'on', 'open', 'parse', 'post', 'print', 'process', 'push',
  'put', 'read', 'redo', 'refresh', 'register', 'reload', 'remove', 'render', 'replace', 'reset', 'resize',
  'rotate', 'run', 'save', 'send', 'set', 'show', 'sort', 'split', 'start', 'stop', 'strip', 'take', 'toggle',
  'trim', 'undo', 'update', 'upload', 'validate', 'wait', 'write',
  // predicates and amounts
  'is', 'has', 'can', 'should', 'was', 'did', 'max', 'min', 'total', 'num', 'current', 'curr', 'prev', 'previous',
  'next', 'last', 'newest', 'oldest', 'available', 'tmp', 'temp',
]);
/** Last words that make a name a reference to something else (`user_id`, "chat IDs"): a field, not a topic. */
const REFERENCE_TAILS = new Set(['id', 'ids', 'uuid', 'uuids', 'guid', 'guids']);
/** Last parts of an identifier that make it a field holding a reference or a count (`user_id`, `retry_count`). */
const FIELD_TAILS = new Set([...REFERENCE_TAILS, 'idx', 'num', 'count', 'len', 'length', 'flag']);

/** Whether a phrase ending in this (lower-cased) word names a reference field ("user IDs", "session id"). */
export function isReferenceTail(lowerWord: string): boolean {
  return REFERENCE_TAILS.has(lowerWord);
}

/** Lower-case first, then an underscore or a capital somewhere: lower camelCase or snake_case. */
const IDENTIFIER_SHAPE_RE = /^\p{Ll}[^_\p{Lu}]*[_\p{Lu}]/u;

/**
 * An identifier in lower camelCase or snake_case that names a value or an action rather than a thing: a field
 * of a reference or count (`user_id`, `bot_id`), a predicate or an amount (`is_active`, `maxStates`), a
 * function (`add_turn`, `takeSnapshot`). Types and constants (`GeminiClient`, `SYSTEM_PERSONA`) and names of
 * things (`sessionMiddleware`, `p5Instance`, `google_search`) are not.
 */
export function namesValueOrAction(identifier: string): boolean {
  // a plain word (most words of prose) is no identifier: one test, not a split
  if (!hasIdentifierShape(identifier)) return false;
  const parts = identifier
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[\s_]+/u)
    .filter(Boolean);
  if (parts.length < 2) return false;
  return ACTION_OR_STATE_HEADS.has(parts[0]!) || FIELD_TAILS.has(parts[parts.length - 1]!);
}

/**
 * IDENTIFIER_SHAPE_RE's answer, read by character codes while the word is ASCII (nearly every word of prose: a
 * pattern with Unicode classes run on each cost more than the rest of the test).
 */
function hasIdentifierShape(word: string): boolean {
  const first = word.charCodeAt(0);
  if (!(first < 128)) return IDENTIFIER_SHAPE_RE.test(word);
  if (first < 97 || first > 122) return false;
  for (let i = 1; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === 95 || (c >= 65 && c <= 90)) return true;
    if (c >= 128) return IDENTIFIER_SHAPE_RE.test(word);
  }
  return false;
}

/** Scripts told apart (Chinese and Japanese share one: their words mix Han and kana). */
const SCRIPTS: ReadonlyArray<readonly [string, RegExp]> = [
  ['Latin', /^\p{Script=Latin}/u],
  ['Cyrillic', /^\p{Script=Cyrillic}/u],
  ['Greek', /^\p{Script=Greek}/u],
  ['CJK', /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Hangul', /^\p{Script=Hangul}/u],
  ['Arabic', /^\p{Script=Arabic}/u],
  ['Hebrew', /^\p{Script=Hebrew}/u],
  ['Devanagari', /^\p{Script=Devanagari}/u],
  ['Thai', /^\p{Script=Thai}/u],
];

/** The script of a word's first letter. */
export function scriptOf(word: string): string {
  if (/^[A-Za-z]/.test(word)) return 'Latin'; // most words: no Unicode property lookup
  for (const [name, re] of SCRIPTS) if (re.test(word)) return name;
  return 'other';
}

/**
 * Which script an exchange is written in, from its words: the assistant's when it wrote any, else the human's.
 * A theme in another script than Latin is a theme only in an exchange written in that script: quoted in an
 * exchange written in Latin script it is text the participants talk about (a bot's reply, a UI string, the
 * human's own words), not a topic. Latin-script names (`Docker`, `sessionMiddleware`) are themes in every
 * script: code and product names are written so in every language.
 */
export class ScriptTally {
  private readonly byVoice = { human: new Map<string, number>(), assistant: new Map<string, number>() };

  add(word: string, human: boolean): void {
    const counts = human ? this.byVoice.human : this.byVoice.assistant;
    const script = scriptOf(word);
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }

  /** Whether a theme whose first word is `word` may be a theme of this exchange. */
  allows(word: string): boolean {
    const script = scriptOf(word);
    return script === 'Latin' || script === this.main();
  }

  private main(): string | undefined {
    const counts = this.byVoice.assistant.size > 0 ? this.byVoice.assistant : this.byVoice.human;
    let best: string | undefined;
    let bestCount = 0;
    for (const [script, c] of counts) if (c > bestCount || (c === bestCount && best !== undefined && script < best)) [best, bestCount] = [script, c];
    return best;
  }
}
