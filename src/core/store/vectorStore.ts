import { RecallError } from '../errors';
import type { Layer } from '../model';
import type { Db } from './db';
import type { ExchangeFilter } from './searchFilter';
import { createVectorTable, fromBlob, nearest, type VectorHit } from './vectors';

/**
 * Where the store keeps its vectors: one vec0 table per layer, all in the one vector space named by
 * `embedding_model`. Distilled layers are keyed by exchange row number; verbatim vectors by chunk id
 * (verbatim_chunks maps chunks to exchanges).
 */
export const VECTOR_TABLES: Record<Layer, string> = {
  verbatim: 'vec_verbatim',
  core: 'vec_core',
  'core+files': 'vec_core_files',
  'core+rooms': 'vec_core_rooms',
  'all-facets': 'vec_all_facets',
};

export interface VectorSpace {
  readonly modelId: string;
  readonly dimension: number;
}

export async function storedVectorSpace(db: Db): Promise<VectorSpace | undefined> {
  const row = await db.get<{ model_id: string; dimension: number }>('SELECT model_id, dimension FROM embedding_model WHERE id = 1');
  return row ? { modelId: row.model_id, dimension: row.dimension } : undefined;
}

/**
 * Makes `space` the store's vector space. A different model or dimension drops every vector (spaces are
 * never mixed) in one transaction; the embedding stage then embeds everything again. Returns true when
 * the old vectors were dropped.
 */
export async function useVectorSpace(db: Db, space: VectorSpace): Promise<boolean> {
  const current = await storedVectorSpace(db);
  const same = current?.modelId === space.modelId && current.dimension === space.dimension;
  let reset = false;
  if (!same) {
    await db.transaction(async () => {
      for (const table of Object.values(VECTOR_TABLES)) await db.exec(`DROP TABLE IF EXISTS ${table}`);
      await db.run('DELETE FROM vector_rows');
      await db.run('DELETE FROM verbatim_chunks');
      await db.run(
        'INSERT OR REPLACE INTO embedding_model(id, model_id, dimension, created_at) VALUES (1, ?, ?, ?)',
        [space.modelId, space.dimension, Date.now()],
      );
    });
    reset = current !== undefined;
  }
  for (const table of Object.values(VECTOR_TABLES)) await createVectorTable(db, table, space.dimension);
  return reset;
}

/** Whether a vec0 table exists (sqlite-vec may be missing, or nothing was embedded yet). */
export async function hasVectorTable(db: Db, layer: Layer): Promise<boolean> {
  const row = await db.get<{ c: number }>("SELECT count(*) AS c FROM sqlite_master WHERE type = 'table' AND name = ?", [VECTOR_TABLES[layer]]);
  return (row?.c ?? 0) > 0;
}

/** The rows a layer's vec0 table may hold: chunk ids for verbatim, embedded exchanges for the distilled layers. */
function validRowids(layer: Layer): { sql: string; params: string[] } {
  return layer === 'verbatim'
    ? { sql: 'SELECT id AS rid FROM verbatim_chunks', params: [] }
    : { sql: 'SELECT exchange_n AS rid FROM vector_rows WHERE layer = ?', params: [layer] };
}

/** How many vectors `layer` holds (of current exchanges, chunks or distilled texts). */
export async function vectorCount(db: Db, layer: Layer): Promise<number> {
  const valid = validRowids(layer);
  return (await db.get<{ c: number }>(`SELECT count(*) AS c FROM (${valid.sql})`, valid.params))?.c ?? 0;
}

/** Whether `layer` holds a vector of a current exchange (or chunk). */
export async function layerHasVectors(db: Db, layer: Layer): Promise<boolean> {
  return (await db.get<{ one: number }>('SELECT 1 AS one FROM vector_rows WHERE layer = ? LIMIT 1', [layer])) !== undefined;
}

/** The `k` vectors of `layer` nearest to `query` by vec0's exact KNN, nearest first; with `within`, only those that near (vectors.ts). */
export function nearestInLayer(db: Db, layer: Layer, query: Float32Array, k: number, within?: number): Promise<VectorHit[]> {
  return nearest(db, VECTOR_TABLES[layer], query, k, within);
}

/** A vector's exchange: the vector's rowid (a verbatim chunk's id, or the exchange's row number) and its exchange. */
export interface VectorExchange {
  readonly rowid: number;
  readonly n: number;
  readonly conversationId: string;
}

