import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { type FileHandle, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { takeReplay } from './replays';
import { sideFileNames, shortenStringsPast, type SourceAdapter } from './sources/adapter';
import { type LineChunk, openTranscript, parsesAsJson, READ_PIECE_BYTES, readLines, readSideFile, recordLines, type SourceLine } from './sources/lines';
import { databaseState } from './sources/walDatabase';
import type { RecordGroup, RecordGroups, SourceState } from './store/rows';

/**
 * Reading a source for an index run: what changed since its stored state, through its adapter's way of being
 * read (a transcript's lines from its resume point, a database's records), and the hashes that tell an appended
 * file from a rewritten one next time. Runs on any thread (the index workers read transcripts themselves).
 */

const HEAD_HASH_BYTES = 1024;

/** What the first look at a source found: unchanged since its stored state, or changed with about how much to read. */
export type SourceChange = { readonly changed: false } | { readonly changed: true; readonly bytes: number };

/**
 * The cheap first look of an index run, stats only (nothing opened or read): whether a source changed since its
 * stored state, by the test readSource makes, and about how many bytes parsing it takes (from its resume point
 * when it can only have grown; none when it is at its stored size with its hash stored, most likely touched: the run's
 * threads are started for parsing, not for hashing). readSource looks again: a source that changes in between is read. `seen`: the
 * file's size and time as this run's discovery just saw them (not asked again).
 */
export async function sourceChange(file: string, prev: SourceState | undefined, adapter: SourceAdapter, seen?: Pick<Stats, 'size' | 'mtimeMs'>): Promise<SourceChange> {
  try {
    if (adapter.readRecords) {
      const st = adapter.recordsState ? await adapter.recordsState(file) : await databaseState(file);
      return isUnchanged(prev, st) ? { changed: false } : { changed: true, bytes: st.size };
    }
    const fileSt = seen ?? (await stat(file));
    const sideNames = sideFileNames(adapter, file);
    const st = sideNames ? await withSideFiles(file, fileSt, sideNames) : fileSt;
    if (isUnchanged(prev, st)) return { changed: false };
    // at its stored size with a hash of what was read (a touch, most likely): its read is a hash, nothing to parse
    if (prev && !prev.lastError && prev.fileHash !== undefined && prev.size === st.size) return { changed: true, bytes: 0 };
    const appended = adapter.lineFormat === 'jsonl' && !adapter.replaysLog && prev && !prev.lastError && fileSt.size >= prev.parsedOffset;
    return { changed: true, bytes: appended ? fileSt.size - prev.resumeOffset : fileSt.size };
  } catch {
    return { changed: true, bytes: 0 }; // the read says what is wrong, and records it
  }
}

/**
 * Whether the first look at `file` can be made in SQL (Store.sourcesToLook) from its size and time alone: no side
 * files, no records read through the adapter. Such a source is unchanged exactly when isUnchanged says so.
 */
export function looksByStat(adapter: SourceAdapter, file: string): boolean {
  return !adapter.readRecords && !sideFileNames(adapter, file);
}

/** A source whose size and time are those stored (and whose last read did not fail) is not read again. */
function isUnchanged(prev: SourceState | undefined, st: Pick<Stats, 'size' | 'mtimeMs'>): boolean {
  return prev !== undefined && !prev.lastError && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs);
}

/** All a parse needs from the file: its stat, the lines from the resume point, the hashes of head and anchor. */
export interface SourceRead {
  readonly st: Pick<Stats, 'size' | 'mtimeMs'>;
  /** The stored state the parse resumes from; none for a whole-file parse. */
  readonly resumed?: SourceState;
  readonly fromOffset: number;
  readonly fromLine: number;
  readonly chunk: LineChunk;
  readonly headHash: string;
  readonly anchorHash: string;
  readonly side?: ReadonlyMap<string, string>;
  /** A database read conversation by conversation: each one's state after this read, and the old ones to replace. */
  readonly groups?: { readonly entries: RecordGroups; readonly replaced: readonly RecordGroup[]; readonly full: boolean };
  /** A replayed log's state at `fromOffset`, which the lines read continue (the parse is still whole). */
  readonly replay?: unknown;
  /** A whole document's hash, all its bytes (SourceState.fileHash). */
  readonly fileHash?: string;
}

