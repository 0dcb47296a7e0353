import { isSpace } from '../charClass';

/**
 * The prose of a text as the offline distiller reads it (offline.ts, headline.ts): Markdown gone except inline
 * code, which stays code (`` `retry_timeout` ``), split into sentences. Headings (Markdown `#` lines and lines of
 * bold text only, Copilot's progress titles among them) are kept apart from the sentences they head.
 */

export interface ProseSentence {
  readonly text: string;
  /** A title, not a statement: a Markdown heading, a line of bold text only, or a progress title ("Analyzing X"). */
  readonly heading: boolean;
  /**
   * A lead-in's list ("Here are the changes:" and the items under it), each item on one line: what the lead-in
   * announces. Always set (undefined when none): sentences of one shape, so code compiled for them is not thrown away.
   */
  readonly list: readonly string[] | undefined;
}

/** Marks the start of a heading line inside cleaned prose (a control character no transcript text keeps). */
const HEADING = '\u0001';
/** Two backticks with nothing between, not part of a fence: a code span the transcript lost. */
export const EMPTY_CODE_SPAN_RE = /(?<!`)``(?!`)/;
/** Marks a sentence that held an empty code span: it reads broken ("backup the database to and start"). */
const BROKEN = '\u0002';
/** Marks the start of a list item inside cleaned prose. */
const ITEM = '\u0003';
/** Marks a code block inside cleaned prose; the line holds the block's first line that says something, if any. */
const BLOCK = '\u0004';
/** At most this many items of a lead-in's list are read: a headline shows two or three. */
const MAX_LIST_ITEMS = 6;

/**
 * cleanProse's passes, in order. `needs`: strings one of which every match holds, looked for in the text as the
 * passes before left it; a pass is run only on text that has one (most passes find nothing in most texts, and a
 * pattern that finds nothing still reads all 8,000 characters).
 */
const PASSES: ReadonlyArray<{ readonly needs?: readonly string[]; readonly re: RegExp; readonly to: string | ((match: string, ...groups: string[]) => string) }> = [
  // a fence closes at a run of as many backticks or more with no info string after it ("```yaml" opens a block
  // inside a "````markdown" one, it closes nothing)
  { needs: ['```'], re: /(`{3,})[^`\n]*\n?([\s\S]*?)(?:\1`*(?![\p{L}\p{N}_+-])|$)/gu, to: (_, _fence, body) => `\n\n${BLOCK}${blockLine(body!)}\n\n` },
  { needs: ['|'], re: /^[ \t]*\|.*\|[ \t]*$/gm, to: '\n' },
  { needs: ['▌'], re: /^[ \t]*▌[ \t]?/gm, to: '' },
  { needs: ['#'], re: /^[ \t]{0,3}#{1,6}[ \t]+/gm, to: `\n${HEADING}` },
  { re: /^[ \t]{0,3}(?:[-*+]|\d+[.)])[ \t]+/gm, to: `\n${ITEM}` },
  { needs: ['>'], re: /^[ \t]{0,3}>[ \t]+/gm, to: '\n' },
  // a line of bold text only is a title; bold runs glued together (`**Done****Next**`) are titles each
  { needs: ['**'], re: /^[ \t]*\u0003?(?:\*\*[^*\n]+\*\*[ \t]*)+$/gm, to: (line) => line.replace(/\*\*([^*\n]+)\*\*/g, `\n${HEADING}$1\n`) },
  { needs: ['!['], re: /!\[[^\]\n]*\]\([^)\n]*\)/g, to: '' },
  { needs: [']('], re: /\[([^\]\n]+)\]\([^)\n]*\)/g, to: '$1' },
  { needs: ['<'], re: /<\/?[a-z][^>\n]*>/gi, to: ' ' },
  { needs: ['─', '━', '═'], re: /★?\s*[A-Z][\w ]{0,20}[─━═]{3,}[─━═\s]*/g, to: '\n' },
  { needs: ['─', '━', '═', '│', '┃', '┌', '┐', '└', '┘', '├', '┤', '┬', '┴', '┼', '╭', '╮', '╯', '╰'], re: /[─━═│┃┌┐└┘├┤┬┴┼╭╮╯╰]{2,}/g, to: '\n' },
  { needs: ['``'], re: /(?<!`)``(?!`)/g, to: BROKEN },
  // bold titles glued to the text after them (`**Running the suite****Summary**Full suite…`, `**Verifying**- Updated`): apart
  { needs: ['**'], re: /\*\*([^*\n]+)\*\*(?=\*\*|\p{Lu}|[-–—]\s|`)/gu, to: `\n${HEADING}$1\n` },
  // bold marks elsewhere: a space; emphasis marks: nothing
  { needs: ['**', '__'], re: /\*\*|__/g, to: ' ' },
  { needs: ['*', '_'], re: /(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s.,;:!?)]|$)/gm, to: '$1$2' },
  // a mark removed before punctuation left a space there (`doesn't exist**.`)
  { re: /[ \t]+(?=[.,;:!?](?:\s|$))/g, to: '' },
];

