import type { AgentKind, Conversation, ConversationMeta, SkipCounts, SkippedLine, SkipReason } from '../model';
import { RecallError } from '../errors';
import { MAX_LINE_BYTES, type SourceLine } from './lines';

export interface ParseInput {
  /** Absolute path of the transcript. */
  readonly file: string;
  /** Complete lines from the resume point (or the start of the file) to the last complete line. */
  readonly lines: readonly SourceLine[];
  /**
   * When parsing resumes mid-file, the meta of the conversation that was open at the resume point, so
   * the adapter continues it instead of inventing a new one (headers live at the top of the file).
   */
  readonly resume?: ConversationMeta;
  /** The adapter's `sideFiles` read beside the transcript, by name (absent: missing or unreadable). */
  readonly side?: ReadonlyMap<string, string>;
  /**
   * A replayed log that only grew since its last parse: that parse's `replay`, which `lines` (the lines
   * after it) continue. The adapter takes it over (it may change it).
   */
  readonly replay?: unknown;
  /**
   * For an adapter that `skipsRepeatedIds`, when parsing resumes mid-file: the ids of the records before the resume
   * point (the last parse's `idsBefore` there), so a record written again after it is skipped as in a whole read.
   */
  readonly seenIds?: readonly string[];
}

export interface ParseOutput {
  readonly conversations: Conversation[];
  /** Every line that was not turned into a message for a bad-input reason, with its line number. */
  readonly skipped: readonly SkippedLine[];
  /** A log replayed to the end of the lines (its whole state so far), to continue from when it only grows. */
  readonly replay?: unknown;
  /** An adapter that `skipsRepeatedIds`: the ids of the records on lines before `offset`, for a parse resumed there. */
  readonly idsBefore?: (offset: number) => readonly string[];
}

/** One conversation's records as a database holds them; its id is the session id its conversation gets. */
export interface RecordGroupRead {
  readonly id: string;
  readonly records: readonly unknown[];
}