/** The bytes a read brings to parse, from where it starts to where it ends (a database's: its changed conversations' records). */
export function bytesRead(read: SourceRead): number {
  return read.chunk.endOffset - read.fromOffset;
}

/**
 * A whole document read again at the size and bytes stored (its time changed alone: a `touch`, a sync tool, a restore,
 * a checkout): nothing to parse; its new time is stored (Store.setSourceTimes).
 */
export interface SameBytes {
  readonly sameBytes: { readonly path: string; readonly size: number; readonly mtimeMs: number; readonly fileHash: string };
}

export function isSameBytes(read: object | string): read is SameBytes {
  return typeof read === 'object' && 'sameBytes' in read;
}

/**
 * Reads what changed in one source through one handle, held only while reading; the hashes come from the
 * bytes read when those cover the hashed range.
 */
export async function readSource(file: string, prev: SourceState | undefined, adapter: SourceAdapter, project?: string, within?: readonly string[]): Promise<'unchanged' | SameBytes | SourceRead> {
  if (adapter.readRecords) return readRecordSource(file, prev, adapter);
  const { handle, st: firstSt } = await openTranscript(file);
  try {
    let fileSt: Pick<Stats, 'size' | 'mtimeMs'> = firstSt;
    const sideNames = sideFileNames(adapter, file);
    let st = sideNames ? await withSideFiles(file, fileSt, sideNames) : fileSt;
    if (isUnchanged(prev, st)) return 'unchanged';
    // a conversation whose project was found beside it only since (Junie's index line written after its first events) is
    // read whole again, so its earlier exchanges are tied to that project too
    const projectFound = project !== undefined && prev?.resumeMeta !== undefined && prev.resumeMeta.project === undefined;
    const whole = !sideNames && adapter.lineFormat !== 'jsonl' && !adapter.replaysLog;
    // a whole document at its stored size: its bytes hashed first, not split into lines, which the same bytes do not need
    if (whole && prev?.fileHash !== undefined && !prev.lastError && !projectFound && prev.agent === adapter.agent && prev.size === fileSt.size && prev.parsedOffset === fileSt.size) {
      const fileHash = await hashWhole(handle, fileSt.size);
      if (fileHash === prev.fileHash) return { sameBytes: { path: file, size: fileSt.size, mtimeMs: Math.floor(fileSt.mtimeMs), fileHash } };
    }
    const resumed = prev && !projectFound && (await canResume(handle, fileSt.size, prev, adapter)) ? prev : undefined;
    const replay = prev && !resumed ? await grownLogReplay(file, handle, fileSt.size, prev, adapter) : undefined;
    const fromOffset = resumed?.resumeOffset ?? (replay ? prev!.parsedOffset : 0);
    const fromLine = resumed?.resumeLine ?? (replay ? prev!.nextLine : 1);
    const options = { holdBackPartial: adapter.lineFormat === 'jsonl', isComplete: parsesAsJson, shortenStringsPast: shortenStringsPast(adapter) };
    let read = await readLines(handle, fromOffset, fileSt.size, fromLine, options);
    // a document rewritten whole, caught mid-write (Amp, Cline, Continue write in place): read once more after a pause
    if (adapter.lineFormat === 'json' && !endsLikeDocument(read.chunk.lines)) {
      await new Promise((resolve) => setTimeout(resolve, HALF_WRITTEN_PAUSE_MS));
      fileSt = await handle.stat();
      st = sideNames ? await withSideFiles(file, fileSt, sideNames) : fileSt;
      read = await readLines(handle, fromOffset, fileSt.size, fromLine, options);
    }
    const { chunk } = read;
    // a log touched, not grown: the lines from its resume point as they were (the rest checked as a grown log's is)
    if (resumed && !sideNames && !resumed.lastError && resumed.fileHash !== undefined && st.size === resumed.size && chunk.endOffset === resumed.parsedOffset && chunk.heldBackPartial === resumed.pendingPartial && linesHash(resumed.resumeOffset, chunk.lines, { project, within }) === resumed.fileHash) {
      return { sameBytes: { path: file, size: st.size, mtimeMs: Math.floor(st.mtimeMs), fileHash: resumed.fileHash } };
    }
    const hash = async (start: number, length: number): Promise<string> => {
      const bytes = length > 0 ? read.bytesAt(start, length) : undefined;
      return bytes ? hashBytes(bytes) : hashRange(handle, start, length);
    };
    // a whole document (not a log: those resume) is known by all its bytes: read again the same, it is not parsed
    const fileHash = whole && fromOffset === 0 ? await hash(0, chunk.endOffset) : undefined;
    if (fileHash !== undefined && prev && !prev.lastError && !projectFound && prev.agent === adapter.agent && prev.fileHash === fileHash && prev.size === st.size && prev.parsedOffset === chunk.endOffset) {
      return { sameBytes: { path: file, size: st.size, mtimeMs: Math.floor(st.mtimeMs), fileHash } };
    }
    const headHash = await hash(0, Math.min(HEAD_HASH_BYTES, chunk.endOffset));
    const anchorHash = await hash(...anchorRange(chunk.endOffset));
    const side = sideNames ? await readSideFiles(file, sideNames) : undefined;
    return {
      st, ...(resumed ? { resumed } : {}), ...(replay ? { replay } : {}), fromOffset, fromLine, chunk, headHash, anchorHash, ...(side ? { side } : {}),
      ...(fileHash !== undefined ? { fileHash } : {}),
    };
  } finally {
    await handle.close();
  }
}