/**
 * The exchanges of the vectors `rowids` of `layer` that are still there (a vector whose text is gone is not yet
 * swept) and pass `filter`. Unfiltered, only whether each exchange is still there and its conversation (which the
 * per-conversation cap needs next: one statement instead of two), asked of an index, not of the rows, which hold
 * their whole text (continuations.ts). A filter reads the exchange's and its conversation's columns.
 */
export async function vectorExchanges(db: Db, layer: Layer, rowids: readonly number[], filter?: ExchangeFilter): Promise<VectorExchange[]> {
  const ids = JSON.stringify(rowids);
  const joinExchange = (n: string) =>
    filter ? `JOIN exchanges e ON e.n = ${n} JOIN conversations c ON c.id = e.conversation_id` : `JOIN exchanges e INDEXED BY exchanges_place ON e.n = ${n}`;
  const where = filter ? `AND ${filter.sql}` : '';
  const rows =
    layer === 'verbatim'
      ? await db.all<{ id: number; n: number; conversation_id: string }>(
          `SELECT ch.id, e.n, e.conversation_id FROM verbatim_chunks ch ${joinExchange('ch.exchange_n')}
           WHERE ch.id IN (SELECT value FROM json_each(?)) ${where}`,
          [ids, ...(filter?.params ?? [])],
        )
      : await db.all<{ id: number; n: number; conversation_id: string }>(
          `SELECT e.n AS id, e.n, e.conversation_id FROM vector_rows r ${joinExchange('r.exchange_n')}
           WHERE r.layer = ? AND r.exchange_n IN (SELECT value FROM json_each(?)) ${where}`,
          [layer, ids, ...(filter?.params ?? [])],
        );
  return rows.map((r) => ({ rowid: r.id, n: r.n, conversationId: r.conversation_id }));
}

/** A layer's vectors one after another, and the rowid of each. */
export interface LayerVectors {
  readonly rowids: Float64Array;
  readonly vectors: Float32Array;
  /** Where each of vec0's chunks went (`from`, `count` vectors), when they were read chunk by chunk. */
  readonly chunks?: readonly ChunkSpan[];
}

/** One of vec0's chunks as read: its id, its slots' validity and rowids as vec0 keeps them, and its vectors' place. */
export interface ChunkSpan {
  readonly id: number;
  readonly validity: Uint8Array;
  readonly rowids: Uint8Array;
  readonly from: number;
  readonly count: number;
}

/** How a layer's vectors are read (layerVectors). */
export interface ReadVectors {
  /** The vectors of a chunk read before, when they cannot have changed since: not read again. */
  readonly reuse?: (chunk: { readonly id: number; readonly validity: Uint8Array; readonly rowids: Uint8Array }) => Float32Array | undefined;
  /** Where to put `count` vectors (count × dimension floats); a new array when it gives none. */
  readonly into?: (count: number) => Float32Array | undefined;
}

/**
 * Every vector `layer` holds (of `dimension` floats) with its rowid, for a searcher's copy of the layer
 * (search/vectorCopies.ts); those of exchanges gone but not yet swept too, as a KNN over the table finds them.
 * Read from the tables vec0 keeps them in, a chunk of 1,024 vectors a row (sqlite-vec 0.1.9's layout, checked
 * as it is read): ~0.15 s at 50,000 100-d vectors, against ~0.6 s through the vec0 table's row-by-row scan,
 * which is what is read when the layout is not as expected. `reuse` may give a chunk's vectors from a read
 * before, and `into` the array to read into, which may be where those lie: vectors only move down in it.
 */
export async function layerVectors(db: Db, layer: Layer, dimension: number, how: ReadVectors = {}): Promise<LayerVectors> {
  return (await fromVecChunks(db, VECTOR_TABLES[layer], dimension, how)) ?? fromVecScan(db, VECTOR_TABLES[layer], dimension, how);
}