/** One adapter per agent format. Adapters are pure: lines in, conversations out, never throwing on bad lines. */
export interface SourceAdapter {
  readonly agent: AgentKind;
  /**
   * JSONL adapters hold back a partial last line; markdown adapters take the file as it is; `json` is one
   * JSON document (pretty-printed or not), always parsed whole; `sqlite` is a database whose records
   * `readRecords` turns into lines, re-read whole when the database or its write-ahead log changes; `files`
   * is a file read with others it names (OpenCode's session file, its message and part files), its records
   * read by `readRecords`, re-read whole when `recordsState` changes.
   */
  readonly lineFormat: 'jsonl' | 'markdown' | 'json' | 'sqlite' | 'files';
  /** The longest line (UTF-16 units) the parse reads; longer ones are skipped as oversized. MAX_LINE_CHARS when not set. */
  readonly maxLineChars?: number;
  /** A `sqlite` or `files` source's records, one JSON line each, numbered in the order read (a database is opened read-only). */
  readRecords?(file: string): Promise<SourceLine[]>;
  /** A `files` source's change check: what changes whenever any of its files does (compared like a file's size and mtime). */
  recordsState?(file: string): Promise<{ readonly size: number; readonly mtimeMs: number }>;
  /**
   * A `sqlite` source of many conversations, read conversation by conversation: `fingerprints` names each one
   * by its id with what changes whenever it does (cheap to read, and read before the records), `read` the
   * records of the conversations named (all of them without `ids`), each conversation's apart. Only the
   * conversations whose fingerprint changed are read again; the others keep what they wrote.
   */
  readonly recordGroups?: {
    fingerprints(file: string): Promise<Map<string, string>>;
    read(file: string, ids?: readonly string[]): Promise<RecordGroupRead[]>;
  };
  /**
   * One file holds the sessions of every workspace (Cursor's global database): each conversation is kept or
   * left out by the project its own records name, not the file by its head.
   */
  readonly holdsManyProjects?: boolean;
  /**
   * A JSONL log whose later records rewrite earlier ones (Copilot's mutation log, Gemini's upserts and
   * rewinds): never resumed mid-file like a transcript; replayed from its first line on every change, or,
   * when its parse returns its `replay` and the log only grew, from where that replay ended.
   */
  readonly replaysLog?: boolean;
  /**
   * A JSONL transcript whose records carry ids, a record written again under an id read before being skipped (a
   * resumed session's replay): a parse resumed mid-file is given the ids of the lines before its resume point
   * (ParseInput.seenIds, kept with the source's state); a state stored without them is read whole again.
   */
  readonly skipsRepeatedIds?: boolean;
  /**
   * Files in the transcript's folder the parse also reads (Cline's `ui_messages.json`, `task_metadata.json`; for
   * Kiro's `<id>.jsonl` its `<id>.json`, for Factory Droid's its `<id>.settings.json`, named from the transcript's), or near it by a relative name (Kimi Code's
   * `../../state.json`, Antigravity's notes): read with it and passed as `side`. They are
   * the agent's bookkeeping, not the conversation: one that is missing or does not parse costs only what it would
   * have added.
   */
  readonly sideFiles?: readonly string[] | ((file: string) => readonly string[]);
  /**
   * A `json` document's records: the key path of the array whose elements the conversation is made of
   * (`[]`: the document is that array). When the document is one line, "open raw" shows them pretty-printed.
   */
  readonly recordsPath?: readonly string[];
  /**
   * Where the agent keeps the same session in the form it writes now (Copilot CLI's `session-state/<id>/events.jsonl`
   * for an older `session-state/<id>.jsonl`): when that file exists, this one is not read.
   */
  preferredCopy?(file: string): string | undefined;
  /** Cheap test on the path alone: could this file be one of ours? */
  matchesPath(file: string): boolean;
  /** The path alone proves the format (an agent's own storage layout): no sniffing of the head. */
  claimsPath?(file: string): boolean;
  /**
   * For a file at a path other programs use too (VS Code's own `workspaceStorage/<id>/state.vscdb`): whether it holds
   * the agent's sessions, checked without opening it as a database. Asked once its project is known to be the
   * workspace's, so only the workspace's own files are looked into.
   */
  holdsSessions?(file: string): Promise<boolean>;
  /** Test on the first lines of a candidate file: is it really one of ours? */
  sniff(head: readonly SourceLine[]): boolean;
  /** The project (working directory) the file's records say it belongs to, from its first lines. */
  probeProject(head: readonly SourceLine[]): string | undefined;
  /**
   * For formats that record no cwd: the project the file belongs to by where it lives (SpecStory and Aider
   * histories are written inside their workspace). Used only when the records name no project.
   */
  projectOfPath?(file: string): string | undefined;
  /**
   * For formats whose project is recorded beside the transcript or as a hash (Copilot's `workspace.json`,
   * Gemini's `.project_root` or sha256 of the project root): the project, from those records. Tried when
   * the head names none; `workspaceRoots` are the candidates a hash is checked against.
   */
  locateProject?(file: string, head: readonly SourceLine[], workspaceRoots: readonly string[], reading?: (file: string) => void): Promise<string | undefined>;
  /**
   * Every file `locateProject` reads besides the transcript, when they are known from its path (Gemini's
   * `.project_root`): a discovery keeps its answer for the next one while the transcript and these keep their size
   * and time (or stay absent). Without it the project is looked for again at every discovery.
   */
  locatesFrom?(file: string): readonly string[];
  /**
   * `locateProject` calls `reading` before each file it reads besides the transcript, those named inside others too
   * (Copilot's `workspace.json`, and the `.code-workspace` file it names): a discovery keeps its answer while the
   * transcript and these keep their size and time (or stay absent), as with `locatesFrom`.
   */
  readonly namesWhatLocates?: true;
  /**
   * The file is of a form that records no project at all (Copilot Chat's "Chat: Export Chat…"): found in a
   * folder the user named for this workspace, it is this workspace's. Every other session counts only where
   * its records place it, whatever the agent.
   */
  recordsNoProject?(file: string): boolean;
  parse(input: ParseInput): ParseOutput;
}

/** The names of the side files an adapter reads beside `file` (none when it reads none). */
export function sideFileNames(adapter: SourceAdapter, file: string): readonly string[] | undefined {
  return typeof adapter.sideFiles === 'function' ? adapter.sideFiles(file) : adapter.sideFiles;
}

/** Lines longer than this are skipped (counted) rather than parsed: nothing useful is that large. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Past how many bytes a line of `adapter`'s files has its long strings shortened (LineOptions.shortenStringsPast)
 * rather than being lost: a JSON document as far as the reader holds a line (MAX_LINE_BYTES), a JSONL record as
 * far as its adapter parses one (a record grown by a pasted image still gives its text); markdown never.
 */
export function shortenStringsPast(adapter: SourceAdapter): number | undefined {
  if (adapter.lineFormat === 'json') return MAX_LINE_BYTES;
  return adapter.lineFormat === 'jsonl' ? Math.min(adapter.maxLineChars ?? MAX_LINE_CHARS, MAX_LINE_BYTES) : undefined;
}

