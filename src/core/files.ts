import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { FileTouch, LineRange, Message, ToolCall, TouchKind } from './model';
import { boundedJson, MAX_DEPTH } from './boundedJson';

/**
 * files_touched: from tool-call inputs (explicit) and a path regex over the text (mentions).
 * Never from an LLM. Paths are normalised to workspace-relative POSIX when they lie inside the workspace.
 * A name in the human's or the assistant's prose ("Node.js", "res.json", "README.md") is a file only when
 * it resolves to one: a file the agent read, edited or wrote in the exchange (a bare name joins that
 * file's entry), or a file that exists on disk in the conversation's folder. Names in the agent's own tool
 * calls (a shell command's arguments) are the agent acting on files and always count.
 */

export interface PathContext {
  /** The agent's working directory for this conversation (relative paths resolve against it). */
  readonly cwd?: string;
  /** The workspace root paths are made relative to; defaults to cwd. */
  readonly workspaceRoot?: string;
}

const READ_TOOLS = new Set(['Read', 'NotebookRead', 'read_file', 'view', /* OpenCode */ 'read']);
const EDIT_TOOLS = new Set([
  'Edit', 'MultiEdit', 'NotebookEdit', 'edit_file', 'str_replace_editor', 'replace',
  // Copilot Chat's agent tools; Cline's and Roo Code's
  'replace_string_in_file', 'insert_edit_into_file', 'edit_notebook_file',
  'replace_in_file', 'apply_diff', 'search_and_replace', 'insert_content',
  // Continue's; OpenCode's
  'edit_existing_file', 'single_find_and_replace', 'multi_edit', 'edit', 'multiedit',
]);
const WRITE_TOOLS = new Set([
  'Write', 'write_file', 'create_file', 'write_to_file', /* Continue */ 'create_new_file', /* OpenCode */ 'write', /* Copilot CLI */ 'create',
]);
/** A write tool's `command` that changes part of a file (Kiro's `write`: `strReplace`, `insert`, `append`; else `create`). */
const EDIT_COMMANDS = new Set(['str_replace', 'strReplace', 'insert', 'append']);

const EXTENSIONS = [
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'json', 'jsonl', 'jsonc', 'py', 'pyi', 'ipynb', 'rs', 'go',
  'java', 'kt', 'kts', 'scala', 'swift', 'm', 'mm', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'fs', 'vb',
  'rb', 'php', 'pl', 'lua', 'dart', 'ex', 'exs', 'erl', 'hs', 'clj', 'r', 'jl', 'sql', 'sh', 'bash', 'zsh', 'fish',
  'ps1', 'bat', 'md', 'mdx', 'rst', 'txt', 'yaml', 'yml', 'toml', 'ini', 'cfg', 'conf', 'env', 'xml', 'html', 'htm',
  'css', 'scss', 'sass', 'less', 'vue', 'svelte', 'astro', 'graphql', 'gql', 'proto', 'tf', 'hcl', 'gradle',
  'lock', 'csv', 'tsv', 'svg', 'png', 'jpg', 'jpeg', 'gif', 'pdf', 'wasm', 'zig', 'nim', 'ml', 'elm', 'glsl', 'wgsl',
  'dockerfile', 'mk', 'cmake', 'nix', 'sol', 'prisma', 'log',
];
const BARE_NAMES = ['Dockerfile', 'Makefile', 'Rakefile', 'Gemfile', 'Procfile', 'Justfile', 'CMakeLists.txt'];

