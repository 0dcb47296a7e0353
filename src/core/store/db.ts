import type * as sqlite3 from '@vscode/sqlite3';
import { RecallError } from '../errors';

export type Params = ReadonlyArray<string | number | bigint | null | Buffer | Uint8Array>;

/** Multi-row statements stay within SQLite's historic default bound on parameters, whatever this build allows. */
const MAX_PARAMS = 999;
const MAX_ROWS = 64;

/**
 * A statement's error as its reader should meet it: a full disk says so and what to do, where SQLite's own
 * "SQLITE_FULL: database or disk is full" named neither the store nor that what it held is kept (the write's
 * transaction is rolled back; a run started again goes on from there).
 */
function failure(err: Error, file: string): Error {
  if ((err as { code?: unknown }).code !== 'SQLITE_FULL') return err;
  return new RecallError('store-full', `The disk that holds the store ${file} is full. Free some space and try again: what the store held is kept.`, {
    cause: err,
  });
}

/**
 * A small promise layer over @vscode/sqlite3's callback API: one place to adapt it, so store code reads
 * as plain async functions. Write transactions are serialised through a queue: statements from two
 * concurrent async flows must never interleave inside one BEGIN..COMMIT.
 */
export class Db {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements = new Map<string, Promise<sqlite3.Statement>>();
  /** The statements prepared already: run at once, without waiting a turn of the event loop's microtasks. */
  private readonly ready = new Map<string, sqlite3.Statement>();
  private open = 0;
  /** Read-only snapshots that have answered and whose COMMIT is still under way. */
  private endings = 0;
  /** Until the store's full check has passed, writes wait for it (`writesAfter`); settled: undefined. */
  private writable: Promise<void> | undefined;
  /** Why this connection answers nothing any more (`refuse`): the store was found damaged. */
  private refused: Error | undefined;

  private constructor(
    private readonly raw: sqlite3.Database,
    readonly file: string,
    /** Opened read-only: nothing it runs can write, so a snapshot's COMMIT holds back no answer (`queued`). */
    private readonly readOnly: boolean,
  ) {}

  static open(file: string, options: { readonly?: boolean } = {}): Promise<Db> {
    // the native addon loads with the first store, not with the modules that merely mention one
    const sqlite3 = require('@vscode/sqlite3') as typeof import('@vscode/sqlite3');
    const mode = options.readonly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
    return new Promise((resolve, reject) => {
      const raw = new sqlite3.Database(file, mode, (err) => {
        if (err) reject(new RecallError('store-io', `Cannot open the store ${file}: ${err.message}`, { cause: err }));
        else resolve(new Db(raw, file, options.readonly === true));
      });
    });
  }

