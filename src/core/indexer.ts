import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { type FileHandle, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { type CancellationSignal, NEVER_CANCELLED } from './cancellation';
import type { Distiller, DistillInput } from './distill/distiller';
import { OfflineDistiller } from './distill/offline';
import { type DistillReport, distillPending } from './distill/stage';
import type { Embedder } from './embed/embedder';
import { embedStore, type EmbedReport } from './embed/stage';
import { RecallError } from './errors';
import type { ConversationMeta, Exchange } from './model';
import { conversationKey, type DroppedExchange, segmentConversation, type SegmentOptions } from './segment';
import type { Layer } from './search/types';
import { shortenStringsPast, sideFileNames, type SourceAdapter } from './sources/adapter';
import { type DiscoveredSource, discoverSources, type DiscoverOptions, unreadableRoots } from './sources/discover';
import { insideAny } from './sources/paths';
import { type LineChunk, openTranscript, parsesAsJson, readLines, readSideFile, recordLines, type SourceLine } from './sources/lines';
import { databaseState } from './sources/walDatabase';
import { keepReplay, takeReplay } from './replays';
import { countPendingDistillation, LLM_BACKLOG, pendingDistillation } from './store/distilledStore';
import type { ConversationRecord, ParseWrite, Store, WriteResult } from './store/store';
import type { RecordGroup, RecordGroups, SourceState } from './store/rows';
import { countTokens } from './tokens';

/**
 * Orchestration: discover -> parse -> segment -> store -> tokens -> distill, incremental and resumable.
 * Each source is written in one transaction, so a crash leaves every file either fully at its old state
 * or fully at its new one; the distill stage picks up whatever is not distilled yet.
 */
export interface IndexOptions {
  readonly discover: DiscoverOptions;
  readonly segment: SegmentOptions;
  /**
   * The distiller of the distill stage: the offline one when not given, none with `false`, or a gate that
   * looks at the backlog after ingestion and decides (an LLM distiller may need the user's consent first).
   */
  readonly distiller?: Distiller | false | DistillGate;
  /** The embedding stage, run last (after distillation) when an embedder is configured. */
  readonly embed?: { readonly embedder: Embedder; readonly layers?: readonly Layer[] };
}

/** What waits for distillation after ingestion, for a gate to weigh (count it, plan a sample's cost). */
export interface DistillBacklog {
  count(): Promise<number>;
  sample(limit: number): Promise<DistillInput[]>;
}

/** Decides which distiller runs on the backlog; none, with a note saying why, leaves it waiting. */
export type DistillGate = (backlog: DistillBacklog) => Promise<{ readonly distiller?: Distiller; readonly note?: string }>;

export interface IndexProgress {
  readonly phase: 'discover' | 'parse' | 'tokens' | 'distill' | 'embed';
  readonly done: number;
  readonly total: number;
  readonly file?: string;
}

export interface IndexReport {
  readonly sources: number;
  readonly parsed: number;
  readonly unchanged: number;
  readonly failed: Array<{ path: string; error: string }>;
  readonly bytesParsed: number;
  readonly exchangesWritten: number;
  readonly duplicates: number;
  readonly parseMs: number;
  readonly tokensCounted: number;
  /** Absent when the stage did not run (cancelled before it, or no distiller). */
  readonly distill?: DistillReport;
  readonly embedded?: EmbedReport;
  /** Why the embedding stage did not run (the model stopped working): search stays lexical. */
  readonly embedNotice?: string;
  /** Why distillation waits (a gate declined), for the user. */
  readonly distillNote?: string;
  /** Folders the user named as roots (`extraRoots`) that are not folders (mistyped, removed): nothing was read there. */
  readonly unreadableRoots?: ReadonlyArray<{ readonly root: string; readonly reason: string }>;
  readonly cancelled: boolean;
}

const HEAD_HASH_BYTES = 1024;
/** A write group closes at this many parsed bytes or sources (measured: 4 MB / 64 sources halves write time). */
const GROUP_BYTES = 4 * 1024 * 1024;
const GROUP_SOURCES = 64;
/** How many sources are read ahead of the one being parsed. */
const READ_AHEAD = 4;

export async function indexWorkspace(
  store: Store,
  options: IndexOptions,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
): Promise<IndexReport> {
  onProgress({ phase: 'discover', done: 0, total: 0 });
  const unreadable = await unreadableRoots(options.discover.extraRoots);
  const sources = await discoverSources(options.discover);
  const report = await indexSources(store, sources, options.segment, onProgress, token);
  const tokensCounted = token.isCancellationRequested ? 0 : await countPendingTokens(store, onProgress, token);
  const chosen = token.isCancellationRequested ? { distiller: undefined } : await chooseDistiller(store, options.distiller);
  const distill = chosen.distiller && !token.isCancellationRequested ? await distillPending(store.db, chosen.distiller, onProgress, token) : undefined;
  const embed = options.embed && !token.isCancellationRequested ? await runEmbedStage(store, options.embed, onProgress, token) : {};
  return {
    ...report,
    tokensCounted,
    ...(distill ? { distill } : {}),
    ...embed,
    ...(chosen.note ? { distillNote: chosen.note } : {}),
    ...(unreadable.length ? { unreadableRoots: unreadable } : {}),
    cancelled: token.isCancellationRequested,
  };
}

async function chooseDistiller(store: Store, choice: IndexOptions['distiller']): Promise<{ distiller?: Distiller | undefined; note?: string }> {
  if (choice === false) return {};
  if (choice === undefined) return { distiller: offlineDistiller(store) };
  if (typeof choice !== 'function') return { distiller: choice };
  // the gate decides on an LLM distiller: its backlog includes what was distilled offline
  return choice({
    count: () => countPendingDistillation(store.db, Date.now(), LLM_BACKLOG),
    sample: (limit) => pendingDistillation(store.db, limit, 0, Date.now(), LLM_BACKLOG),
  });
}

/** The offline distiller: it needs nothing from the store (word rarity comes from a fixed list). */
export function offlineDistiller(_store?: Store): OfflineDistiller {
  return new OfflineDistiller();
}

/** The embedding stage; a model that stops working ends it with a notice (search stays lexical), not an error. */
export async function runEmbedStage(
  store: Store,
  embed: NonNullable<IndexOptions['embed']>,
  onProgress: (p: IndexProgress) => void,
  token: CancellationSignal,
): Promise<{ embedded?: EmbedReport; embedNotice?: string }> {
  try {
    const options = embed.layers ? { layers: embed.layers } : {};
    return { embedded: await embedStore(store, embed.embedder, options, (p) => onProgress({ phase: 'embed', done: p.done, total: p.total }), token) };
  } catch (err) {
    if (err instanceof RecallError && err.code === 'model-unavailable') return { embedNotice: err.message };
    throw err;
  }
}

type SourcesReport = Omit<IndexReport, 'tokensCounted' | 'distill'>;

export async function indexSources(
  store: Store,
  sources: readonly DiscoveredSource[],
  segment: SegmentOptions,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
): Promise<SourcesReport> {
  const first = await writeSources(store, sources, segment, onProgress, token);
  // A file that kept an exchange was rewritten without it: the files holding a copy are read again, so it stays.
  const orphaned = new Set(await store.releaseOrphanedCopies());
  const again = sources.filter((s) => orphaned.has(s.path));
  const second = again.length > 0 && !token.isCancellationRequested ? await writeSources(store, again, segment, onProgress, token) : undefined;
  await store.writeLedger();
  if (first.parsed + (second?.parsed ?? 0) > 0) await store.mergeSearchSegments();
  onProgress({ phase: 'parse', done: sources.length, total: sources.length });
  if (!second) return first;
  return {
    ...first,
    parsed: first.parsed + second.parsed,
    unchanged: first.unchanged - second.parsed,
    failed: [...first.failed, ...second.failed],
    bytesParsed: first.bytesParsed + second.bytesParsed,
    exchangesWritten: first.exchangesWritten + second.exchangesWritten,
    duplicates: first.duplicates + second.duplicates,
    parseMs: first.parseMs + second.parseMs,
    cancelled: second.cancelled,
  };
}

/** One pass over the sources: each changed one read, parsed and written, in groups. */
async function writeSources(
  store: Store,
  sources: readonly DiscoveredSource[],
  segment: SegmentOptions,
  onProgress: (p: IndexProgress) => void,
  token: CancellationSignal,
): Promise<SourcesReport> {
  const started = performance.now();
  let parsed = 0;
  let unchanged = 0;
  let bytesParsed = 0;
  let exchangesWritten = 0;
  let duplicates = 0;
  const failed: Array<{ path: string; error: string }> = [];
  const fail = async (path: string, agent: SourceAdapter['agent'], err: unknown): Promise<void> => {
    const message = (err as Error).message;
    failed.push({ path, error: message });
    await store.recordSourceError(path, agent, message).catch(() => undefined);
  };
  // One read of every source's state: a lookup per file would queue behind the write in flight.
  const known = await store.sourceStates();
  // Parsed sources wait here until a group is large enough to be worth one transaction.
  let group: Array<{ src: DiscoveredSource; prepared: PreparedSource }> = [];
  let groupBytes = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    if (group.length === 0) return;
    const batch = group;
    group = [];
    groupBytes = 0;
    let results: WriteResult[] | undefined;
    try {
      results = await store.writeParses(batch.map((b) => b.prepared.write));
    } catch {
      results = undefined; // one bad source must not cost its neighbours: retry each alone below
    }
    for (const [j, { src, prepared }] of batch.entries()) {
      let r = results?.[j];
      if (!r) {
        try {
          r = await store.writeParse(prepared.write);
        } catch (err) {
          await fail(src.path, src.adapter.agent, err);
          continue;
        }
      }
      parsed++;
      bytesParsed += prepared.bytes;
      exchangesWritten += r.inserted;
      duplicates += r.duplicates;
    }
  };
  // Sources are read a few ahead of the parse: a read is a chain of file system round trips, each of which
  // waits for this thread, so one started just before a parse would still be mostly ahead of us after it.
  const reads = new Map<number, Promise<{ read: SourceRead | 'unchanged' } | { err: unknown }>>();
  const startRead = (i: number): void => {
    const src = sources[i];
    if (src) reads.set(i, readSource(src.path, known.get(src.path), src.adapter, src.project).then((read) => ({ read }), (err: unknown) => ({ err })));
  };
  for (let i = 0; i < READ_AHEAD; i++) startRead(i);
  for (const [i, src] of sources.entries()) {
    if (token.isCancellationRequested) break;
    onProgress({ phase: 'parse', done: i, total: sources.length, file: src.path });
    startRead(i + READ_AHEAD);
    const got = (await reads.get(i))!;
    reads.delete(i);
    try {
      if ('err' in got) throw got.err;
      if (got.read === 'unchanged') {
        unchanged++;
        continue;
      }
      const prepared = prepareSource(src.path, src.adapter, segment, got.read, src.project, src.within);
      group.push({ src, prepared });
      groupBytes += prepared.bytes;
      if (groupBytes >= GROUP_BYTES || group.length >= GROUP_SOURCES) {
        // the write runs on SQLite's thread while the next sources are parsed here; one write in flight
        await writing;
        writing = flush();
      }
    } catch (err) {
      await fail(src.path, src.adapter.agent, err);
    }
  }
  await writing;
  await flush();
  return {
    sources: sources.length,
    parsed,
    unchanged,
    failed,
    bytesParsed,
    exchangesWritten,
    duplicates,
    parseMs: performance.now() - started,
    cancelled: token.isCancellationRequested,
  };
}

