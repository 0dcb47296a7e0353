import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { type CancellationSignal, NEVER_CANCELLED } from './cancellation';
import type { Distiller } from './distill/distiller';
import { OfflineDistiller } from './distill/offline';
import { type DistillReport, distillPending } from './distill/stage';
import type { Embedder } from './embed/embedder';
import { embedStore, type EmbedReport } from './embed/stage';
import { RecallError } from './errors';
import type { ConversationMeta, Exchange } from './model';
import { conversationKey, type DroppedExchange, segmentConversation, type SegmentOptions } from './segment';
import type { Layer } from './search/types';
import type { SourceAdapter } from './sources/adapter';
import { type DiscoveredSource, discoverSources, type DiscoverOptions } from './sources/discover';
import { parsesAsJson, readFrom, splitLines } from './sources/lines';
import { loadTermStats } from './store/distilledStore';
import type { ConversationRecord, ParseWrite, Store, WriteResult } from './store/store';
import type { SourceState } from './store/rows';
import { countTokens } from './tokens';

/**
 * Orchestration: discover -> parse -> segment -> store -> tokens -> distill, incremental and resumable.
 * Each source is written in one transaction, so a crash leaves every file either fully at its old state
 * or fully at its new one; the distill stage picks up whatever is not distilled yet.
 */
export interface IndexOptions {
  readonly discover: DiscoverOptions;
  readonly segment: SegmentOptions;
  /** The distiller of the distill stage; the offline one when not given, none with `false`. */
  readonly distiller?: Distiller | false;
  /** The embedding stage, run last (after distillation) when an embedder is configured. */
  readonly embed?: { readonly embedder: Embedder; readonly layers?: readonly Layer[] };
}

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
  readonly cancelled: boolean;
}

const HEAD_HASH_BYTES = 1024;
/** A write group closes at this many parsed bytes or sources (measured: 4 MB / 64 sources halves write time). */
const GROUP_BYTES = 4 * 1024 * 1024;
const GROUP_SOURCES = 64;

export async function indexWorkspace(
  store: Store,
  options: IndexOptions,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
): Promise<IndexReport> {
  onProgress({ phase: 'discover', done: 0, total: 0 });
  const sources = await discoverSources(options.discover);
  const report = await indexSources(store, sources, options.segment, onProgress, token);
  const tokensCounted = token.isCancellationRequested ? 0 : await countPendingTokens(store, onProgress, token);
  const distiller = options.distiller ?? offlineDistiller(store);
  const distill =
    token.isCancellationRequested || distiller === false ? undefined : await distillPending(store.db, distiller, onProgress, token);
  const embed = options.embed && !token.isCancellationRequested ? await runEmbedStage(store, options.embed, onProgress, token) : {};
  return { ...report, tokensCounted, ...(distill ? { distill } : {}), ...embed, cancelled: token.isCancellationRequested };
}

/** The offline distiller over this store's document frequencies (read once, when first needed). */
export function offlineDistiller(store: Store): OfflineDistiller {
  return new OfflineDistiller(() => loadTermStats(store.db));
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

export async function indexSources(
  store: Store,
  sources: readonly DiscoveredSource[],
  segment: SegmentOptions,
  onProgress: (p: IndexProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
): Promise<Omit<IndexReport, 'tokensCounted' | 'distill'>> {
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
  for (const [i, src] of sources.entries()) {
    if (token.isCancellationRequested) break;
    onProgress({ phase: 'parse', done: i, total: sources.length, file: src.path });
    try {
      const prepared = await prepareSource(store, src.path, src.adapter, segment);
      if (prepared === 'unchanged') {
        unchanged++;
        continue;
      }
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
  onProgress({ phase: 'parse', done: sources.length, total: sources.length });
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
): Promise<'unchanged' | { bytes: number; inserted: number; duplicates: number }> {
  const prepared = await prepareSource(store, file, adapter, segment);
  if (prepared === 'unchanged') return 'unchanged';
  return { bytes: prepared.bytes, ...(await store.writeParse(prepared.write)) };
}

/** A source parsed and segmented, ready to be written. */
interface PreparedSource {
  readonly write: ParseWrite;
  readonly bytes: number;
}

/** Reads what changed in one source and turns it into the rows to write; writes nothing. */
async function prepareSource(
  store: Store,
  file: string,
  adapter: SourceAdapter,
  segment: SegmentOptions,
): Promise<'unchanged' | PreparedSource> {
  const st = await stat(file);
  const prev = await store.getSource(file);
  if (prev && !prev.lastError && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs)) return 'unchanged';

  const full = !prev || !(await canResume(file, st.size, prev, adapter));
  const fromOffset = full ? 0 : prev.resumeOffset;
  const fromLine = full ? 1 : prev.resumeLine;
  const buf = await readFrom(file, fromOffset);
  const jsonl = adapter.lineFormat === 'jsonl';
  const chunk = splitLines(buf, fromOffset, fromLine, { holdBackPartial: jsonl, isComplete: parsesAsJson });
  const resume = full ? undefined : prev.resumeMeta;
  const { conversations, skipped } = adapter.parse({ file, lines: chunk.lines, ...(resume ? { resume } : {}) });

  const exchanges: Exchange[] = [];
  const dropped: DroppedExchange[] = [];
  const records: ConversationRecord[] = [];
  const fromPly = full ? 0 : prev.resumePly;
  let resumeAt = { offset: fromOffset, line: fromLine, ply: fromPly };
  let resumeMeta: ConversationMeta | undefined = resume;
  const located = adapter.projectOfPath?.(file);
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
    headHash: await hashRange(file, 0, Math.min(HEAD_HASH_BYTES, chunk.endOffset)),
    anchorHash: await anchorHash(file, chunk.endOffset),
    parsedOffset: chunk.endOffset,
    nextLine: chunk.nextLine,
    resumeOffset: resumeAt.offset,
    resumeLine: resumeAt.line,
    resumePly: resumeAt.ply,
    ...(resumeMeta ? { resumeMeta } : {}),
    pendingPartial: chunk.heldBackPartial,
  };
  return {
    write: { state, full, fromOffset, fromLine, conversations: records, exchanges, dropped, skipped },
    bytes: chunk.endOffset - fromOffset,
  };
}

async function canResume(file: string, size: number, prev: SourceState, adapter: SourceAdapter): Promise<boolean> {
  if (adapter.lineFormat !== 'jsonl' || adapter.agent !== prev.agent || size < prev.parsedOffset) return false;
  const head = await hashRange(file, 0, Math.min(HEAD_HASH_BYTES, prev.parsedOffset));
  return head === prev.headHash && (await anchorHash(file, prev.parsedOffset)) === prev.anchorHash;
}

/** Hash of the bytes just before `offset`: detects a file rewritten in place with a longer body. */
function anchorHash(file: string, offset: number): Promise<string> {
  const len = Math.min(HEAD_HASH_BYTES, offset);
  return hashRange(file, offset - len, len);
}

async function hashRange(file: string, start: number, length: number): Promise<string> {
  if (length <= 0) return '';
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, start);
    return createHash('sha256').update(buf.subarray(0, bytesRead)).digest('hex').slice(0, 32);
  } finally {
    await handle.close();
  }
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
