import { randomBytes } from 'node:crypto';
import { link, rename, stat, unlink } from 'node:fs/promises';
import { loadVectorExtension } from './vectors';
import { RecallError } from '../errors';
import type { AgentKind, ConversationMeta, DistilledView, Exchange, ExchangeSummary, SkippedLine } from '../model';
import { distilledOf } from './browse';
import type { DroppedExchange } from '../segment';
import { Db } from './db';
import {
  type ExchangeRow,
  type FileTouchRow,
  type RecordGroup,
  type RecordGroups,
  type SourceState,
  type StoredExchange,
  isAsked,
  toFileTouch,
  toSummary,
} from './rows';
import { type LostSource, lostSources, writeLedger } from './ledger';
import { type DiscoveryChanges, type KeptDiscoveries, readDiscoveryMemo, writeDiscoveryMemo } from './discoveryMemo';
import { checkIntegrity, type IntegrityReport, repairDerived } from './integrity';
import { salvageRows, type TableSalvage } from './salvage';
import { openForSalvage } from './salvageReader';
import { readCounts, readStats, type StoreCounts, type StoreStats } from './storeStats';
import { migrate, migrationDue, type MigrationProgress, SCHEMA_VERSION } from './schema';
import { checkPages, checkPagesAside, checkShape, damagedError, type OpenCheck } from './pageCheck';
import { addIndexText } from './exchangeFts';
import { type IndexText, indexText } from '../indexText';
import { exchangeHash } from '../exchangeHash';
import { mergeFtsSegments } from './ftsSegments';
import { HeldMerges } from './lexiconHold';
import { BUSY_TIMEOUT_MS, createIfMissing, isBusy, lockedError, whileAlone } from './sharing';

/**
 * Makes the next run read a source whole: its change check fails, its resume point's hashes do not match, and a
 * database's per-conversation states are forgotten.
 */
const READ_WHOLE_AGAIN = `size = -1, head_hash = '', anchor_hash = '', record_groups = NULL, file_hash = NULL`;

/** One conversation's identity and meta, as written with a parse. */
export interface ConversationRecord {
  readonly key: string;
  readonly meta: ConversationMeta;
}

/** An exchange as the store keeps it: its messages live on in its rendering (`verbatim`). */
export type WrittenExchange = Omit<Exchange, 'messages'>;

/** What was computed of an exchange where it was parsed (prepareSource.ts): its index text and content hash. */
export interface CountedText {
  readonly index: IndexText;
  readonly hash?: string;
}

/** Everything one parse of one source produced, written in one transaction. */
export interface ParseWrite {
  readonly state: SourceState;
  /** Replace everything of this source (true) or only what starts at/after `fromOffset`/`fromLine`. */
  readonly full: boolean;
  readonly fromOffset: number;
  readonly fromLine: number;
  readonly conversations: readonly ConversationRecord[];
  readonly exchanges: readonly WrittenExchange[];
  /** Per exchange, in order, when computed with the parse; else the index text is computed here. */
  readonly counted?: readonly CountedText[];
  readonly dropped: readonly DroppedExchange[];
  readonly skipped: readonly SkippedLine[];
  /** Conversations of a database source read again or gone (`full` false): their old rows go first. */
  readonly replaced?: readonly RecordGroup[];
}

export interface WriteResult {
  readonly inserted: number;
  /** Exchanges already stored from this source as parsed (same id and content hash): kept as they were. */
  readonly kept: number;
  /** Exchanges already stored from another file (e.g. a `--resume` replay): kept once. */
  readonly duplicates: number;
}

/**
 * Reads go through a memory map of the store's first 256 MiB (SQLite's mmap I/O) instead of a read() call and a copy
 * per page: a search at 50K exchanges walks megabytes of FTS5 posting lists, which then cost ~0.2 ms of system
 * time instead of ~1 ms (docs/search-log.md, "Latency passes"). Writes still go through write(). The file never shrinks while
 * open (nothing runs VACUUM), so no mapped page goes away under a reader. Every page a search touched in the map
 * stays in the process's memory while the store is open: 256 MiB instead of 1 GiB bounds that, at no cost a
 * search showed (issue 42, MCP server at 250K exchanges: 9.9 against 9.7 ms of CPU per search, 54 MB less mapped
 * after 400 searches; docs/benchmarks-log.md).
 */
export const MMAP_BYTES = 256 * 2 ** 20;

/** Sources a statement of the first look's look-up (Store.sourcesToLook) holds. */
const LOOK_PAGE = 1_000;

/**
 * The durable memory: one SQLite file per workspace. Verbatim text lives here (agents delete their
 * transcripts; the memory must not), with FTS5 over it and sqlite-vec loaded for vectors.
 */
export class Store {
  /** What opening found lost (ledger.ts), kept: the scan of every source's exchanges is not repeated to report it. */
  private lostOnOpen: readonly LostSource[] = [];
  private readerOpening: Promise<Db | undefined> | undefined;
  /** Whether sqlite-vec loaded on the second connection too (vectorReader). */
  private readerVectors = false;
  private closing = false;
  /** Works under way that read this connection without the memory map (unmappedWhile). */
  private unmapped = 0;
  /** The lexicon's merges while a write pass holds them (lexiconMergesHeld). */
  private heldMerges: HeldMerges | undefined;
  private pagesChecked: Promise<void> = Promise.resolve();
  /** Ends the check of the pages still running in the background (the store is closing). */
  private stopCheck: (() => Promise<void>) | undefined;
  /** What the check in the background found: a reader opened after it refuses too. */
  private damage: Error | undefined;

  private constructor(
    readonly db: Db,
    readonly vectorsAvailable: boolean,
    readonly vectorError?: string,
  ) {}