/** Where discovery placed a source (its project found beside it, the folders its sessions must lie in). */
export interface Placement {
  readonly project?: string | undefined;
  readonly within?: readonly string[] | undefined;
}

/**
 * A log's `SourceState.fileHash` (a document's is the hash of all its bytes): the hash of the lines from its resume
 * point as its parse took them, each with its number, offset and length in bytes, then its text (what an adapter
 * reads of a line: a line past the read's bounds has its long strings shortened or no text). A log whose size did not
 * change is read again from its resume point, as a touched log always was; lines that hash the same give the
 * parse what it had, so it is not parsed (`sameBytes`). Before the resume point, the log is checked as a grown one is
 * before it is read from there (its head and the bytes before its stored end, canResume), nothing more.
 */
export function linesHash(from: number, lines: readonly SourceLine[], placed: Placement): string {
  // where discovery placed the log goes with its lines: a log placed anew is parsed from its resume point, as before
  const h = createHash('sha256').update(`${JSON.stringify([from, placed.project ?? null, placed.within ?? null])}\n`);
  for (const line of lines) {
    if (line.offset < from) continue;
    h.update(`${line.line} ${line.offset} ${line.bytes} ${line.oversized ? 1 : 0} ${line.text.length}\n`).update(line.text);
  }
  return h.digest('hex').slice(0, 32);
}

/** How long a JSON document caught half-written is given to be finished before it is read again (once). */
const HALF_WRITTEN_PAUSE_MS = 150;

/**
 * A JSON document ends with its closing `}` or `]`; one cut short by a writer mid-rewrite (almost always) does not.
 * An oversized last line cannot be told: it is taken as it is (its parse says what it is).
 */
function endsLikeDocument(lines: readonly SourceLine[]): boolean {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.oversized) return true;
    if (line.text.trim() !== '') return /[}\]]\s*$/.test(line.text);
  }
  return false;
}