/**
 * Prose of a text without Markdown: code blocks, tables, headings, list and quote markers, emphasis marks,
 * links (their text stays), images, HTML tags, box-drawing rules and decorations such as Claude Code's
 * "★ Insight ────" banners. Inline code keeps its backticks; an empty one marks its sentence broken.
 */
export function cleanProse(text: string): string {
  let s = text;
  for (const pass of PASSES) {
    if (pass.needs && !pass.needs.some((literal) => s.includes(literal))) continue;
    s = typeof pass.to === 'string' ? s.replace(pass.re, pass.to) : s.replace(pass.re, pass.to);
  }
  return s;
}

/** A block's lines that say nothing of it: comments, imports, a shebang. */
const PREAMBLE_RE = /^(?:\/\/|#|--|\/\*|\*|<!--|import\b|from\s+\S+\s+import\b|use\s|package\s|require\(|using\s)/u;
const MAX_BLOCK_LINE = 100;
const TWO_LETTERS_RE = /\p{L}{2}/u;

/**
 * The first line of a code block that says what it is (`def add_turn(self, text):`, `[window]`, a commit
 * message's subject), or '' when it has none short enough to show.
 */
export function blockLine(body: string): string {
  // line by line up to the first that says something: a block can be thousands of lines
  for (let from = 0; from <= body.length; ) {
    const end = body.indexOf('\n', from);
    const line = body.slice(from, end < 0 ? body.length : end).trim();
    if (TWO_LETTERS_RE.test(line) && !PREAMBLE_RE.test(line)) return line.length <= MAX_BLOCK_LINE && !line.includes('`') ? line : '';
    if (end < 0) break;
    from = end + 1;
  }
  return '';
}

/** Symbols a terminal or an agent's UI draws before a line (`⎿`, `●`, `•`, `→`): not words of the sentence. */
const LEADING_SYMBOLS_RE = /^(?:[\p{So}\p{Sm}•·▪‣◦]+\s*)+/u;
/** A capitalised -ing word opening a line without a full stop: a progress title ("Analyzing runtime error"). */
const PROGRESS_TITLE_RE = /^\p{Lu}\p{Ll}+ing\b(?:(?![.!?](?:\s|$)).)*$/u;

/**
 * Prose sentences of a text (cleanProse), at least three words each, with whether each is a heading. A line
 * break ends a sentence unless the next line goes on in lower case (a wrapped line). Sentences that held an
 * empty code span are left out: they read broken.
 *
 * `wanted`: the caller reads only the first `wanted` sentences that `counted` accepts (the headline reads the first
 * one to eight): the lines after the one that gives the last of them are not read. The sentences returned are the
 * first ones of the whole text's, the last with its list.
 */
export function proseSentences(text: string, wanted = Infinity, counted?: (s: ProseSentence) => boolean): ProseSentence[] {
  const out: ProseSentence[] = [];
  const lines = cleanProse(text.slice(0, 8_000)).split(/\n(?![ \t]*\u0003?\p{Ll})/u);
  let found = 0;
  for (let i = 0; i < lines.length && found < wanted; i++) {
    const line = lines[i]!;
    if (line.trimStart().startsWith(BLOCK)) continue;
    const heading = line.trimStart().startsWith(HEADING);
    const start = out.length;
    for (const piece of sentencePieces(line.replaceAll(ITEM, ' '))) {
      const s = oneLine(piece.replace(HEADING, '')).replace(LEADING_SYMBOLS_RE, '');
      if (spaces(s) < 2 || !/\p{L}/u.test(s) || s.includes(BROKEN)) continue;
      out.push({ text: s, heading: heading || PROGRESS_TITLE_RE.test(s), list: undefined });
    }
    const last = out.length > start ? out[out.length - 1]! : undefined;
    if (last && !heading && /:$/u.test(last.text) && line.trimEnd().endsWith(':')) {
      const list = listAfter(lines, i + 1);
      if (list.length > 0) out[out.length - 1] = { text: last.text, heading: last.heading, list };
    }
    for (let k = start; k < out.length; k++) if (counted === undefined || counted(out[k]!)) found++;
  }
  return out;
}

/**
 * `line.split(/(?<=[.!?。！？])\s+/u)` read by character codes: the pieces between the runs of whitespace that follow
 * a sentence's end (the pattern's look-behind was tried at every character of every line).
 */
export function sentencePieces(line: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (let i = 1; i < line.length; i++) {
    if (!isSpace(line.charCodeAt(i)) || !endsSentence(line.charCodeAt(i - 1))) continue;
    let end = i + 1;
    while (end < line.length && isSpace(line.charCodeAt(end))) end++;
    pieces.push(line.slice(from, i));
    from = end;
    i = end - 1;
  }
  pieces.push(line.slice(from));
  return pieces;
}

/** `[.!?。！？]` */
function endsSentence(c: number): boolean {
  return c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002 || c === 0xff01 || c === 0xff1f;
}

/** The items of the list that starts at lines[from] (blank lines between them allowed), each on one line. */
function listAfter(lines: readonly string[], from: number): string[] {
  const items: string[] = [];
  for (let i = from; i < lines.length && items.length < MAX_LIST_ITEMS; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    // a lead-in to a code block ("Here's the commit message:"): the block's first line that says what it is, as code
    if (line.startsWith(BLOCK)) return items.length === 0 && line.length > BLOCK.length ? [`\`${line.slice(BLOCK.length)}\``] : items;
    if (!line.startsWith(ITEM)) break;
    // an item of bold text only was read as a title, on the line after its marker
    if (line === ITEM && lines[i + 1]?.trimStart().startsWith(HEADING)) {
      const title = oneLine(lines[++i]!.replace(HEADING, ''));
      if (title) items.push(title);
      continue;
    }
    const item = oneLine(line.slice(ITEM.length)).replace(LEADING_SYMBOLS_RE, '');
    if (item.includes(BROKEN)) break;
    if (/\p{L}/u.test(item)) items.push(item);
  }
  return items;
}

/** A text's prose on one line (short texts have no sentence of three words), or '' when a lost code span broke it. */
export function proseLine(text: string): string {
  const prose = cleanProse(text.slice(0, 8_000)).replace(/\u0004[^\n]*/gu, '');
  return prose.includes(BROKEN) ? '' : oneLine(prose.replaceAll(HEADING, ' ').replaceAll(ITEM, ' '));
}

/** The sentences' texts (see proseSentences). */
export function sentences(text: string): string[] {
  return proseSentences(text).map((s) => s.text);
}

/** Share of a sentence's space-separated pieces that are words or code spans (not log stamps, URLs, symbols). */
export function proseShare(sentence: string): number {
  // a code span counts as one word, whatever it holds
  const pieces = sentence.replace(/`[^`]+`/g, 'code').split(' ');
  const prose = pieces.filter((p) => /^[("'“‘¿¡]?(?:[\p{L}][\p{L}\p{N}'’_-]*|\d+(?:[.,]\d+)?%?)[.,;:!?)"'”’]*$/u.test(p)).length;
  return prose / pieces.length;
}

export function oneLine(s: string): string {
  // most sentences are on one line already: folded only when some whitespace is not a single space
  return (foldable(s) ? s.replace(/\s+/g, ' ') : s).trim();
}

/** Whether `s` has whitespace other than single spaces (what oneLine's folding would change). */
function foldable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 ? s.charCodeAt(i + 1) === 32 : isSpace(c)) return true;
  }
  return false;
}

/** Spaces in `s` (its words when split at single spaces, less one), counted without splitting it. */
function spaces(s: string): number {
  let n = 0;
  for (let i = s.indexOf(' '); i >= 0; i = s.indexOf(' ', i + 1)) n++;
  return n;
}