  /**
   * Opens (creating when missing) and migrates the store. A file that is not a healthy SQLite database
   * raises `store-corrupt`; callers offer `Store.rebuild`. A store another process holds locked longer than
   * BUSY_TIMEOUT_MS raises `store-locked`: busy is not damage. `onMigration` hears how far a long migration of a
   * store an older version wrote has come (the store is not usable before it ends). `check`: how much of the
   * store is checked before it is returned (OpenCheck); with 'background', `verified` says how the rest went.
   */
  static async open(
    file: string,
    { onMigration, check = 'full' }: { onMigration?: (progress: MigrationProgress) => void; check?: OpenCheck } = {},
  ): Promise<Store> {
    await createIfMissing(file);
    const db = await Db.open(file);
    let aside: ReturnType<typeof checkPagesAside> | undefined;
    try {
      // first, so every later statement (the journal mode too) waits for another process's lock
      await db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      await db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA mmap_size = 0;');
      // a migration writes: a store is checked whole before it is written to
      if (check === 'full' || (await migrationDue(db))) await checkPages(db);
      else {
        await checkShape(db);
        aside = checkPagesAside(file);
        db.writesAfter(aside.done);
      }
      // unmapped: a migration may read every exchange, and a map keeps every page it touched (schema v19 at 250,000
      // exchanges: 441 MB at the peak mapped, 214 MB unmapped, the same CPU)
      await migrate(db, SCHEMA_VERSION, onMigration);
      // Searches map the file (MMAP_BYTES) once it is known readable.
      await db.exec(`PRAGMA mmap_size = ${MMAP_BYTES};`);
    } catch (err) {
      await aside?.stop();
      await db.close().catch(() => undefined);
      if (err instanceof RecallError) throw err;
      if (isBusy(err)) throw lockedError(file, err);
      throw damagedError(file, err);
    }
    const store = await Store.withVectors(db);
    if (aside) store.checkAside(aside);
    // writes only when something was lost: then after the check
    await store.markLostSourcesStale().catch(async (err: unknown) => {
      await store.close();
      throw err;
    });
    return store;
  }

  /**
   * Resolves once every page of the store has been checked and found sound (at once when `open` checked them);
   * rejects with `store-corrupt` when they were not: every statement on the store fails with that error from then on.
   */
  get verified(): Promise<void> {
    return this.pagesChecked;
  }

  private checkAside(aside: ReturnType<typeof checkPagesAside>): void {
    this.stopCheck = aside.stop;
    this.pagesChecked = aside.done.catch(async (err: unknown) => {
      const damaged = err as Error;
      this.db.refuse(damaged);
      (await this.readerOpening)?.refuse(damaged);
      this.damage = damaged;
      throw damaged;
    });
    this.pagesChecked.catch(() => undefined); // reported to whoever asks `verified`, and by every statement
  }

  /**
   * Sources whose last recorded writes this store no longer holds (ledger.ts: a lost write-ahead log, an older
   * copy restored). Those still held in an older state are re-parsed whole by the next index run (sources not
   * held at all are new to it anyway); what is lost for good is what `lostSources` lists without a transcript.
   */
  private async markLostSourcesStale(): Promise<void> {
    const lost = await lostSources(this.db);
    this.lostOnOpen = lost;
    if (lost.length === 0) return;
    await this.db.run(`UPDATE sources SET ${READ_WHOLE_AGAIN} WHERE path IN (SELECT value FROM json_each(?))`, [
      JSON.stringify(lost.map((l) => l.path)),
    ]);
  }

  /** What the store had recorded after its last index run and no longer held when it was opened (empty when nothing was missing). */
  get lostAtOpen(): readonly LostSource[] {
    return this.lostOnOpen;
  }

  /**
   * Runs `work` (an index run) with this connection reading without the memory map: a map keeps every page it
   * touched, and an index run's writes and merges touch the whole store (a first index of 1 GB of transcripts held
   * 318 MB of mapped store). The map is set again after it, so searches map only what they read.
   */
  async unmappedWhile<T>(work: () => Promise<T>): Promise<T> {
    if (this.unmapped++ === 0) await this.db.exec('PRAGMA mmap_size = 0');
    try {
      return await work();
    } finally {
      // the map comes back when the last of them ends (stats() read during an index run)
      if (--this.unmapped === 0) await this.db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`).catch(() => undefined);
    }
  }

  /**
   * Runs `work` (a pass writing many sources, a group a transaction) with the lexicon's merges held to its end,
   * then merges what it added in a transaction of its own (lexicon.ts, HeldMerges): a first index writes each
   * exchange's postings twice instead of ~2.7 times. Work failing leaves its segments to the next write's merges.
   * A pass within a pass is part of the outer one.
   */
  async lexiconMergesHeld<T>(work: () => Promise<T>): Promise<T> {
    if (this.heldMerges) return work();
    const held = await HeldMerges.begin(this.db);
    this.heldMerges = held;
    let done: T;
    try {
      done = await work();
    } finally {
      this.heldMerges = undefined;
    }
    // a pass that wrote nothing (every source unchanged) writes nothing here either
    if (await held.pending(this.db)) await this.db.transaction(() => held.release(this.db));
    return done;
  }

  /** Records, beside the store, what it holds now: called after an index run's last commit. */
  writeLedger(): Promise<void> {
    return writeLedger(this.db);
  }

  /** What earlier discoveries of `key` found of each file (discoveryMemo.ts); none for another key's. */
  discoveryMemo(key: string): Promise<KeptDiscoveries> {
    return readDiscoveryMemo(this.db, key);
  }

  /** Keeps what a discovery changed in its memo, for the next process's first whole run. */
  keepDiscoveryMemo(changes: DiscoveryChanges): Promise<void> {
    return writeDiscoveryMemo(this.db, changes);
  }

  /** After an index run: the verbatim index in one segment again when many have piled up (ftsSegments.ts). */
  mergeSearchSegments(): Promise<boolean> {
    return mergeFtsSegments(this.db);
  }

  /** A store over an open handle, with sqlite-vec when it loads; without it search stays lexical, said once. */
  private static async withVectors(db: Db): Promise<Store> {
    try {
      await loadVectorExtension(db);
      return new Store(db, true, undefined);
    } catch (err) {
      return new Store(db, false, `sqlite-vec could not be loaded (${(err as Error).message}); search stays lexical.`);
    }
  }

  /**
   * A second connection for writing to a store this process has open already (`open` created, checked and migrated
   * it): an index run on a thread of its own (workers/apartRun.ts). Nothing is created, checked or migrated here; a
   * store of another schema version is refused, as a missing file is.
   */
  static async openBeside(file: string): Promise<Store> {
    if (!(await exists(file))) throw new RecallError('store-io', `There is no Agent Recall store at ${file}.`);
    const db = await Db.open(file);
    try {
      await db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      await db.exec('PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA mmap_size = 0;');
      const found = (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
      if (found !== SCHEMA_VERSION) throw new RecallError('store-io', `The store ${file} has schema version ${found}, not ${SCHEMA_VERSION}: it is opened beside a connection that migrated it.`);
    } catch (err) {
      await db.close().catch(() => undefined);
      if (err instanceof RecallError) throw err;
      if (isBusy(err)) throw lockedError(file, err);
      throw damagedError(file, err);
    }
    return Store.withVectors(db);
  }

  /**
   * Opens an existing store for reading only, beside a process that may be indexing into it (WAL: readers
   * never block the writer, nor wait for it). Nothing is created, migrated or written; a store of another
   * schema version is refused with what to do about it. A writer's exclusive lock (a repair, a store not in
   * WAL mode) is waited for up to `busyTimeoutMs`, then raises `store-locked`: busy is not damage.
   */
  static async openReadOnly(file: string, { busyTimeoutMs = BUSY_TIMEOUT_MS } = {}): Promise<Store> {
    if (!(await exists(file))) throw new RecallError('store-io', `There is no Agent Recall store at ${file}.`);
    const db = await Db.open(file, { readonly: true });
    try {
      // first, so the first read of the file already waits for another process's lock
      await db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA query_only = ON; PRAGMA mmap_size = ${MMAP_BYTES};`);
      const found = (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
      if (found > SCHEMA_VERSION) {
        throw new RecallError('store-too-new', `The store ${file} has schema version ${found}, written by a newer Agent Recall (this one knows up to ${SCHEMA_VERSION}). Update Agent Recall.`);
      }
      if (found < SCHEMA_VERSION) {
        throw new RecallError(
          'store-io',
          `The store ${file} has schema version ${found}; this Agent Recall reads version ${SCHEMA_VERSION}. Open the workspace in VS Code (or run \`agent-recall index\` on it) once to upgrade it.`,
        );
      }
    } catch (err) {
      await db.close().catch(() => undefined);
      if (err instanceof RecallError) throw err;
      if (isBusy(err)) throw lockedError(file, err, busyTimeoutMs);
      throw new RecallError('store-corrupt', `The Agent Recall store ${file} cannot be read (${(err as Error).message}).`, { cause: err });
    }
    return Store.withVectors(db);
  }