/**
 * A source read through its adapter's `readRecords`: unchanged while its state is (a database's: neither it
 * nor its write-ahead log changed, a WAL database's new rows sitting in the log until a checkpoint; a `files`
 * source's: its `recordsState`); else its records, re-read whole.
 */
async function readRecordSource(file: string, prev: SourceState | undefined, adapter: SourceAdapter): Promise<'unchanged' | SourceRead> {
  const st = adapter.recordsState ? await adapter.recordsState(file) : await databaseState(file);
  if (isUnchanged(prev, st)) return 'unchanged';
  if (adapter.recordGroups) return readRecordGroups(file, st, prev?.lastError ? undefined : prev, adapter.recordGroups);
  const lines = await adapter.readRecords!(file);
  const last = lines[lines.length - 1];
  const endOffset = last ? last.offset + last.bytes : 0;
  const chunk: LineChunk = { lines, endOffset, nextLine: lines.length + 1, heldBackPartial: false };
  return { st, fromOffset: 0, fromLine: 1, chunk, headHash: '', anchorHash: '' };
}

/**
 * A database read conversation by conversation: the fingerprints first (so a conversation that changes while
 * we read is read again next time), then only the conversations whose fingerprint changed, numbered after
 * everything the source numbered before so their rows never collide with those kept; the old rows of the
 * conversations read again are replaced (`replaced`). A conversation gone from the database keeps what it wrote.
 * Without groups stored, every conversation is read.
 */
async function readRecordGroups(
  file: string,
  st: SourceRead['st'],
  prev: SourceState | undefined,
  groups: NonNullable<SourceAdapter['recordGroups']>,
): Promise<SourceRead> {
  const fingerprints = await groups.fingerprints(file);
  const old = prev?.recordGroups;
  const changed = [...fingerprints.keys()].filter((id) => old?.[id]?.fingerprint !== fingerprints.get(id));
  const read = changed.length === 0 ? [] : await groups.read(file, old ? changed : undefined);
  const entries: Record<string, RecordGroup> = {};
  // a conversation gone from the database keeps its exchanges, like a deleted transcript file
  for (const [id, g] of Object.entries(old ?? {})) if (!fingerprints.has(id) || fingerprints.get(id) === g.fingerprint) entries[id] = g;
  const fromLine = old ? prev!.nextLine : 1;
  const fromOffset = old ? prev!.parsedOffset : 0;
  const lines: SourceLine[] = [];
  let nextLine = fromLine;
  let offset = fromOffset;
  for (const g of read) {
    const own = recordLines(g.records, nextLine, offset);
    const end = own.length ? own[own.length - 1]!.offset + own[own.length - 1]!.bytes : offset;
    // one read after the fingerprints: a conversation new since then is read again next time
    entries[g.id] = { fingerprint: fingerprints.get(g.id) ?? '', lines: [nextLine, nextLine + own.length], bytes: [offset, end] };
    lines.push(...own);
    nextLine += own.length;
    offset = end;
  }
  const replaced = Object.entries(old ?? {}).filter(([id]) => !entries[id] || entries[id] !== old![id]).map(([, g]) => g);
  const chunk: LineChunk = { lines, endOffset: offset, nextLine, heldBackPartial: false };
  return { st, fromOffset, fromLine, chunk, headHash: '', anchorHash: '', groups: { entries, replaced, full: !old } };
}

/**
 * A transcript's state with its side files': they add to what its parse says (Cline's files touched), so one
 * changing alone is a change of the source. Taken before they are read: a write after that is seen next run.
 */
async function withSideFiles(file: string, st: Pick<Stats, 'size' | 'mtimeMs'>, names: readonly string[]): Promise<{ size: number; mtimeMs: number }> {
  const sides = await Promise.all(names.map((name) => stat(path.join(path.dirname(file), name)).catch(() => undefined)));
  return sides.reduce((acc, s) => (s ? { size: acc.size + s.size, mtimeMs: Math.max(acc.mtimeMs, s.mtimeMs) } : acc), { size: st.size, mtimeMs: st.mtimeMs });
}