async function fromVecChunks(db: Db, table: string, dimension: number, { reuse, into }: ReadVectors): Promise<LayerVectors | undefined> {
  const chunks = await db
    .all<{ chunk_id: number; size: number; validity: Uint8Array; rowids: Uint8Array }>(`SELECT chunk_id, size, validity, rowids FROM ${table}_chunks ORDER BY chunk_id`)
    .catch(() => undefined);
  if (!chunks || chunks.some((c) => c.validity.byteLength * 8 !== c.size || c.rowids.byteLength !== c.size * 8)) return undefined;
  const valid = (c: (typeof chunks)[number], i: number) => (c.validity[i >> 3]! >> (i & 7)) & 1;
  const counts = chunks.map((c) => {
    let n = 0;
    for (let i = 0; i < c.size; i++) n += valid(c, i);
    return n;
  });
  const count = counts.reduce((a, b) => a + b, 0);
  const stored = await db.get<{ c: number }>(`SELECT count(*) AS c FROM ${table}_rowids`).catch(() => undefined);
  if (stored?.c !== count) return undefined;
  const rowids = new Float64Array(count);
  const vectors = into?.(count) ?? new Float32Array(count * dimension);
  const spans: ChunkSpan[] = [];
  let at = 0;
  for (const [k, c] of chunks.entries()) {
    const ids = new DataView(c.rowids.buffer, c.rowids.byteOffset, c.rowids.byteLength);
    const span = { id: c.chunk_id, validity: c.validity, rowids: c.rowids, from: at, count: counts[k]! };
    spans.push(span);
    const known = reuse?.(span);
    if (known?.length === span.count * dimension) {
      if (known.buffer !== vectors.buffer || known.byteOffset !== vectors.byteOffset + at * dimension * 4) vectors.set(known, at * dimension);
      for (let i = 0; i < c.size; i++) if (valid(c, i)) rowids[at++] = Number(ids.getBigInt64(i * 8, true));
      continue;
    }
    const row = await db.get<{ vectors: Uint8Array }>(`SELECT vectors FROM ${table}_vector_chunks00 WHERE rowid = ?`, [c.chunk_id]).catch(() => undefined);
    if (!row || row.vectors.byteLength !== c.size * dimension * 4) return undefined;
    const floats = fromBlob(row.vectors);
    // a run of valid slots at a time: most chunks are all valid
    for (let i = 0; i < c.size; ) {
      if (!valid(c, i)) {
        i++;
        continue;
      }
      let end = i + 1;
      while (end < c.size && valid(c, end)) end++;
      vectors.set(floats.subarray(i * dimension, end * dimension), at * dimension);
      for (; i < end; i++) rowids[at++] = Number(ids.getBigInt64(i * 8, true));
    }
  }
  return { rowids, vectors, chunks: spans };
}

async function fromVecScan(db: Db, table: string, dimension: number, { into }: ReadVectors): Promise<LayerVectors> {
  const rows = await db.all<{ rowid: number; embedding: Uint8Array }>(`SELECT rowid, embedding FROM ${table}`);
  const rowids = new Float64Array(rows.length);
  const vectors = into?.(rows.length) ?? new Float32Array(rows.length * dimension);
  for (const [i, row] of rows.entries()) {
    if (row.embedding.byteLength !== dimension * 4) throw new RecallError('bad-argument', `${table} holds ${row.embedding.byteLength / 4}-d vectors, not ${dimension}-d`);
    rowids[i] = row.rowid;
    vectors.set(fromBlob(row.embedding), i * dimension);
  }
  return { rowids, vectors };
}

/**
 * About `size` of a layer's vectors, evenly spread over its rows (old and new exchanges talk of different things):
 * those whose row number is a multiple of the step that spreads `size` over the rows' span. Numbering the rows
 * instead (a window over every row) took 100-370 ms at 250,000 vectors, most of a first search's wait. One statement:
 * the span, then each multiple of the step within it looked up among the layer's rows (filtering every row by `rid
 * % step` read all 250,000: ~10 of its ~50 ms of CPU, and a second round trip). vec0 is asked for each sampled row by
 * its rowid, the inner loop of a join: with `rowid IN (the sampled rows)` it scanned every vector and kept those
 * (130-175 ms at 250,000, whatever the sample's size; the lookups take ~40 ms of CPU, issue 42).
 */
export async function sampleVectors(db: Db, layer: Layer, size: number): Promise<Float32Array[]> {
  const valid = validRowids(layer);
  const rows = await db.all<{ embedding: Uint8Array }>(
    `WITH RECURSIVE
       span(lo, hi) AS (SELECT (SELECT min(rid) FROM (${valid.sql})), (SELECT max(rid) FROM (${valid.sql}))),
       step(hi, s) AS (SELECT hi, max(1, (hi - lo + 1) / ?) FROM span WHERE lo IS NOT NULL),
       wanted(rid) AS (SELECT ((lo + s - 1) / s) * s FROM span, step UNION ALL SELECT rid + s FROM wanted, step WHERE rid + s <= hi)
     SELECT v.embedding FROM wanted w CROSS JOIN ${VECTOR_TABLES[layer]} v ON v.rowid = w.rid
     WHERE EXISTS (SELECT 1 FROM (${valid.sql}) WHERE rid = w.rid)`,
    [...valid.params, ...valid.params, size, ...valid.params],
  );
  return rows.map((r) => fromBlob(r.embedding));
}