  /**
   * Replaces a damaged store: every row that can still be read is copied into a fresh store (`salvaged` says
   * what was copied and lost, table by table), the damaged file is moved aside (kept for inspection) and the
   * fresh one takes its place. Refused with `store-locked` while another process has the store open: moving
   * a live store aside would leave that process writing to the moved file while this one starts over.
   */
  static async rebuild(file: string): Promise<{ store: Store; movedTo?: string; salvaged?: TableSalvage[] }> {
    if (!(await exists(file))) return { store: await Store.open(file) };
    const movedTo = `${file}.corrupt-${Date.now()}`;
    let salvaged: TableSalvage[] | undefined;
    await whileAlone(file, async (locked) => {
      // A file SQLite refuses cannot be locked, nor used by anyone else: a file cut short is still read, read-only.
      const reader = locked ? undefined : await openForSalvage(file);
      const damaged = locked ?? reader?.db;
      const fresh = damaged ? await salvageInto(damaged, file).finally(() => reader?.close()) : undefined;
      try {
        await rename(file, movedTo);
        for (const suffix of ['-wal', '-shm']) {
          if (await exists(file + suffix)) await rename(file + suffix, movedTo + suffix);
        }
        if (fresh) {
          await link(fresh.file, file);
          salvaged = fresh.tables;
        }
      } finally {
        if (fresh) await unlink(fresh.file).catch(() => undefined);
      }
    });
    const store = await Store.open(file);
    if (salvaged) {
      // the copied rows are the truth: full-text indexes and orphans are rebuilt from them
      await store.repair();
      // a transcript that lost some of its exchanges looks unchanged to the next run: every one is read again whole
      await store.markAllSourcesStale();
    }
    return { store, movedTo, ...(salvaged ? { salvaged } : {}) };
  }

  async close(): Promise<void> {
    this.closing = true; // a search still running must not open a reader nothing would close
    await this.stopCheck?.();
    const reader = await this.readerOpening;
    this.readerOpening = undefined;
    await reader?.close();
    await this.db.close();
  }

  /**
   * A second, read-only connection to the store, so a search can run two statements at once on two cores
   * (SQLite runs one statement at a time on a connection). Opened at the first call made outside a snapshot
   * (or by `openSecond`), closed with the store; undefined when it cannot be opened, or while `db` has a transaction
   * or snapshot open: this connection reads only what is committed, and must not mix into a snapshot what came
   * after it. Asked inside one, it answers at once: the MCP server's first search, each in a snapshot, waited for
   * this connection to open (and sqlite-vec to load on it) only to be told to read on `db`.
   */
  async reader(): Promise<Db | undefined> {
    if (this.closing || this.db.inTransaction) return undefined;
    const reader = await this.openSecond();
    return this.db.inTransaction ? undefined : reader;
  }

  /** Opens the second connection (`reader`) now, if it is not open or opening: undefined when it cannot be. */
  openSecond(): Promise<Db | undefined> {
    if (this.closing) return Promise.resolve(undefined);
    return (this.readerOpening ??= this.openReader());
  }

  /**
   * The second connection, with sqlite-vec, whether or not `db` has a snapshot open: for reads that need not be of
   * a search's snapshot (a distance bound's sample: any bound leaves the KNN exact), so that they run beside the
   * search's statements instead of before them. Undefined when it cannot be opened or sqlite-vec did not load on it.
   */
  async vectorReader(): Promise<Db | undefined> {
    if (this.closing || !this.vectorsAvailable) return undefined;
    const reader = await this.openSecond();
    return this.readerVectors ? reader : undefined;
  }