/**
 * Brings one source up to date. An appended file is parsed from the start of its last exchange (which
 * may still be growing), so appending in steps yields the same exchanges as indexing once; a truncated,
 * replaced or rewritten file (or any markdown file, which tools regenerate) is re-parsed whole.
 */
export async function indexSource(
  store: Store,
  file: string,
  adapter: SourceAdapter,
  segment: SegmentOptions,
  project?: string,
): Promise<'unchanged' | { bytes: number; inserted: number; duplicates: number }> {
  const read = await readSource(file, await store.getSource(file), adapter, project);
  if (read === 'unchanged') return 'unchanged';
  const prepared = prepareSource(file, adapter, segment, read, project);
  return { bytes: prepared.bytes, ...(await store.writeParse(prepared.write)) };
}

/** A source parsed and segmented, ready to be written. */
interface PreparedSource {
  readonly write: ParseWrite;
  readonly bytes: number;
}

/**
 * Turns what was read of one source into the rows to write; writes nothing. `project` is what discovery
 * found beside the records (Copilot's workspace.json, Gemini's project root), for formats whose records
 * name none.
 */
function prepareSource(
  file: string,
  adapter: SourceAdapter,
  segment: SegmentOptions,
  read: SourceRead,
  project?: string,
  within?: readonly string[],
): PreparedSource {
  const { st, resumed, fromOffset, fromLine, chunk } = read;
  const full = resumed === undefined && (read.groups?.full ?? true);
  const resume = resumed?.resumeMeta;
  const parsed = adapter.parse({ file, lines: chunk.lines, ...(resume ? { resume } : {}), ...(read.side ? { side: read.side } : {}), ...(read.replay !== undefined ? { replay: read.replay } : {}) });
  // kept for the next change: it is used only if what is stored then ends where this replay does
  if (parsed.replay !== undefined) keepReplay(file, chunk.endOffset, parsed.replay);
  const { skipped } = parsed;
  // a file of many workspaces' sessions keeps those of this workspace, each by the project it names
  const conversations = within ? parsed.conversations.filter((c) => c.meta.project !== undefined && insideAny(c.meta.project, within)) : parsed.conversations;

  const exchanges: Exchange[] = [];
  const dropped: DroppedExchange[] = [];
  const records: ConversationRecord[] = [];
  const fromPly = resumed?.resumePly ?? 0;
  let resumeAt = { offset: fromOffset, line: fromLine, ply: fromPly };
  let resumeMeta: ConversationMeta | undefined = resume;
  const located = adapter.projectOfPath?.(file) ?? project;
  for (const [i, conv] of conversations.entries()) {
    if (conv.meta.project === undefined && located !== undefined) conv.meta = { ...conv.meta, project: located };
    // only the first conversation can be the one that was open at the resume point
    const seg = segmentConversation(conv, segment, i === 0 && resume ? fromPly : 0);
    exchanges.push(...seg.exchanges);
    dropped.push(...seg.dropped);
    records.push({ key: conversationKey(conv), meta: conv.meta });
    resumeMeta = conv.meta;
    resumeAt = seg.lastSegmentStart ?? { offset: chunk.endOffset, line: chunk.nextLine, ply: 0 };
  }

  const state: SourceState = {
    path: file,
    agent: adapter.agent,
    size: st.size,
    mtimeMs: Math.floor(st.mtimeMs),
    headHash: read.headHash,
    anchorHash: read.anchorHash,
    parsedOffset: chunk.endOffset,
    nextLine: chunk.nextLine,
    resumeOffset: resumeAt.offset,
    resumeLine: resumeAt.line,
    resumePly: resumeAt.ply,
    ...(resumeMeta ? { resumeMeta } : {}),
    pendingPartial: chunk.heldBackPartial,
    ...(read.groups ? { recordGroups: withConversations(read.groups.entries, records) } : {}),
  };
  const replaced = read.groups && !full ? { replaced: read.groups.replaced } : {};
  return {
    write: { state, full, fromOffset, fromLine, conversations: records, exchanges, dropped, skipped, ...replaced },
    bytes: chunk.endOffset - fromOffset,
  };
}