  loadExtension(path: string): Promise<void> {
    return new Promise((resolve, reject) => this.raw.loadExtension(path, (err) => (err ? reject(err) : resolve())));
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.raw.exec(sql, (err) => (err ? reject(failure(err, this.file)) : resolve())));
  }

  /**
   * Writes (`run`, `transaction`) wait for `check` and fail with its error when it fails: a store is written only
   * once its check has passed. Reads do not wait (they cannot make damage worse); `refuse` stops them.
   */
  writesAfter(check: Promise<void>): void {
    const gate: Promise<void> = check.then(() => {
      if (this.writable === gate) this.writable = undefined;
    });
    gate.catch(() => undefined); // met, and reported, by the writes that wait for it
    this.writable = gate;
  }

  /** From now on every statement fails with `reason` (a check found the store damaged). */
  refuse(reason: Error): void {
    this.refused = reason;
  }

  async run(sql: string, params: Params = []): Promise<{ changes: number; lastID: number }> {
    // only while a check is under way (a transaction's statements run after it): otherwise the statement is
    // queued at once, in the order of the calls
    if (this.writable) await this.writable;
    if (this.refused) throw this.refused;
    const stmt = this.ready.get(sql) ?? (await this.prepared(sql));
    const file = this.file;
    return new Promise((resolve, reject) =>
      stmt.run(params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(failure(err, file));
        else resolve({ changes: this.changes, lastID: this.lastID });
      }),
    );
  }

  async get<T>(sql: string, params: Params = []): Promise<T | undefined> {
    if (this.refused) throw this.refused;
    const stmt = this.ready.get(sql) ?? (await this.prepared(sql));
    // `get` leaves the statement mid-step; it must be reset, or COMMIT fails with "SQL statements in progress".
    // The reset is queued on the statement right behind the step, not from the step's callback: a second get
    // of the same statement already waiting would otherwise step on from the first one's row. The answer comes
    // after one round trip through the thread pool; the reset, pending work, holds back any exec (BEGIN, COMMIT).
    return new Promise((resolve, reject) => {
      stmt.get(params, (err: Error | null, row: T | undefined) => (err ? reject(failure(err, this.file)) : resolve(row)));
      stmt.reset();
    });
  }

  async all<T>(sql: string, params: Params = []): Promise<T[]> {
    if (this.refused) throw this.refused;
    const stmt = this.ready.get(sql) ?? (await this.prepared(sql));
    return new Promise((resolve, reject) =>
      stmt.all(params, (err: Error | null, rows: T[]) => (err ? reject(failure(err, this.file)) : resolve(rows))),
    );
  }

  /**
   * One `INSERT ... VALUES` over many rows in few statements: `head` is the statement up to VALUES, `tail`
   * what follows the rows (ON CONFLICT, RETURNING). Rows go in order, in pieces of 64, 32, 16, ... rows
   * (at most 999 parameters each), so a table needs only a few statement texts. Returns what the pieces
   * RETURN, in order.
   */
  async insertRows<T = never>(head: string, rows: readonly Params[], tail = ''): Promise<T[]> {
    const out: T[] = [];
    if (rows.length === 0) return out;
    const width = rows[0]!.length;
    const one = `(${Array<string>(width).fill('?').join(', ')})`;
    let size = 2 ** Math.floor(Math.log2(Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / width)))));
    for (let i = 0; i < rows.length; i += size) {
      while (size > rows.length - i) size /= 2;
      const sql = `${head} VALUES ${Array<string>(size).fill(one).join(', ')} ${tail}`;
      out.push(...(await this.all<T>(sql, rows.slice(i, i + size).flat())));
    }
    return out;
  }

  /** Runs `fn` inside BEGIN IMMEDIATE..COMMIT, after any transaction already queued; rolls back on error. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.queued('BEGIN IMMEDIATE', fn);
  }

  /**
   * Runs reads as one snapshot (a deferred transaction: takes no write lock, so another process writing
   * does not block it), queued like a transaction so this connection's own writes are never seen half-done.
   */
  snapshot<T>(fn: () => Promise<T>): Promise<T> {
    return this.queued('BEGIN', fn);
  }

  /**
   * Whether a transaction or snapshot of this connection is open (or about to be): another connection would
   * not see what its statements see.
   */
  get inTransaction(): boolean {
    return this.open > 0;
  }

  /** Whether a read-only snapshot that has answered is still ending (its COMMIT under way; the next transaction waits for it). */
  get ending(): boolean {
    return this.endings > 0;
  }

  private queued<T>(begin: string, fn: () => Promise<T>): Promise<T> {
    this.open++;
    // A read-only connection's snapshot has nothing to commit: its COMMIT only ends the read, so what it read is
    // answered at once and the COMMIT (a round trip through the thread pool: ~0.1 ms idle, several ms on a loaded
    // machine, on every MCP call) runs while the answer is shaped and sent. The next transaction still waits for it.
    let ended: Promise<void> | undefined;
    const next = this.queue.then(async () => {
      if (begin !== 'BEGIN' && this.writable) await this.writable;
      if (this.refused) throw this.refused;
      await this.exec(begin);
      let result: T;
      try {
        result = await fn();
      } catch (err) {
        await this.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
      if (begin === 'BEGIN' && this.readOnly) {
        // a COMMIT that fails leaves the connection in the read: ended by a ROLLBACK, so the next BEGIN can begin
        ended = this.exec('COMMIT').catch(() => this.exec('ROLLBACK').catch(() => undefined));
        return result;
      }
      await this.exec('COMMIT');
      return result;
    });
    // the snapshot is over for its caller once it has its answer (a read beside it on another connection mixes
    // nothing into it), though its COMMIT may still be under way (`ending`)
    void next.then(
      () => {
        this.open--;
        if (ended) {
          this.endings++;
          void ended.then(() => this.endings--);
        }
      },
      () => this.open--,
    );
    this.queue = next.then(
      () => ended,
      () => undefined,
    );
    return next;
  }

  /** Makes the statement running now fail with SQLITE_INTERRUPT (a long check the store's closing ends). */
  interrupt(): void {
    this.raw.interrupt();
  }

  async close(): Promise<void> {
    await this.queue;
    for (const pending of this.statements.values()) {
      const stmt = await pending.catch(() => undefined);
      if (stmt) await new Promise<void>((r) => stmt.finalize(() => r()));
    }
    this.statements.clear();
    this.ready.clear();
    await new Promise<void>((resolve, reject) => this.raw.close((err) => (err ? reject(err) : resolve())));
  }

  /**
   * Statements are prepared once per SQL text and reused (the driver resets them between runs). A statement
   * that cannot be prepared (a damaged schema page) rejects the call that uses it and is not kept; without a
   * prepare callback the driver throws from its native callback and aborts the whole process.
   */
  private prepared(sql: string): Promise<sqlite3.Statement> {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = new Promise<sqlite3.Statement>((resolve, reject) => {
        const created: sqlite3.Statement = this.raw.prepare(sql, (err: Error | null) => {
          if (!err) {
            this.ready.set(sql, created);
            return resolve(created);
          }
          this.statements.delete(sql);
          reject(err);
        });
      });
      this.statements.set(sql, stmt);
    }
    return stmt;
  }
}