/** A line too long to parse: over `maxChars`, or so long the reader never decoded it (lines.ts MAX_LINE_BYTES). */
export function isOversized(line: SourceLine, maxChars = MAX_LINE_CHARS): boolean {
  return line.oversized === true || line.text.length > maxChars;
}

/**
 * Collects skipped lines. Positions are kept (not just counts) because an incremental re-parse replaces
 * everything from a line onwards, and the counts must not double.
 */
export class SkipCounter {
  readonly lines: SkippedLine[] = [];
  add(reason: SkipReason, line: number): void {
    this.lines.push({ line, reason });
  }
  get counts(): SkipCounts {
    return countSkips(this.lines);
  }
}

export function countSkips(lines: readonly SkippedLine[]): SkipCounts {
  const counts: SkipCounts = {};
  for (const { reason } of lines) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}

/** Parses one JSONL line into an object, counting why when it cannot. */
export function parseJsonLine(line: SourceLine, skips: SkipCounter, maxChars = MAX_LINE_CHARS): Record<string, unknown> | undefined {
  if (isOversized(line, maxChars)) {
    skips.add('oversized-line', line.line);
    return undefined;
  }
  if (line.text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch {
    skips.add('malformed-json', line.line);
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    skips.add('not-an-object', line.line);
    return undefined;
  }
  return value as Record<string, unknown>;
}

/** How many JSON records of a file's head a sniffer looks at before saying "not mine". */
const SNIFF_RECORDS = 5;

/**
 * The first JSON object records of a file's head (bad lines skipped, not counted): what sniffers decide on. Made once
 * per head and shared, read-only: discovery asks every sniffer of a path in turn (a Claude Code file passes six before
 * its own), and each asked for the same records again. A line whose first character after JSON's whitespace is not
 * `{` is no object: it is passed over without `JSON.parse` (a pretty-printed document's head is a thousand such
 * lines, each an exception thrown, once per sniffer).
 */
export function headRecords(head: readonly SourceLine[]): ReadonlyArray<Record<string, unknown>> {
  let records = headRecordsOf.get(head);
  if (records) return records;
  const scratch = new SkipCounter();
  const found: Array<Record<string, unknown>> = [];
  for (const line of head) {
    if (!mayBeObject(line.text)) continue;
    const rec = parseJsonLine(line, scratch);
    if (rec && found.push(rec) >= SNIFF_RECORDS) break;
  }
  records = Object.freeze(found);
  headRecordsOf.set(head, records);
  return records;
}

const headRecordsOf = new WeakMap<readonly SourceLine[], ReadonlyArray<Record<string, unknown>>>();

/** Whether `JSON.parse` of the text could give an object: its first character past JSON's whitespace is `{`. */
function mayBeObject(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

/**
 * The whole document of a `json` source. A file that does not parse is most likely being rewritten (these
 * agents write whole files): the error leaves the stored exchanges as they are and the next run reads it again.
 */
export function parseJsonDocument(file: string, lines: readonly SourceLine[]): Record<string, unknown> {
  const doc = obj(parseJsonValue(file, lines));
  if (!doc) throw new RecallError('source-unreadable', `${file} is not a JSON object.`);
  return doc;
}

/** A `json` source whose document is an array (Cline's message history). */
export function parseJsonArray(file: string, lines: readonly SourceLine[]): unknown[] {
  const value = parseJsonValue(file, lines);
  if (!Array.isArray(value)) throw new RecallError('source-unreadable', `${file} is not a JSON array.`);
  return value;
}

function parseJsonValue(file: string, lines: readonly SourceLine[]): unknown {
  // the reader never decoded a line that long, even with its long strings cut: too large to read, not being written
  if (lines.some((l) => l.oversized)) {
    throw new RecallError(
      'source-unreadable',
      `${file} has a line over ${MAX_LINE_BYTES / 1024 / 1024} MB even with its long strings cut short: too large to read.`,
    );
  }
  try {
    return JSON.parse(lines.map((l) => l.text).join('\n'));
  } catch (err) {
    throw new RecallError(
      'source-unreadable',
      `${file} is not a complete JSON document (${(err as Error).message}); it is probably being written and will be read again on the next run.`,
    );
  }
}

/** Narrowing helpers for untrusted JSON. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
/** A side record's JSON, or undefined when it is missing or does not parse (it only adds to what the transcript says). */
export function jsonOrUndefined(text: string | null | undefined): unknown {
  if (text === undefined || text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
