import { RecallError } from '../errors';
import type { Db } from './db';

/**
 * Helpers between Float32Array embeddings and sqlite-vec (vec0 tables). sqlite-vec takes a vector as a
 * BLOB of little-endian float32 values (or as JSON text, which is slower).
 *
 * On the SQLite bundled with @vscode/sqlite3 (3.39) a KNN query MUST use `AND k = ?`;
 * `ORDER BY distance LIMIT n` is rejected. vec0 is brute force (no ANN index). Measured at 50,000 vectors
 * (2 cores): an exact float scan takes ~10 ms at 100-d and ~40 ms at 384-d; a bit[] scan ~1-2 ms at
 * k = 10, but its cost grows with k (~6-7 ms at k = 100, ~12 ms at k = 200). At 384-d a bit pass of
 * k = 100 plus an exact re-score of those rows finds the exact top 10 on clustered data in ~7 ms.
 * `vec_quantize_binary` needs a length divisible by 8: quantise a 100-d vector yourself into bit[104].
 */

/** A vector as sqlite-vec's float32 BLOB. Respects views: only the vector's own bytes are copied. */
export function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** The inverse of toBlob (copies, so the result is aligned and owns its memory). */
export function fromBlob(blob: Uint8Array): Float32Array {
  if (blob.byteLength % 4 !== 0) throw new RecallError('bad-argument', `A float32 vector blob cannot be ${blob.byteLength} bytes long`);
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** Loads sqlite-vec into `db` (once per connection). Required here, so the package loads with the first store. */
export async function loadVectorExtension(db: Db): Promise<void> {
  const sqliteVec = require('sqlite-vec') as typeof import('sqlite-vec');
  await db.loadExtension(sqliteVec.getLoadablePath());
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkTable(table: string): string {
  if (!IDENTIFIER.test(table)) throw new RecallError('bad-argument', `Not a plain SQL identifier: "${table}"`);
  return table;
}

/**
 * Creates `table` as a vec0 virtual table of `dimension`-d float vectors keyed by rowid (the caller's
 * integer id, e.g. the distilled row's). L2 distance; for unit vectors it ranks like cosine.
 */
export async function createVectorTable(db: Db, table: string, dimension: number): Promise<void> {
  if (!Number.isInteger(dimension) || dimension < 1) throw new RecallError('bad-argument', `Bad vector dimension ${dimension}`);
  await db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${checkTable(table)} USING vec0(embedding float[${dimension}])`);
}

/**
 * Inserts or replaces the vector of `rowid`. vec0 has no upsert, so this deletes, then inserts: call it
 * inside `db.transaction` (one per batch) so a failed insert never loses the old vector.
 */
export async function putVector(db: Db, table: string, rowid: number, vector: Float32Array): Promise<void> {
  checkTable(table);
  // A plain JS integer binds as an SQLite INTEGER, which vec0 needs for rowid. Never pass a BigInt:
  // @vscode/sqlite3 silently binds it as NULL (vec0 then picks a rowid of its own).
  if (!Number.isSafeInteger(rowid)) throw new RecallError('bad-argument', `Bad rowid ${rowid}`);
  await db.run(`DELETE FROM ${table} WHERE rowid = ?`, [rowid]);
  await db.run(`INSERT INTO ${table}(rowid, embedding) VALUES (?, ?)`, [rowid, toBlob(vector)]);
}

export interface VectorHit {
  readonly rowid: number;
  /** L2 distance; for unit vectors cosine similarity = 1 - distance² / 2. */
  readonly distance: number;
}

/**
 * The `k` nearest rows to `query`, nearest first; with `within`, only those at most that far (fewer than
 * `k` when fewer are that near). vec0 drops the farther ones before keeping its k best, which is most of
 * a KNN's cost at k = 100 (search/distanceBound.ts).
 */
export async function nearest(db: Db, table: string, query: Float32Array, k: number, within?: number): Promise<VectorHit[]> {
  checkTable(table);
  if (!Number.isInteger(k) || k < 1) throw new RecallError('bad-argument', `Bad k ${k}`);
  const bounded = within !== undefined && Number.isFinite(within);
  return db.all<VectorHit>(
    `SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?${bounded ? ' AND distance <= ?' : ''} ORDER BY distance`,
    bounded ? [toBlob(query), k, within] : [toBlob(query), k],
  );
}