// A path-like token: optional drive or root, segments of word chars/dots/dashes, a known extension, and a
// boundary after it. Longest extensions first so `.tsx` wins over `.ts`.
const EXT_ALT = [...EXTENSIONS].sort((a, b) => b.length - a.length).join('|');
export const PATH_RE = new RegExp(
  String.raw`(?<![\w@/\\.:-])((?:[A-Za-z]:[\\/]|~/|\.{1,2}/|/)?(?:[\w.@+-]+[\\/])*[\w.@+-]*\.(?:${EXT_ALT}))(?![\w/\\-])`,
  'g',
);
/** The end of every PATH_RE match: a text without one skips the full pattern, which tries every word start. */
const EXT_TAIL_RE = new RegExp(String.raw`\.(?:${EXT_ALT})(?![\w/\\-])`);
const BARE_RE = new RegExp(String.raw`(?<![\w/.-])((?:[\w.@+-]+/)*(?:${BARE_NAMES.join('|').replace(/\./g, '\\.')}))(?![\w.-])`, 'g');
/** Whether a text names one of BARE_NAMES anywhere (BARE_RE's matches each hold one). */
const ANY_BARE_NAME = new RegExp(BARE_NAMES.map((name) => name.replace(/\./g, '\\.')).join('|'));
const PATCH_HEADER_RE = /^\*\*\* (Add|Update|Delete) File: (.+)$/gm;
const APPLIED_EDIT = 'Applied edit to ';
const APPLIED_EDIT_RE = /Applied edit to (\S.*?)\s*$/gm;
const LINE_RANGE_SUFFIX_RE = /:(\d+)(?:-(\d+))?$/;
/** Text longer than this is not scanned for mentions (tool outputs are capped already; this guards prompts). */
const MAX_SCAN_CHARS = 200_000;

const RANK: Record<TouchKind, number> = { mention: 0, read: 1, edit: 2, write: 3 };

export function extractFiles(messages: readonly Message[], ctx: PathContext): FileTouch[] {
  const normaliseRepeated = normaliserFor(ctx);
  const acc = new Map<string, { how: TouchKind; lines: LineRange[] }>();
  const add = (raw: string, how: TouchKind, lines: readonly LineRange[] = []): void => {
    const p = normaliseRepeated(raw);
    if (!p) return;
    const cur = acc.get(p);
    // the lines are those of the strongest touch: lines read are not lines edited (the "edited this" lens)
    if (!cur || RANK[how] > RANK[cur.how]) acc.set(p, { how, lines: [...lines] });
    else if (how === cur.how) cur.lines.push(...lines);
  };

  const resultsById = new Map<string, Message['toolResults'][number]>();
  for (const m of messages) for (const r of m.toolResults) if (r.toolUseId) resultsById.set(r.toolUseId, r);

  const prose: string[] = [];
  for (const m of messages) {
    for (const call of m.toolCalls) touchesFromToolCall(call, resultsById.get(call.id ?? ''), add);
    for (const t of m.touched ?? []) add(t.path, t.how, t.lines);
    for (const r of m.toolResults) {
      if (r.filePath && r.editedLines?.length) add(r.filePath, 'edit', r.editedLines);
      if (r.text.includes(APPLIED_EDIT)) for (const match of r.text.matchAll(APPLIED_EDIT_RE)) add(match[1]!, 'edit');
    }
    if (m.kind === 'prompt' || m.kind === 'reply') prose.push(...mentionsIn(m.text));
  }
  // prose mentions last, once every file the tools touched is known
  const touched = [...acc.keys()];
  for (const raw of prose) {
    const p = normaliseRepeated(raw);
    if (!p) continue;
    if (acc.has(p)) add(raw, 'mention');
    else {
      const suffix = `/${p}`;
      const same = touched.find((t) => t.endsWith(suffix));
      if (same) add(same, 'mention');
      else if (existsOnDisk(raw, ctx)) add(raw, 'mention');
    }
  }
  // Sorted before they are made touches, and none sorted at all: the touches are of two shapes (with lines and
  // without), an empty array is another kind of array, and the sort's "wrong map" at either sent this function (the
  // largest of a parse, with what it inlines) back to V8's compiler twice in every run. The same order: the sort
  // reads only the path and how.
  if (acc.size === 0) return [];
  return [...acc.entries()]
    .sort(([pathA, a], [pathB, b]) => RANK[b.how] - RANK[a.how] || pathA.localeCompare(pathB))
    .map(([p, { how, lines }]) => (lines.length ? { path: p, how, lines: mergeRanges(lines) } : { path: p, how }));
}