/** The side files present beside a transcript, by name; a missing or unreadable one is left out. */
async function readSideFiles(file: string, names: readonly string[]): Promise<Map<string, string>> {
  const side = new Map<string, string>();
  for (const name of names) {
    const text = await readSideFile(path.join(path.dirname(file), name)).catch(() => undefined);
    if (text !== undefined) side.set(name, text);
  }
  return side;
}

async function canResume(handle: FileHandle, size: number, prev: SourceState, adapter: SourceAdapter): Promise<boolean> {
  if (adapter.lineFormat !== 'jsonl' || adapter.replaysLog || adapter.agent !== prev.agent) return false;
  // a state stored without the ids read before its resume point (an older store's) cannot tell a replayed record
  if (adapter.skipsRepeatedIds && prev.seenIds === undefined) return false;
  return (await onlyGrew(handle, size, prev)) && !(await lastLineGrew(handle, size, prev.parsedOffset));
}

/**
 * The last line was taken without its newline (it parsed) and bytes were appended to it: it is another line now (two
 * records run together), and the exchanges before the resume point were cut by what it had said, so the file is read
 * whole. Appended bytes that start with the newline leave it as it was read.
 */
async function lastLineGrew(handle: FileHandle, size: number, offset: number): Promise<boolean> {
  if (offset === 0 || size <= offset || (await endsLine(handle, offset))) return false;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, offset);
  return byte[0] !== 0x0a;
}

/**
 * The kept replay of a log that only grew since it was stored: it continues from the stored end. A log
 * rewritten (VS Code's compaction to one whole state) or cut is replayed from its first line.
 */
async function grownLogReplay(file: string, handle: FileHandle, size: number, prev: SourceState, adapter: SourceAdapter): Promise<unknown> {
  if (!adapter.replaysLog || adapter.agent !== prev.agent || prev.lastError) return undefined;
  const replay = takeReplay(file, prev.parsedOffset);
  return replay !== undefined && (await endsLine(handle, prev.parsedOffset)) && (await onlyGrew(handle, size, prev)) ? replay : undefined;
}

/**
 * The byte before `offset` ends a line. A last line without its newline was replayed because it parsed;
 * bytes appended to it would make it another line, so its log is replayed whole.
 */
async function endsLine(handle: FileHandle, offset: number): Promise<boolean> {
  if (offset === 0) return true;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, offset - 1);
  return byte[0] === 0x0a;
}

/** The file still starts with the bytes it had and holds them up to the stored end: appended to, not rewritten. */
async function onlyGrew(handle: FileHandle, size: number, prev: SourceState): Promise<boolean> {
  if (size < prev.parsedOffset) return false;
  const head = await hashRange(handle, 0, Math.min(HEAD_HASH_BYTES, prev.parsedOffset));
  return head === prev.headHash && (await hashRange(handle, ...anchorRange(prev.parsedOffset))) === prev.anchorHash;
}

/** The bytes just before `offset`, whose hash detects a file rewritten in place with a longer body. */
function anchorRange(offset: number): [start: number, length: number] {
  const len = Math.min(HEAD_HASH_BYTES, offset);
  return [offset - len, len];
}

async function hashRange(handle: FileHandle, start: number, length: number): Promise<string> {
  if (length <= 0) return '';
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, start);
  return hashBytes(buf.subarray(0, bytesRead));
}

/** A file's first `size` bytes hashed as hashBytes hashes them in one piece, read a bounded piece at a time. */
async function hashWhole(handle: FileHandle, size: number): Promise<string> {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(Math.min(size, READ_PIECE_BYTES));
  for (let pos = 0; pos < size; ) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    h.update(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return h.digest('hex').slice(0, 32);
}

function hashBytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}