  private openReader(): Promise<Db | undefined> {
    return Db.open(this.db.file, { readonly: true }).then(
      async (reader) => {
        try {
          await reader.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA query_only = ON; PRAGMA mmap_size = ${MMAP_BYTES};`);
          if (this.damage) reader.refuse(this.damage);
          if (this.vectorsAvailable) this.readerVectors = await loadVectorExtension(reader).then(() => true, () => false);
          return reader;
        } catch {
          await reader.close().catch(() => undefined);
          return undefined;
        }
      },
      () => undefined,
    );
  }

  async getSource(path: string): Promise<SourceState | undefined> {
    const r = await this.db.get<SourceRow>('SELECT * FROM sources WHERE path = ?', [path]);
    return r ? fromSourceRow(r) : undefined;
  }

  /** Every source's state by path: what an indexing run compares the files on disk with. */
  async sourceStates(): Promise<Map<string, SourceState>> {
    const rows = await this.db.all<SourceRow>('SELECT * FROM sources');
    return new Map(rows.map((r) => [r.path, fromSourceRow(r)]));
  }

  /**
   * The stored states an index run's first look needs, in one pass on SQLite's thread however many sources
   * (reading every row here took ~300 ms at 12,000 sources, their seen ids included): each source given, by path,
   * with its state (undefined: not in the store), except those given with the size and time they were just seen
   * at (`mtimeMs` whole) when the store holds that size and time and no error: those are unchanged and left out.
   */
  async sourcesToLook(sources: ReadonlyArray<{ readonly path: string; readonly size?: number; readonly mtimeMs?: number }>): Promise<Map<string, SourceState | undefined>> {
    const states = new Map<string, SourceState | undefined>();
    // a page of paths a statement: a statement's parameter is made and its rows are read in one task each, and a
    // first index's 12,096 sources, every one of them unknown, held the extension host's thread 30-40 ms in one
    for (let from = 0; from < sources.length; from += LOOK_PAGE) {
      const page = sources.slice(from, from + LOOK_PAGE);
      const looks = JSON.stringify(page.map((s) => (s.size !== undefined && s.mtimeMs !== undefined ? [s.path, s.size, s.mtimeMs] : [s.path])));
      // one pass over the paths (two took ~60 ms each of SQLite's thread at 12,000 sources, before a whole run's
      // first words were written): each one to look at, with its row's id when the store holds it; the unknown ones
      // (a first index: every one of them) as paths alone
      const looked = await this.db.all<{ look: string; id: number | null }>(
        `SELECT j.value ->> 0 AS look, s.id AS id FROM json_each(?) j LEFT JOIN sources s ON s.path = j.value ->> 0
         WHERE s.id IS NULL OR j.value ->> 1 IS NULL OR s.last_error IS NOT NULL OR s.size != j.value ->> 1 OR s.mtime_ms != j.value ->> 2`,
        [looks],
      );
      const ids: number[] = [];
      for (const r of looked) {
        if (r.id === null) states.set(r.look, undefined);
        else ids.push(r.id);
      }
      const rows = ids.length > 0 ? await this.db.all<SourceRow>('SELECT * FROM sources WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)]) : [];
      for (const r of rows) states.set(r.path, fromSourceRow(r));
    }
    return states;
  }

  async sourcePaths(): Promise<string[]> {
    return (await this.db.all<{ path: string }>('SELECT path FROM sources ORDER BY path')).map((r) => r.path);
  }

  async isEmpty(): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS one FROM sources LIMIT 1')) === undefined;
  }

  /**
   * Stores the sizes and times of sources read again and found holding the bytes they held (SameBytes, sourceRead.ts):
   * the next run sees them unchanged. A source written since (another process) is left to its next read.
   */
  async setSourceTimes(seen: ReadonlyArray<{ readonly path: string; readonly size: number; readonly mtimeMs: number; readonly fileHash: string }>): Promise<void> {
    if (seen.length === 0) return;
    await this.db.run(
      `UPDATE sources SET size = j.value ->> 1, mtime_ms = j.value ->> 2 FROM json_each(?) j
       WHERE sources.path = j.value ->> 0 AND sources.size = j.value ->> 1 AND sources.file_hash = j.value ->> 3 AND sources.last_error IS NULL`,
      [JSON.stringify(seen.map((s) => [s.path, s.size, Math.floor(s.mtimeMs), s.fileHash]))],
    );
  }

  /** Records that a source could not be read, without touching what was indexed from it before. */
  async recordSourceError(path: string, agent: AgentKind, message: string): Promise<void> {
    await this.db.run(
      `INSERT INTO sources(path, agent, last_error) VALUES (?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET last_error = excluded.last_error`,
      [path, agent, message],
    );
  }

  /**
   * Makes the next run re-parse every source whole (a rebuild) WITHOUT deleting anything: exchanges of
   * transcripts the agent has since deleted stay in the store, which is the point of keeping them. The exchanges'
   * content hashes are forgotten too, so every exchange read again is written again with all that is made of it
   * (distilled object, rooms, vectors, token count): a rebuild is the way out when something derived looks wrong,
   * where a touched transcript keeps what it holds (keepUnchanged).
   */
  async markAllSourcesStale(): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.run(`UPDATE sources SET ${READ_WHOLE_AGAIN}`);
      await this.db.run('UPDATE exchanges SET content_hash = NULL WHERE content_hash IS NOT NULL');
    });
  }

  /**
   * The sources holding a copy of an exchange no source keeps any more (the file that kept its row was rewritten
   * without it): their copy rows go and they are marked to be read whole again, so the exchange is stored under
   * one of them instead of being lost. Their paths.
   */
  async releaseOrphanedCopies(): Promise<string[]> {
    const orphan = 'NOT EXISTS (SELECT 1 FROM exchanges e WHERE e.id = c.exchange_id)';
    return this.db.transaction(async () => {
      const rows = await this.db.all<{ id: number; path: string }>(
        `SELECT DISTINCT s.id, s.path FROM exchange_copies c JOIN sources s ON s.id = c.source_id WHERE ${orphan}`,
      );
      if (rows.length === 0) return [];
      await this.db.run(`DELETE FROM exchange_copies AS c WHERE ${orphan}`);
      await this.db.run(`UPDATE sources SET ${READ_WHOLE_AGAIN} WHERE id IN (SELECT value FROM json_each(?))`, [
        JSON.stringify(rows.map((r) => r.id)),
      ]);
      return rows.map((r) => r.path);
    });
  }

  async writeParse(w: ParseWrite): Promise<WriteResult> {
    return (await this.writeParses([w]))[0]!;
  }

  /**
   * Writes several sources' parses in ONE transaction: each source is still all-or-nothing, and small
   * files no longer pay a commit (and a tiny FTS segment) each. A failing group is rejected whole; the
   * caller retries its sources one by one to isolate the bad one. Each table is written for the whole
   * group in a few multi-row statements: every statement is a round trip through the driver's thread,
   * which waits for the parser on the main thread, so hundreds of them per group held the writes back.
   */
  async writeParses(ws: readonly ParseWrite[]): Promise<WriteResult[]> {
    const held = this.heldMerges;
    try {
      const results = await this.db.transaction(async () => {
        const ids = await this.upsertSources(ws.map((w) => w.state));
        if (!(await this.mustWriteInTurn(ws, ids))) return this.replaceRows(ws, ids);
        const out: WriteResult[] = [];
        for (const [i, w] of ws.entries()) out.push(...(await this.replaceRows([w], [ids[i]!])));
        return out;
      });
      // the pass's memory of the lexicon segments this wrote holds only what committed (WrittenPostings)
      held?.written.committed();
      return results;
    } catch (err) {
      held?.written.rolledBack();
      throw err;
    }
  }

  /** Upserts the sources' states; their ids, in order. */
  private async upsertSources(states: readonly SourceState[]): Promise<number[]> {
    const now = Date.now();
    const rows = await this.db.insertRows<{ id: number; path: string }>(
      `INSERT INTO sources(path, agent, size, mtime_ms, head_hash, anchor_hash, parsed_offset, next_line,
         resume_offset, resume_line, resume_ply, resume_meta, pending_partial, last_error, indexed_at, record_groups, seen_ids, file_hash)`,
      states.map((s) => [
        s.path, s.agent, s.size, s.mtimeMs, s.headHash, s.anchorHash, s.parsedOffset, s.nextLine,
        s.resumeOffset, s.resumeLine, s.resumePly, s.resumeMeta ? JSON.stringify(s.resumeMeta) : null, s.pendingPartial ? 1 : 0,
        null, now, s.recordGroups ? JSON.stringify(s.recordGroups) : null, s.seenIds ? JSON.stringify(s.seenIds) : null, s.fileHash ?? null,
      ]),
      `ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, size = excluded.size, mtime_ms = excluded.mtime_ms,
         head_hash = excluded.head_hash, anchor_hash = excluded.anchor_hash, parsed_offset = excluded.parsed_offset,
         next_line = excluded.next_line, resume_offset = excluded.resume_offset, resume_line = excluded.resume_line,
         resume_ply = excluded.resume_ply, resume_meta = excluded.resume_meta, pending_partial = excluded.pending_partial, last_error = NULL,
         indexed_at = excluded.indexed_at, record_groups = excluded.record_groups, seen_ids = excluded.seen_ids, file_hash = excluded.file_hash
       RETURNING id, path`,
    );
    const byPath = new Map(rows.map((r) => [r.path, r.id]));
    return states.map((s) => byPath.get(s.path)!);
  }

  /**
   * Written together, every source's old rows go before any source's new ones; source by source, an
   * exchange already stored under a LATER source of the group would still be there when an earlier source
   * brings the same id (a `--resume` replay: a duplicate, kept under the later file). Such a group, and one
   * naming a file twice, is written source by source, so grouping never changes what is stored.
   */
  private async mustWriteInTurn(ws: readonly ParseWrite[], ids: readonly number[]): Promise<boolean> {
    if (ws.length < 2) return false;
    if (new Set(ids).size < ids.length) return true;
    const bringers = new Map<string, number[]>();
    for (const [i, w] of ws.entries()) for (const e of w.exchanges) bringers.set(e.id, [...(bringers.get(e.id) ?? []), ids[i]!]);
    const group = new Set(ids);
    const stored = await this.db.all<{ id: string; source_id: number }>(
      'SELECT e.id, e.source_id FROM json_each(?) j JOIN exchanges e ON e.id = j.value',
      [JSON.stringify([...bringers.keys()])],
    );
    return stored.some((r) => group.has(r.source_id) && bringers.get(r.id)!.some((s) => s !== r.source_id));
  }

  /** The stored conversations these parses give another title than the one stored. */
  private async retitledConversations(ws: readonly ParseWrite[]): Promise<string[]> {
    const titles = new Map(ws.flatMap((w) => w.conversations.flatMap(({ key, meta }) => (meta.title !== undefined ? [[key, meta.title] as const] : []))));
    if (titles.size === 0) return [];
    const stored = await this.db.all<{ id: string; title: string | null }>(
      'SELECT id, title FROM conversations WHERE id IN (SELECT value FROM json_each(?))',
      [JSON.stringify([...titles.keys()])],
    );
    return stored.filter((c) => c.title !== titles.get(c.id)).map((c) => c.id);
  }

  /** Replaces what each parse covers of its source (`ids`: the sources' ids, in order) with its rows. */
  private async replaceRows(ws: readonly ParseWrite[], ids: readonly number[]): Promise<WriteResult[]> {
    const hashes = ws.map((w) => {
      const projects = new Map(w.conversations.map((c) => [c.key, c.meta.project]));
      return w.exchanges.map((e, j) => w.counted?.[j]?.hash ?? exchangeHash({ ...e, project: projects.get(e.conversationKey) }));
    });
    // the exchanges these parses cover that are stored as parsed stay; the others they cover go
    const kept = await this.keepUnchanged(ws, ids, hashes);
    const whole = JSON.stringify(ids.filter((_, i) => ws[i]!.full));
    if (whole !== '[]') {
      await this.db.run('DELETE FROM skipped_lines WHERE source_id IN (SELECT value FROM json_each(?))', [whole]);
      await this.db.run('DELETE FROM dropped_exchanges WHERE source_id IN (SELECT value FROM json_each(?))', [whole]);
      await this.db.run('DELETE FROM exchange_copies WHERE source_id IN (SELECT value FROM json_each(?))', [whole]);
    }
    for (const [i, w] of ws.entries()) {
      if (w.full) continue;
      if (w.replaced?.length) await this.deleteGroups(ids[i]!, w.replaced);
      await this.db.run('DELETE FROM skipped_lines WHERE source_id = ? AND line >= ?', [ids[i]!, w.fromLine]);
      await this.db.run('DELETE FROM dropped_exchanges WHERE source_id = ? AND byte_start >= ?', [ids[i]!, w.fromOffset]);
      await this.db.run('DELETE FROM exchange_copies WHERE source_id = ? AND line_start >= ?', [ids[i]!, w.fromLine]);
    }
    const retitled = await this.retitledConversations(ws);
    await this.replaceConversations(ws, ids);
    await this.db.insertRows(
      `INSERT INTO conversations(id, source_id, agent, session_id, project, git_branch, title, started_at, is_subagent,
         parent_session_id, model, line)`,
      ws.flatMap((w, i) =>
        w.conversations.map(({ key, meta: m }) => [
          key, ids[i]!, m.agent, m.sessionId, m.project ?? null, m.gitBranch ?? null, m.title ?? null,
          m.startedAt ?? null, m.isSubagent ? 1 : 0, m.parentSessionId ?? null, m.model ?? null, m.line,
        ]),
      ),
      `ON CONFLICT(id) DO UPDATE SET project = coalesce(excluded.project, project),
         git_branch = coalesce(excluded.git_branch, git_branch), title = coalesce(excluded.title, title),
         started_at = coalesce(started_at, excluded.started_at), model = coalesce(excluded.model, model)`,
    );
    // the offline detail line of a follow-up shows its conversation's title (distill/subject.ts): a title the agent
    // wrote (or rewrote) after some of its exchanges were distilled puts them back in the offline distiller's backlog
    if (retitled.length > 0) {
      await this.db.run(
        `UPDATE distilled SET prompt_version = '' WHERE distiller = 'offline'
           AND exchange_n IN (SELECT n FROM exchanges WHERE conversation_id IN (SELECT value FROM json_each(?)))`,
        [JSON.stringify(retitled)],
      );
    }
    // An id already stored (or brought twice) inserts nothing and is not returned: a duplicate.
    const inserted = await this.db.insertRows<{ n: number; id: string }>(
      `INSERT INTO exchanges(id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start,
         started_at, date_precision, ended_at, prompt, verbatim, asked, content_hash)`,
      ws.flatMap((w, i) =>
        w.exchanges.flatMap((e, j) =>
          kept.has(e.id)
            ? []
            : [[
                e.id, e.conversationKey, ids[i]!, e.part, e.plyStart, e.plyEnd, e.lineStart, e.lineEnd, e.byteStart,
                e.startedAt ?? null, e.datePrecision ?? null, e.endedAt ?? null, e.prompt, e.verbatim, isAsked(e.prompt) ? 1 : 0,
                hashes[i]![j]!,
              ]],
        ),
      ),
      'ON CONFLICT(id) DO NOTHING RETURNING n, id',
    );
    const rowOf = new Map(inserted.map((r) => [r.id, r.n]));
    // the first of an id wins
    const byId = new Map(ws.flatMap((w) => w.exchanges.map((e, j) => [e.id, { e, index: w.counted?.[j]?.index }] as const)).reverse());
    await addIndexText(
      this.db,
      inserted.map((r) => {
        const { e, index } = byId.get(r.id)!;
        return { n: r.n, prompt: e.prompt, text: index ?? indexText(e.prompt, e.verbatim) };
      }),
      this.heldMerges,
    );
    const files: Array<[number, string, string, string | null]> = [];
    const copies: Array<[string, number, number, number]> = [];
    const results = ws.map((w, i) => {
      let count = 0;
      let keptHere = 0;
      for (const e of w.exchanges) {
        if (kept.delete(e.id)) {
          keptHere++; // the first exchange with this id is the one kept; any other is a copy, as below
          continue;
        }
        const n = rowOf.get(e.id);
        if (n === undefined) {
          copies.push([e.id, ids[i]!, e.lineStart, e.lineEnd]);
          continue;
        }
        rowOf.delete(e.id); // the first exchange with this id is the stored one
        count++;
        for (const f of e.filesTouched) files.push([n, f.path, f.how, f.lines?.length ? JSON.stringify(f.lines) : null]);
      }
      return { inserted: count, kept: keptHere, duplicates: w.exchanges.length - count - keptHere };
    });
    // exchanges another source holds: that source keeps the row, this one is recorded as a copy
    if (copies.length > 0) {
      await this.db.run(
        `INSERT OR REPLACE INTO exchange_copies(exchange_id, source_id, line_start, line_end)
         SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 FROM json_each(?) j
         JOIN exchanges e ON e.id = j.value ->> 0 WHERE e.source_id != j.value ->> 1`,
        [JSON.stringify(copies)],
      );
    }
    if (files.length > 0) {
      await this.db.run(
        `INSERT OR IGNORE INTO files_touched(exchange_n, path, how, lines)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
        [JSON.stringify(files)],
      );
    }
    await this.db.insertRows(
      'INSERT OR REPLACE INTO skipped_lines(source_id, line, reason)',
      ws.flatMap((w, i) => w.skipped.map((k) => [ids[i]!, k.line, k.reason])),
    );
    await this.db.insertRows(
      'INSERT OR REPLACE INTO dropped_exchanges(source_id, byte_start, line_start, line_end, prompts)',
      ws.flatMap((w, i) => w.dropped.map((d) => [ids[i]!, d.byteStart, d.lineStart, d.lineEnd, d.promptLines.length])),
    );
    return results;
  }

  /**
   * Removes the skipped lines and dropped exchanges a database source's conversations wrote (they are read again, or
   * gone from the database); their exchanges and conversations are replaced by keepUnchanged and replaceConversations.
   */
  private async deleteGroups(sourceId: number, groups: readonly RecordGroup[]): Promise<void> {
    const lines = JSON.stringify(groups.map((g) => g.lines));
    const bytes = JSON.stringify(groups.map((g) => g.bytes));
    const inRange = (column: string): string => `EXISTS (SELECT 1 FROM json_each(?2) j WHERE ${column} >= j.value ->> 0 AND ${column} < j.value ->> 1)`;
    await this.db.run(`DELETE FROM skipped_lines WHERE source_id = ?1 AND ${inRange('line')}`, [sourceId, lines]);
    await this.db.run(`DELETE FROM dropped_exchanges WHERE source_id = ?1 AND ${inRange('byte_start')}`, [sourceId, bytes]);
  }

  /**
   * The stored exchanges each parse covers (all of a source read whole; else those from its resume point on and those
   * of a database's conversations read again or gone): each one the parse brings again with the same content hash
   * (its first exchange of that id) stays as it is, with what was made of it (its distilled object and rooms, vectors,
   * token count, word index), only its place in the source updated; the others are deleted. Their ids, with their rows.
   */
  private async keepUnchanged(ws: readonly ParseWrite[], ids: readonly number[], hashes: ReadonlyArray<readonly string[]>): Promise<Map<string, number>> {
    const covered = JSON.stringify(ws.map((w, i) => [ids[i]!, w.full ? 1 : 0, w.fromOffset, (w.replaced ?? []).map((g) => g.bytes)]));
    const stored = await this.db.all<{ n: number; id: string; source_id: number; hash: string | null; line_start: number; line_end: number; byte_start: number }>(
      `SELECT e.n, e.id, e.source_id, e.content_hash AS hash, e.line_start, e.line_end, e.byte_start
       FROM json_each(?) j JOIN exchanges e ON e.source_id = j.value ->> 0
       WHERE j.value ->> 1 = 1 OR e.byte_start >= j.value ->> 2
         OR EXISTS (SELECT 1 FROM json_each(j.value -> 3) g WHERE e.byte_start >= g.value ->> 0 AND e.byte_start < g.value ->> 1)`,
      [covered],
    );
    const kept = new Map<string, number>();
    if (stored.length === 0) return kept;
    const byId = new Map(stored.map((r) => [r.id, r]));
    const seen = new Set<string>();
    const moved: Array<[number, number, number, number]> = [];
    for (const [i, w] of ws.entries()) {
      for (const [j, e] of w.exchanges.entries()) {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
        const r = byId.get(e.id);
        if (!r || r.source_id !== ids[i] || r.hash === null || r.hash !== hashes[i]![j]) continue;
        kept.set(e.id, r.n);
        if (r.line_start !== e.lineStart || r.line_end !== e.lineEnd || r.byte_start !== e.byteStart) moved.push([r.n, e.lineStart, e.lineEnd, e.byteStart]);
      }
    }
    const gone = stored.flatMap((r) => (kept.has(r.id) ? [] : [r.n]));
    if (gone.length > 0) await this.db.run('DELETE FROM exchanges WHERE n IN (SELECT value FROM json_each(?))', [JSON.stringify(gone)]);
    if (moved.length > 0) {
      await this.db.run(
        `UPDATE exchanges SET line_start = j.value ->> 1, line_end = j.value ->> 2, byte_start = j.value ->> 3
         FROM json_each(?) j WHERE exchanges.n = j.value ->> 0`,
        [JSON.stringify(moved)],
      );
    }
    return kept;
  }

  /**
   * A source read whole, or a database's conversations read again, replaces its conversations: those it no longer
   * holds go (with any exchange still naming them), the others take the meta just parsed, as written anew (the insert
   * after this leaves them so), while the exchanges kept under them stay. A source read from its resume point keeps
   * its conversations, the insert filling in what they lacked.
   */
  private async replaceConversations(ws: readonly ParseWrite[], ids: readonly number[]): Promise<void> {
    const fresh: unknown[][] = [];
    const keys: Array<[string, number]> = [];
    const whole: number[] = [];
    for (const [i, w] of ws.entries()) {
      const sourceId = ids[i]!;
      if (!w.full && !w.replaced?.length) continue;
      const here = new Set<string>();
      for (const { key, meta: m } of w.conversations) {
        if (here.has(key)) continue; // the first record of a key is the one inserted; the insert merges the others
        here.add(key);
        keys.push([key, sourceId]);
        fresh.push([
          key, sourceId, m.agent, m.sessionId, m.project ?? null, m.gitBranch ?? null, m.title ?? null, m.startedAt ?? null,
          m.isSubagent ? 1 : 0, m.parentSessionId ?? null, m.model ?? null, m.line,
        ]);
      }
      if (w.full) whole.push(sourceId);
      else {
        const groups = w.replaced!.flatMap((g) => (g.conversation && !here.has(g.conversation) ? [g.conversation] : []));
        if (groups.length > 0) {
          await this.db.run('DELETE FROM conversations WHERE source_id = ? AND id IN (SELECT value FROM json_each(?))', [sourceId, JSON.stringify(groups)]);
        }
      }
    }
    if (whole.length > 0) {
      await this.db.run(
        `DELETE FROM conversations WHERE source_id IN (SELECT value FROM json_each(?1))
           AND NOT EXISTS (SELECT 1 FROM json_each(?2) k WHERE k.value ->> 0 = conversations.id AND k.value ->> 1 = conversations.source_id)`,
        [JSON.stringify(whole), JSON.stringify(keys)],
      );
    }
    if (fresh.length > 0) {
      await this.db.run(
        `UPDATE conversations SET agent = j.value ->> 2, session_id = j.value ->> 3, project = j.value ->> 4, git_branch = j.value ->> 5,
           title = j.value ->> 6, started_at = j.value ->> 7, is_subagent = j.value ->> 8, parent_session_id = j.value ->> 9,
           model = j.value ->> 10, line = j.value ->> 11
         FROM json_each(?) j WHERE conversations.id = j.value ->> 0 AND conversations.source_id = j.value ->> 1`,
        [JSON.stringify(fresh)],
      );
    }
  }

  /**
   * Counts over the whole store, read as one snapshot in the write queue, so an indexing run in progress
   * on this connection is never seen half-way (e.g. its exchanges but not yet its conversations). Read without the
   * memory map: it sums every exchange's text, so through the map it would leave the whole first 256 MiB of the
   * store mapped (after a first index of 1 GB of transcripts: 290 MB of the process's RSS).
   */
  stats(): Promise<StoreStats> {
    return this.unmappedWhile(() => this.db.snapshot(() => readStats(this.db)));
  }

  /** The headline counts as one snapshot, cheap enough to read every few seconds (stats() sums every text). */
  counts(): Promise<StoreCounts> {
    return this.db.snapshot(() => readCounts(this.db));
  }

  async listExchanges(options: { limit?: number; offset?: number } = {}): Promise<ExchangeSummary[]> {
    const rows = await this.db.all<ExchangeRow>(
      // ties on a line (a one-line document, a database's conversations) in the order of the records
      `${SUMMARY_SELECT} ORDER BY s.path, e.line_start, e.byte_start LIMIT ? OFFSET ?`,
      [options.limit ?? -1, options.offset ?? 0],
    );
    return rows.map(toSummary);
  }

  /** Finds an exchange by id or by an unambiguous id prefix (at least 6 characters). */
  async getExchange(idOrPrefix: string): Promise<StoredExchange | undefined> {
    const rows = await this.db.all<ExchangeRow & DetailRow>(
      `${DETAIL_SELECT} WHERE e.id = ? OR (length(?) >= 6 AND e.id LIKE ? || '%') LIMIT 2`,
      [idOrPrefix, idOrPrefix, idOrPrefix.replace(/[%_]/g, '')],
    );
    const exact = rows.find((r) => r.id === idOrPrefix) ?? (rows.length === 1 ? rows[0] : undefined);
    if (!exact) {
      if (rows.length > 1) throw new RecallError('bad-argument', `The id prefix ${idOrPrefix} matches several exchanges.`);
      return undefined;
    }
    const files = await this.db.all<FileTouchRow>(
      'SELECT path, how, lines FROM files_touched WHERE exchange_n = ? ORDER BY path',
      [exact.n],
    );
    const copies = await this.db.all<{ path: string; line_start: number; line_end: number }>(
      'SELECT s.path, c.line_start, c.line_end FROM exchange_copies c JOIN sources s ON s.id = c.source_id WHERE c.exchange_id = ? ORDER BY s.path',
      [exact.id],
    );
    return {
      ...toSummary(exact),
      conversationId: exact.conversation_id,
      ...(copies.length ? { copies: copies.map((c) => ({ file: c.path, lineStart: c.line_start, lineEnd: c.line_end })) } : {}),
      ...(exact.title !== null ? { title: exact.title } : {}),
      ...(exact.git_branch !== null ? { gitBranch: exact.git_branch } : {}),
      isSubagent: exact.is_subagent === 1,
      part: exact.part,
      plyStart: exact.ply_start,
      plyEnd: exact.ply_end,
      ...(exact.ended_at !== null ? { endedAt: exact.ended_at } : {}),
      verbatim: exact.verbatim,
      ...(exact.verbatim_tokens !== null ? { verbatimTokens: exact.verbatim_tokens } : {}),
      filesTouched: files.map(toFileTouch),
    };
  }

  /**
   * Where an exchange starts in its source (byte offset, or record place for a database) and where the
   * source's next exchange, kept or dropped, starts: the exchange's records lie between.
   */
  async recordRange(exchangeId: string): Promise<{ byteStart: number; nextByteStart?: number } | undefined> {
    const row = await this.db.get<{ start: number; next: number | null }>(
      `SELECT e.byte_start AS start, (SELECT min(b) FROM (
         SELECT byte_start AS b FROM exchanges WHERE source_id = e.source_id AND byte_start > e.byte_start
         UNION ALL SELECT byte_start FROM dropped_exchanges WHERE source_id = e.source_id AND byte_start > e.byte_start)) AS next
       FROM exchanges e WHERE e.id = ?`,
      [exchangeId],
    );
    return row ? { byteStart: row.start, ...(row.next !== null ? { nextByteStart: row.next } : {}) } : undefined;
  }

  /** The distilled object of an exchange (by full id), when it has one. */
  async getDistilled(exchangeId: string): Promise<DistilledView | undefined> {
    return distilledOf(this.db, exchangeId);
  }

  /** Exchanges whose verbatim tokens are not counted yet, oldest first, after row `afterN`. */
  async exchangesWithoutTokens(limit: number, afterN = 0): Promise<Array<{ n: number; id: string; verbatim: string }>> {
    return this.db.all('SELECT n, id, verbatim FROM exchanges WHERE verbatim_tokens IS NULL AND n > ? ORDER BY n LIMIT ?', [afterN, limit]);
  }

  /** How many exchanges wait for their token count. */
  async countWithoutTokens(): Promise<number> {
    return (await this.db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges WHERE verbatim_tokens IS NULL'))?.c ?? 0;
  }

  /** Of the exchanges from row `first` to `last`, those whose verbatim tokens are not counted yet. */
  async uncountedBetween(first: number, last: number): Promise<number[]> {
    const rows = await this.db.all<{ n: number }>('SELECT n FROM exchanges WHERE n BETWEEN ? AND ? AND verbatim_tokens IS NULL', [first, last]);
    return rows.map((r) => r.n);
  }

  /**
   * Stores token counts, in one statement; a count goes only to row `n` still holding exchange `id` (another process
   * may have re-indexed its source since the text was read).
   */
  async setTokenCounts(counts: ReadonlyArray<{ n: number; id: string; tokens: number }>): Promise<void> {
    if (counts.length === 0) return;
    await this.db.run(
      `UPDATE exchanges SET verbatim_tokens = j.value ->> 2 FROM json_each(?) j WHERE exchanges.n = j.value ->> 0 AND exchanges.id = j.value ->> 1`,
      [JSON.stringify(counts.map((c) => [c.n, c.id, c.tokens]))],
    );
  }

  /** SQLite's own integrity check plus the store's invariants. */
  check(): Promise<IntegrityReport> {
    return checkIntegrity(this.db, this.vectorsAvailable);
  }

  /** Rebuilds the derived tables (both full-text indexes) and removes orphans. The verbatim rows are the truth. */
  repair(): Promise<void> {
    // it reads every exchange: unmapped, as an index run (unmappedWhile)
    return this.unmappedWhile(() => repairDerived(this.db, this.vectorsAvailable));
  }
}

interface SourceRow {
  path: string;
  agent: AgentKind;
  size: number;
  mtime_ms: number;
  head_hash: string;
  anchor_hash: string;
  parsed_offset: number;
  next_line: number;
  resume_offset: number;
  resume_line: number;
  resume_ply: number;
  resume_meta: string | null;
  pending_partial: number;
  last_error: string | null;
  record_groups: string | null;
  seen_ids: string | null;
  file_hash: string | null;
}

interface DetailRow {
  conversation_id: string;
  title: string | null;
  git_branch: string | null;
  is_subagent: number;
  part: number;
  ply_start: number;
  ply_end: number;
  ended_at: string | null;
  verbatim: string;
  verbatim_tokens: number | null;
}

const SUMMARY_SELECT = `SELECT e.n, e.id, c.agent, s.path, e.line_start, e.line_end, c.session_id, c.project, e.started_at,
  e.date_precision, e.prompt FROM exchanges e JOIN conversations c ON c.id = e.conversation_id JOIN sources s ON s.id = e.source_id`;
const DETAIL_SELECT = `SELECT e.n, e.id, c.agent, s.path, e.line_start, e.line_end, c.session_id, c.project, e.started_at,
  e.date_precision, e.prompt, e.conversation_id, c.title, c.git_branch, c.is_subagent, e.part, e.ply_start, e.ply_end, e.ended_at,
  e.verbatim, e.verbatim_tokens FROM exchanges e JOIN conversations c ON c.id = e.conversation_id
  JOIN sources s ON s.id = e.source_id`;

function fromSourceRow(r: SourceRow): SourceState {
  return {
    path: r.path,
    agent: r.agent,
    size: r.size,
    mtimeMs: r.mtime_ms,
    headHash: r.head_hash,
    anchorHash: r.anchor_hash,
    parsedOffset: r.parsed_offset,
    nextLine: r.next_line,
    resumeOffset: r.resume_offset,
    resumeLine: r.resume_line,
    resumePly: r.resume_ply,
    ...(r.resume_meta ? { resumeMeta: JSON.parse(r.resume_meta) as ConversationMeta } : {}),
    pendingPartial: r.pending_partial === 1,
    ...(r.last_error !== null ? { lastError: r.last_error } : {}),
    ...(r.record_groups ? { recordGroups: JSON.parse(r.record_groups) as RecordGroups } : {}),
    ...(r.seen_ids ? { seenIds: JSON.parse(r.seen_ids) as string[] } : {}),
    ...(r.file_hash ? { fileHash: r.file_hash } : {}),
  };
}

/** A fresh store beside `file`, holding every row of `damaged` that can still be read. */
async function salvageInto(damaged: Db, file: string): Promise<{ file: string; tables: TableSalvage[] }> {
  const tmp = `${file}.salvage-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await createIfMissing(tmp);
    const to = await Db.open(tmp);
    try {
      // foreign keys stay off while copying: a child may be readable while its parent's page is not
      const tables = await to.transaction(() => salvageRows(damaged, to));
      return { file: tmp, tables };
    } finally {
      await to.close();
    }
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