function touchesFromToolCall(
  call: ToolCall,
  result: Message['toolResults'][number] | undefined,
  add: (raw: string, how: TouchKind, lines?: readonly LineRange[]) => void,
): void {
  const input = call.input as Record<string, unknown> | string | undefined;
  const filePath =
    typeof input === 'object' && input !== null
      ? (input['file_path'] ?? input['notebook_path'] ?? input['path'] ?? input['filePath'] ?? input['filepath'] ?? input['absolute_path'])
      : undefined;
  if (typeof filePath === 'string') {
    if (READ_TOOLS.has(call.name)) add(filePath, 'read', call.lines ?? readRange(call.name, input as Record<string, unknown>));
    else if (EDIT_TOOLS.has(call.name)) add(filePath, 'edit', result?.editedLines ?? []);
    else if (WRITE_TOOLS.has(call.name)) add(filePath, EDIT_COMMANDS.has(String((input as Record<string, unknown>)['command'])) ? 'edit' : 'write', result?.editedLines ?? []);
  }
  const named = READ_TOOLS.has(call.name) || EDIT_TOOLS.has(call.name) || WRITE_TOOLS.has(call.name);
  // apply_patch (Codex) may arrive as a raw string input or inside a shell command's arguments. A read, edit or
  // write tool's input is made JSON text only when it may hold a patch (an edit's or a file's whole text, else
  // stringified for nothing).
  const text = typeof input === 'string' ? input : input && (!named || mayHoldPatch(input, MAX_DEPTH)) ? boundedJson(input) : '';
  if (text.includes(PATCH_MARK)) {
    const unescaped = typeof input === 'string' ? text : text.replace(/\\n/g, '\n');
    for (const m of unescaped.matchAll(PATCH_HEADER_RE)) add(m[2]!.trim(), m[1] === 'Add' ? 'write' : 'edit');
  }
  if (!named) {
    for (const raw of mentionsIn(text.length > 4_000 ? text.slice(0, 4_000) : text)) add(raw, 'mention');
  }
}

/** What every patch header starts with; JSON text holds it exactly where one of its strings (or keys) does. */
const PATCH_MARK = '*** ';

/**
 * Whether the JSON text of parsed input could hold PATCH_MARK: one of its strings or keys does, or it is not
 * plain data (deeper than `depth`, an object with its own prototype or a `toJSON`), which is then stringified
 * to be sure. No JSON punctuation is a `*`, so the mark cannot span a string's end.
 */
