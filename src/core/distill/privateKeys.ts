/**
 * Private key blocks, redacted as blocks wherever the text starts or stops: a whole block (`-----BEGIN …
 * PRIVATE KEY-----` to its END line), a block cut short (a tool output cut at 600 characters, a window, a
 * message cut off: its base64 lines up to the cut), and the tail of a block whose BEGIN line is not in the text
 * (a window or a segment opening inside it: the base64 lines before its END line). The lines of a body may be
 * separated by newlines, by spaces (an excerpt), by `⏎` (a tool call's summary) or by `\n` escapes (JSON).
 */

const BEGIN = String.raw`-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----`;
const SEP = String.raw`(?:\s|⏎|\\[rn])+`;
/** A body line: PEM lines hold 64 characters, OpenSSH's 70; only the last one may be shorter. */
const LINE = String.raw`[A-Za-z0-9+/]{16,}={0,2}`;
/** The headers of a legacy encrypted PEM block. */
const HEADER = String.raw`(?:Proc-Type|DEK-Info):[^\n⏎]{0,100}`;
/** A body's last line, shorter: padded, or where the text ends. */
const LAST = String.raw`[A-Za-z0-9+/]{1,15}(?:={1,2}|(?=(?:${SEP})?$))`;
/** Where a text was cut: `…`, with render.ts's `[N more chars]` after it. */
const CUT = String.raw`[A-Za-z0-9+/=]*…(?: \[\d+ more chars\])?`;

/**
 * A whole block (up to an END line of the same kind, no other BEGIN between, as long as the largest keys), or
 * one cut short: its headers and lines, then the cut or the end of the text. Group 1 is the block.
 */
export const KEY_BLOCK = new RegExp(
  `(${BEGIN}(?:(?:(?!-----BEGIN )[\\s\\S]){0,20000}?-----END \\2PRIVATE KEY\\3-----|(?:${SEP}(?:${HEADER}|${LINE}))*(?:(?:${SEP})?${CUT}|${SEP}${LAST})?))`,
  'g',
);

/**
 * Whether a block holds any of a key: a run of base64 as long as a body line. A BEGIN line alone is code that
 * looks for one (`pem.startsWith("-----BEGIN PRIVATE KEY-----")`), as is code wrapping a body between the lines.
 */
export function holdsKeyBody(block: string): boolean {
  return /[A-Za-z0-9+/]{16}/.test(block);
}

/**
 * A text that opens inside a block's BEGIN line (a window cut it: `…ATE KEY-----`) and goes on with its body:
 * the fragment and the lines, up to the END line, a cut or the end of the text.
 */
export const KEY_BLOCK_CUT_OPEN = new RegExp(
  `^…?[-A-Z0-9 ]{0,45}-----(?:${SEP}(?:${HEADER}|${LINE}))+(?:(?:${SEP})?${CUT}|${SEP}${LAST}|${SEP}-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?`,
);

const KEY_END = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * The tails of blocks whose BEGIN line is not in `text` (run after KEY_BLOCK took the whole blocks): each END
 * line with the body lines before it. Linear: each END walks back over its own tail only.
 */
export function redactKeyTails(text: string, marker: string): { text: string; count: number } {
  let out = '';
  let at = 0;
  let count = 0;
  for (const m of text.matchAll(KEY_END)) {
    const start = tailStart(text, m.index, at);
    if (start === m.index) continue; // an END line alone holds nothing of the key
    out += text.slice(at, start) + marker;
    at = m.index + m[0].length;
    count++;
  }
  return count ? { text: out + text.slice(at), count } : { text, count: 0 };
}

/**
 * Where the body lines before `endLine` begin (not before `floor`), or `endLine` when there are none: base64
 * tokens back to the first that is not one. A short token counts only next to the END line (a body's last
 * line) or where the text, a string or a cut begins (a line a window cut); the run needs one full line, so
 * a few words before an END line are no body.
 */
function tailStart(text: string, endLine: number, floor: number): number {
  let start = endLine;
  let i = endLine;
  let full = false;
  for (let first = true; ; first = false) {
    i = skipSeparators(text, i, floor);
    let j = i;
    while (j > floor && !isSeparatorBefore(text, j) && /[A-Za-z0-9+/=]/.test(text[j - 1]!)) j--;
    const token = text.slice(j, i);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) break;
    const cut = j > floor && text[j - 1] === '…';
    const opens = j === 0 || cut || (j > floor && /["'`]/.test(text[j - 1]!));
    if (token.length < 16 && !first && !opens) break;
    full ||= token.length >= 16;
    start = cut ? j - 1 : j;
    if (j === floor || !isSeparatorBefore(text, j)) break;
    i = j;
  }
  return full ? start : endLine;
}

function skipSeparators(text: string, i: number, floor: number): number {
  while (i > floor && isSeparatorBefore(text, i)) i -= text[i - 1] === 'n' || text[i - 1] === 'r' ? 2 : 1;
  return i;
}

/** Whether a separator ends just before `i`: white space, `⏎`, or a `\n`/`\r` escape. */
function isSeparatorBefore(text: string, i: number): boolean {
  const c = text[i - 1]!;
  return /\s|⏎/.test(c) || ((c === 'n' || c === 'r') && text[i - 2] === '\\');
}