/**
 * Vectors whose exchange, chunk or distilled text is gone (re-index, deletion, re-distillation): removed
 * here rather than by triggers, because triggers on vec0 tables would break every write to a store opened
 * where sqlite-vec cannot load. Search ignores them meanwhile (it joins vector_rows / verbatim_chunks).
 */
export async function sweepOrphanVectors(db: Db): Promise<number> {
  let removed = 0;
  await db.transaction(async () => {
    for (const [layer, table] of Object.entries(VECTOR_TABLES) as Array<[Layer, string]>) {
      if (!(await hasVectorTable(db, layer))) continue;
      const valid = validRowids(layer);
      removed += (await db.run(`DELETE FROM ${table} WHERE rowid NOT IN (${valid.sql})`, valid.params)).changes;
    }
  });
  return removed;
}

/** Vectors without a current exchange, and exchanges marked embedded without a vector (for store.check()). */
export async function vectorProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  if (!(await storedVectorSpace(db))) return problems;
  for (const { layer, reason } of await unreadableVectorLayers(db)) {
    problems.push(`the ${layer} vectors cannot be read (${reason}); repair makes the table again and the embedding stage embeds them again`);
  }
  for (const [layer, table] of Object.entries(VECTOR_TABLES) as Array<[Layer, string]>) {
    if (!(await hasVectorTable(db, layer))) continue;
    const valid = validRowids(layer);
    const orphans = await db.get<{ c: number }>(`SELECT count(*) AS c FROM ${table} WHERE rowid NOT IN (${valid.sql})`, valid.params);
    if (orphans?.c) problems.push(`${orphans.c} ${layer} vectors have no current exchange`);
    const missing = await db.get<{ c: number }>(
      `SELECT count(*) AS c FROM (${valid.sql}) WHERE rid NOT IN (SELECT rowid FROM ${table})`,
      valid.params,
    );
    if (missing?.c) problems.push(`${missing.c} ${layer} rows are marked embedded but have no vector`);
  }
  return problems;
}

/** Drops the "embedded" mark of rows whose vector is missing, so the next embedding stage redoes them. */
export async function unmarkMissingVectors(db: Db): Promise<void> {
  await db.transaction(async () => {
    for (const [layer, table] of Object.entries(VECTOR_TABLES) as Array<[Layer, string]>) {
      if (!(await hasVectorTable(db, layer))) continue;
      if (layer === 'verbatim') {
        await db.run(
          `DELETE FROM vector_rows WHERE layer = 'verbatim' AND exchange_n IN
             (SELECT exchange_n FROM verbatim_chunks WHERE id NOT IN (SELECT rowid FROM ${table}))`,
        );
      } else {
        await db.run(`DELETE FROM vector_rows WHERE layer = ? AND exchange_n NOT IN (SELECT rowid FROM ${table})`, [layer]);
      }
    }
  });
}

/**
 * The layers whose vec0 table fails a search or a read of every vector (sqlite-vec checks its chunks' sizes as it
 * reads them), with why. Counting rows, as `vectorProblems` does, reads only the rowids and passes a damaged table.
 */
export async function unreadableVectorLayers(db: Db): Promise<Array<{ layer: Layer; reason: string }>> {
  const space = await storedVectorSpace(db);
  if (!space) return [];
  const unreadable: Array<{ layer: Layer; reason: string }> = [];
  for (const [layer, table] of Object.entries(VECTOR_TABLES) as Array<[Layer, string]>) {
    if (!(await hasVectorTable(db, layer))) continue;
    try {
      await nearest(db, table, new Float32Array(space.dimension), 1);
      await db.get(`SELECT count(embedding) AS c FROM ${table}`);
    } catch (err) {
      unreadable.push({ layer, reason: (err as Error).message });
    }
  }
  return unreadable;
}

/**
 * Drops the vec0 tables that cannot be read and makes them again, empty: their vectors are derived, so
 * `unmarkMissingVectors` then leaves their rows to the embedding stage, which embeds them again.
 */
export async function resetUnreadableVectorTables(db: Db): Promise<void> {
  const space = await storedVectorSpace(db);
  const unreadable = await unreadableVectorLayers(db);
  if (!space || unreadable.length === 0) return;
  await db.transaction(async () => {
    for (const { layer } of unreadable) {
      await db.exec(`DROP TABLE ${VECTOR_TABLES[layer]}`);
      await createVectorTable(db, VECTOR_TABLES[layer], space.dimension);
    }
  });
}