function mayHoldPatch(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes(PATCH_MARK);
  if (typeof value !== 'object' || value === null) return false;
  if (depth === 0) return true;
  if (Array.isArray(value)) return value.some((v) => mayHoldPatch(v, depth - 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return true;
  for (const [k, v] of Object.entries(value)) if (k.includes(PATCH_MARK) || mayHoldPatch(v, depth - 1)) return true;
  return false;
}

/** Read tools whose `offset` counts lines from 0 (Gemini CLI's read_file, OpenCode's read); Claude Code's Read counts from 1. */
const ZERO_BASED_OFFSET = new Set(['read_file', 'read']);

function readRange(tool: string, input: Record<string, unknown>): LineRange[] {
  const offset = input['offset'];
  const limit = input['limit'];
  if (typeof limit === 'number' && limit > 0) {
    // without an offset every one of these tools reads from the file's first line (Gemini CLI's read_file before
    // 0.31: offset 0 by default, read-file.ts; Claude Code's Read, OpenCode's read)
    if (offset === undefined) return [{ start: 1, end: limit }];
    if (typeof offset === 'number') {
      const start = Math.max(1, ZERO_BASED_OFFSET.has(tool) ? offset + 1 : offset);
      return [{ start, end: start + limit - 1 }];
    }
  }
  // Copilot's read_file: 1-based inclusive lines
  const start = input['startLine'];
  const end = input['endLine'];
  if (typeof start === 'number' && typeof end === 'number' && end >= start) return [{ start: Math.max(1, start), end }];
  // Gemini CLI's read_file since 0.31: `start_line`, `end_line`, 1-based inclusive, the first line when no start is
  // given; a start without an end reads to the file's end or 2,000 lines on, which the call does not say
  const endLine = input['end_line'];
  const startLine = input['start_line'] ?? 1;
  if (typeof startLine === 'number' && typeof endLine === 'number' && endLine >= startLine) {
    return [{ start: Math.max(1, startLine), end: endLine }];
  }
  // Copilot CLI's view `view_range`, Amp's Read `read_range`: [first, last], 1-based; a last of -1 reads to the end (unknown)
  const range = input['view_range'] ?? input['read_range'];
  if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number' && range[1] >= range[0]) {
    return [{ start: Math.max(1, range[0]), end: range[1] }];
  }
  return [];
}

export function mentionsIn(text: string): string[] {
  if (!text) return [];
  const scan = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  const out: string[] = [];
  if (EXT_TAIL_RE.test(scan)) {
    // exec, not matchAll: matchAll copies the pattern for every run
    for (const [start, end] of pathRuns(scan)) {
      const run = scan.slice(start, end);
      PATH_RE.lastIndex = 0;
      for (let m = PATH_RE.exec(run); m; m = PATH_RE.exec(run)) {
        const token = m[1]!;
        if (looksLikePath(token, scan, start + m.index)) out.push(token);
      }
    }
  }
  // like PATH_RE, BARE_RE tries every word start; one substring pattern skips the texts that name no such file
  if (ANY_BARE_NAME.test(scan)) for (const m of scan.matchAll(BARE_RE)) out.push(m[1]!);
  return out;
}

/**
 * The runs of the characters a PATH_RE match is made of (`\w . @ + - \ / : ~`) that hold a dot: a match lies
 * inside one run of them (what its look-behind sees before a run's first character and its look-ahead after the
 * last, a character outside the run or none, passes both, as the ends of a string do), so the pattern finds in the
 * run alone what it finds there in the whole text; and only a run holding a dot can hold a match (`.ext`). The
 * pattern, which tries every word start of a text, runs on those runs alone, each found from a dot outwards.
 */
const PATH_CHAR = new Uint8Array(128).map((_, c) => (/[\w.@+\-\\/:~]/.test(String.fromCharCode(c)) ? 1 : 0));

function isPathChar(code: number): boolean {
  return code < 128 && PATH_CHAR[code] === 1;
}

/** [start, end) of each run of path characters in `text` that holds a dot, in order. */
export function pathRuns(text: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let dot = text.indexOf('.'); dot >= 0; ) {
    let start = dot;
    while (start > 0 && isPathChar(text.charCodeAt(start - 1))) start--;
    let end = dot + 1;
    while (end < text.length && isPathChar(text.charCodeAt(end))) end++;
    runs.push([start, end]);
    dot = text.indexOf('.', end);
  }
  return runs;
}

/** Members of the runtime's global objects whose names end like a file: `console.log`, `process.env`. */
const GLOBAL_MEMBER_RE = /^(?:console|process|window|document|globalThis|Math|JSON)\.\w+$/;

