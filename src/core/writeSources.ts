import { type CancellationSignal } from './cancellation';
import { mapLimited } from './concurrency';
import { RecallError } from './errors';
import { decodeSource, type EncodedSource, type PreparedSource, prepareSource } from './prepareSource';
import type { SegmentOptions } from './segment';
import { bytesRead, isSameBytes, looksByStat, readSource, type SameBytes, sourceChange, type SourceRead } from './sourceRead';
import type { SourceAdapter } from './sources/adapter';
import type { DiscoveredSource, SeenStat } from './sources/discover';
import { ADAPTERS } from './sources/registry';
import type { SourceState } from './store/rows';
import type { Store, WriteResult } from './store/store';
import { TimeSlice } from './timeSlice';
import { PoolBroken, type WorkerPool } from './workers/pool';
import type { RunWorkers } from './workers/runWorkers';

/** What one pass over the sources did (the index report's parse figures). */
export interface SourcesPass {
  readonly sources: number;
  readonly parsed: number;
  readonly unchanged: number;
  readonly failed: Array<{ path: string; error: string }>;
  readonly bytesParsed: number;
  readonly exchangesWritten: number;
  /** Exchanges read again and found stored as they are (kept, not written again). */
  readonly exchangesKept: number;
  readonly duplicates: number;
  readonly parseMs: number;
  readonly cancelled: boolean;
}

/** A write group closes at this many parsed bytes or sources (measured: 4 MB / 64 sources halves write time). */
const GROUP_BYTES = 4 * 1024 * 1024;
const GROUP_SOURCES = 64;
/**
 * The first group is small and each next one twice as large, up to GROUP_BYTES: the first exchanges are searchable
 * as soon as one source is parsed, not after the first 4 MB.
 */
const FIRST_GROUP_BYTES = 128 * 1024;
/** Sources read ahead of the one being parsed here; with workers, sources given out per thread beyond those written. */
const READ_AHEAD = 4;
const AHEAD_PER_THREAD = 3;
/** Sources looked at (stat'ed) at a time in the first look. */
const LOOKS = 16;

type Outcome = { readonly prepared: PreparedSource | EncodedSource | 'unchanged' | SameBytes } | { readonly err: unknown };

/**
 * One pass over the sources: a first look at each (stats only: `seen`, the sizes and times discovery just saw, or
 * asked here) sets the unchanged ones aside; the others are
 * read, parsed and segmented (by the worker threads when there is enough of it, else here, a few read ahead)
 * and written in groups, one transaction each, always in discovery order: which file keeps an exchange two
 * files hold, and so the store, does not depend on which thread finished first.
 */