/** A database's conversations, each naming the conversation row it wrote (a group's id is its session id). */
function withConversations(entries: RecordGroups, records: readonly ConversationRecord[]): RecordGroups {
  const keyOf = new Map(records.map((r) => [r.meta.sessionId, r.key]));
  return Object.fromEntries(
    Object.entries(entries).map(([id, g]) => {
      const conversation = g.conversation ?? keyOf.get(id);
      return [id, conversation ? { ...g, conversation } : g];
    }),
  );
}

/** All a parse needs from the file: its stat, the lines from the resume point, the hashes of head and anchor. */
interface SourceRead {
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
}

/**
 * Reads what changed in one source through one handle, held only while reading; the hashes come from the
 * bytes read when those cover the hashed range.
 */
async function readSource(file: string, prev: SourceState | undefined, adapter: SourceAdapter, project?: string): Promise<'unchanged' | SourceRead> {
  if (adapter.readRecords) return readRecordSource(file, prev, adapter);
  const { handle, st: firstSt } = await openTranscript(file);
  try {
    let fileSt: Pick<Stats, 'size' | 'mtimeMs'> = firstSt;
    const sideNames = sideFileNames(adapter, file);
    let st = sideNames ? await withSideFiles(file, fileSt, sideNames) : fileSt;
    if (prev && !prev.lastError && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs)) return 'unchanged';
    // a conversation whose project was found beside it only since (Junie's index line written after its first events) is
    // read whole again, so its earlier exchanges are tied to that project too
    const projectFound = project !== undefined && prev?.resumeMeta !== undefined && prev.resumeMeta.project === undefined;
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
    const hash = async (start: number, length: number): Promise<string> => {
      const bytes = length > 0 ? read.bytesAt(start, length) : undefined;
      return bytes ? hashBytes(bytes) : hashRange(handle, start, length);
    };
    const headHash = await hash(0, Math.min(HEAD_HASH_BYTES, chunk.endOffset));
    const anchorHash = await hash(...anchorRange(chunk.endOffset));
    const side = sideNames ? await readSideFiles(file, sideNames) : undefined;
    return { st, ...(resumed ? { resumed } : {}), ...(replay ? { replay } : {}), fromOffset, fromLine, chunk, headHash, anchorHash, ...(side ? { side } : {}) };
  } finally {
    await handle.close();
  }
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
  if (prev && !prev.lastError && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs)) return 'unchanged';
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
  return onlyGrew(handle, size, prev);
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

function hashBytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

/** Counts cl100k tokens of exchanges not counted yet: a separate stage, it is ~10x slower than parsing. */
export async function countPendingTokens(
  store: Store,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
): Promise<number> {
  let counted = 0;
  const total = (await store.stats()).tokensPending;
  for (;;) {
    if (token.isCancellationRequested) break;
    const batch = await store.exchangesWithoutTokens(200);
    if (batch.length === 0) break;
    await store.setTokenCounts(batch.map((e) => ({ n: e.n, tokens: countTokens(e.verbatim) })));
    counted += batch.length;
    onProgress({ phase: 'tokens', done: counted, total });
  }
  return counted;
}