function looksLikePath(token: string, text: string, index: number): boolean {
  // URLs, e-mail-like and version-like tokens are not files.
  if (text.slice(Math.max(0, index - 3), index) === '://' || /^[\d.]+$/.test(token)) return false;
  // code, not a file: a call (`log.info(`, `print.sh(`) or a global's member (`grep -rn "console.log" src`)
  // (the next character read by its code, within the text: indexing a string, or reading past its end, threw away
  // the compiled scan when another kind of string or a token at the very end came)
  const after = index + token.length;
  if ((after < text.length && text.charCodeAt(after) === 0x28) /* ( */ || GLOBAL_MEMBER_RE.test(token)) return false;
  const base = token.split(/[\\/]/).pop() ?? '';
  const stem = base.slice(0, base.lastIndexOf('.'));
  // `e.g.md`-style accidents: a bare name needs a stem of 2+ chars with a letter, or a directory part.
  if (!/[\\/]/.test(token) && !(stem.length >= 2 && /[A-Za-z]/.test(stem))) return false;
  return !/^www\./.test(token);
}

/**
 * normalisePath with a memory: a transcript names the same few files again and again (on the corpus four
 * lookups in five repeat one), and resolving paths is the dear part of extracting them. Forgotten when full.
 */
const normalised = new Map<string, Map<string, string | undefined>>();
let normalisedCount = 0;
const NORMALISED_MAX = 10_000;

/** The memory of normalisePath for one context: taken once per extractFiles, then looked up by the raw path alone. */
function normaliserFor(ctx: PathContext): (raw: string) => string | undefined {
  const key = JSON.stringify([ctx.cwd, ctx.workspaceRoot]);
  return (raw) => {
    let known = normalised.get(key);
    if (known?.has(raw)) return known.get(raw);
    if (normalisedCount >= NORMALISED_MAX) {
      normalised.clear();
      normalisedCount = 0;
      known = undefined;
    }
    if (!known) normalised.set(key, (known = new Map()));
    const p = normalisePath(raw, ctx);
    known.set(raw, p);
    normalisedCount++;
    return p;
  };
}

/** Workspace-relative POSIX path when inside the workspace; otherwise an absolute POSIX-ish path. */
export function normalisePath(raw: string, ctx: PathContext): string | undefined {
  let p = raw.trim().replace(/^["'`]|["'`,;:]$/g, '');
  p = p.replace(LINE_RANGE_SUFFIX_RE, '');
  if (!p || p.length > 500 || p.includes('://')) return undefined;
  const windows = /^[A-Za-z]:[\\/]/.test(p) || (ctx.cwd !== undefined && /^[A-Za-z]:[\\/]/.test(ctx.cwd));
  const lib = windows ? path.win32 : path.posix;
  const cwd = ctx.cwd;
  let abs: string;
  if (lib.isAbsolute(p)) abs = lib.normalize(p);
  else if (p.startsWith('~/')) return p; // home-relative: cannot be placed in the workspace
  else if (cwd) abs = lib.resolve(cwd, p);
  else return toPosix(lib.normalize(p)).replace(/^\.\//, '');
  const root = ctx.workspaceRoot ?? cwd;
  if (root) {
    const rel = lib.relative(root, abs);
    if (rel && !rel.startsWith('..') && !lib.isAbsolute(rel)) return toPosix(rel);
  }
  return toPosix(abs);
}

/** Whether a mentioned path names an existing file, resolved against the conversation's folder (memoised). */
const existing = new Map<string, boolean>();

function existsOnDisk(raw: string, ctx: PathContext): boolean {
  const base = ctx.cwd ?? ctx.workspaceRoot;
  const p = raw.trim().replace(/^["'`]|["'`,;:]$/g, '').replace(LINE_RANGE_SUFFIX_RE, '');
  if (!p || p.startsWith('~') || /^[A-Za-z]:[\\/]/.test(p) || (!base && !path.isAbsolute(p))) return false;
  const abs = path.resolve(base ?? '/', p);
  let known = existing.get(abs);
  if (known === undefined) {
    if (existing.size >= NORMALISED_MAX) existing.clear();
    known = existsSync(abs);
    existing.set(abs, known);
  }
  return known;
}

function toPosix(p: string): string {
  return p.replace(/\\/g, '/');
}

export function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: LineRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end + 1) out[out.length - 1] = { start: last.start, end: Math.max(last.end, r.end) };
    else out.push({ ...r });
  }
  return out;
}