export async function writeSources(
  store: Store,
  sources: readonly DiscoveredSource[],
  segment: SegmentOptions,
  onProgress: (p: { phase: 'parse'; done: number; total: number; file?: string }) => void,
  token: CancellationSignal,
  workers: RunWorkers,
  seen?: ReadonlyMap<string, SeenStat>,
): Promise<SourcesPass> {
  const started = performance.now();
  let parsed = 0;
  let bytesParsed = 0;
  let exchangesWritten = 0;
  let exchangesKept = 0;
  let duplicates = 0;
  const failed: Array<{ path: string; error: string }> = [];
  const sameBytes: Array<SameBytes['sameBytes']> = [];
  const fail = async (path: string, agent: SourceAdapter['agent'], err: unknown): Promise<void> => {
    const message = (err as Error).message;
    failed.push({ path, error: message });
    await store.recordSourceError(path, agent, message).catch(() => undefined);
  };
  // One read of the states of the sources that may have changed: a lookup per file would queue behind the write in
  // flight. A file seen by discovery at the size and time the store holds is unchanged without more (in SQL).
  const known = await store.sourcesToLook(
    sources.map((src) => {
      const st = looksByStat(src.adapter, src.path) ? seen?.get(src.path) : undefined;
      return st ? { path: src.path, size: st.size, mtimeMs: Math.floor(st.mtimeMs) } : { path: src.path };
    }),
  );
  const toLook = sources.filter((src) => known.has(src.path));
  // a look with its stat in hand waits for nothing: 12,000 of them (a first index) would be one task of ~200 ms
  const slice = new TimeSlice(8);
  const looks = await mapLimited(toLook, LOOKS, async (src) => {
    await slice.yieldIfDue();
    return sourceChange(src.path, known.get(src.path), src.adapter, seen?.get(src.path));
  });
  const changed = toLook.filter((_, i) => looks[i]!.changed);
  let unchanged = sources.length - changed.length;
  // a database counts by what its read brings to parse (below), not its size: a write that changes no conversation
  // (its UI state, which Cursor writes all the time) would start the threads for nothing to parse
  const pool = workers.for({ bytes: looks.reduce((sum, l, i) => sum + (l.changed && !toLook[i]!.adapter.readRecords ? l.bytes : 0), 0) });

  // Parsed sources wait here until a group is large enough to be worth one transaction (a worker's as its bytes, made
  // into objects only for the write: EncodedSource).
  let group: Array<{ src: DiscoveredSource; prepared: PreparedSource | EncodedSource }> = [];
  let groupBytes = 0;
  let groupLimit = FIRST_GROUP_BYTES;
  let writing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    if (group.length === 0) return;
    const batch = group.map(({ src, prepared }) => ({ src, prepared: decodeSource(prepared) }));
    group = [];
    groupBytes = 0;
    let results: WriteResult[] | undefined;
    try {
      results = await store.writeParses(batch.map((b) => b.prepared.write));
    } catch (err) {
      if (stopsTheRun(err)) throw err;
      results = undefined; // one bad source must not cost its neighbours: retry each alone below
    }
    for (const [j, { src, prepared }] of batch.entries()) {
      let r = results?.[j];
      if (!r) {
        try {
          r = await store.writeParse(prepared.write);
        } catch (err) {
          if (stopsTheRun(err)) throw err;
          await fail(src.path, src.adapter.agent, err);
          continue;
        }
      }
      parsed++;
      bytesParsed += prepared.bytes;
      exchangesWritten += r.inserted;
      exchangesKept += r.kept;
      duplicates += r.duplicates;
    }
  };

  // Sources are started a few ahead of the one being written: a read is a chain of file system round trips,
  // each of which waits for this thread, and a worker should never wait for the next source.
  const ahead = pool ? pool.size * AHEAD_PER_THREAD : READ_AHEAD;
  const outcomes = new Map<number, Promise<Outcome>>();
  const start = (i: number): void => {
    const src = changed[i];
    if (src) outcomes.set(i, produce(src, known.get(src.path), segment, pool, workers).then((prepared) => ({ prepared }), (err: unknown) => ({ err })));
  };
  for (let i = 0; i < ahead; i++) start(i);
  for (const [i, src] of changed.entries()) {
    if (token.isCancellationRequested) break;
    onProgress({ phase: 'parse', done: unchanged + i, total: sources.length, file: src.path });
    start(i + ahead);
    const got = (await outcomes.get(i))!;
    outcomes.delete(i);
    try {
      if ('err' in got) throw got.err;
      if (got.prepared === 'unchanged' || isSameBytes(got.prepared)) {
        if (got.prepared !== 'unchanged') sameBytes.push(got.prepared.sameBytes);
        unchanged++;
        continue;
      }
      group.push({ src, prepared: got.prepared });
      groupBytes += got.prepared.bytes;
      if (groupBytes >= groupLimit || group.length >= GROUP_SOURCES) {
        // the write runs on SQLite's thread while the next sources are parsed; one write in flight
        await writing;
        writing = flush();
        writing.catch(() => undefined); // handled: met by the next `await writing`
        groupLimit = Math.min(GROUP_BYTES, groupLimit * 2);
      }
    } catch (err) {
      if (stopsTheRun(err)) throw err;
      await fail(src.path, src.adapter.agent, err);
    }
  }
  // what was started and not taken (a cancelled run) settles before the run goes on
  await Promise.all(outcomes.values());
  await writing;
  await flush();
  await store.setSourceTimes(sameBytes).catch(() => undefined); // not stored: read again next run
  return {
    sources: sources.length,
    parsed,
    unchanged,
    failed,
    bytesParsed,
    exchangesWritten,
    exchangesKept,
    duplicates,
    parseMs: performance.now() - started,
    cancelled: token.isCancellationRequested,
  };
}

/**
 * A write that failed for want of room on the disk: every write after it would too, each source recorded as failed
 * (the run's own record of it included) while the run seemed to end well. The run stops with the error instead; the
 * store keeps what it had written, and the next run goes on from there.
 */
function stopsTheRun(err: unknown): boolean {
  return err instanceof RecallError && err.code === 'store-full';
}

/**
 * One source read and prepared: by a worker thread when there is a pool and the adapter is in the registry, else
 * here. A database source is read here, where SQLite is, and parsed there when the run's pool is started or what
 * the read brings is worth starting it. A pool that breaks costs nothing but time: the source is prepared here.
 */
async function produce(
  src: DiscoveredSource,
  prev: SourceState | undefined,
  segment: SegmentOptions,
  runPool: WorkerPool | undefined,
  workers: RunWorkers,
): Promise<PreparedSource | EncodedSource | 'unchanged' | SameBytes> {
  const adapter = ADAPTERS.indexOf(src.adapter);
  let read: SourceRead | undefined;
  let pool = runPool;
  if (src.adapter.readRecords && adapter >= 0) {
    const records = await readSource(src.path, prev, src.adapter, src.project);
    if (records === 'unchanged' || isSameBytes(records)) return records;
    pool ??= workers.for({ bytes: bytesRead(records) });
    read = records;
  }
  if (pool && adapter >= 0) {
    try {
      return await pool.run({ kind: 'prepare', file: src.path, adapter, prev, read, segment, project: src.project, within: src.within });
    } catch (err) {
      if (!(err instanceof PoolBroken)) throw err;
    }
  }
  const own = read ?? (await readSource(src.path, prev, src.adapter, src.project, src.within));
  if (own === 'unchanged' || isSameBytes(own)) return own;
  return prepareSource(src.path, src.adapter, segment, own, { project: src.project, within: src.within });
}

