import { type CancellationSignal, NEVER_CANCELLED } from '../cancellation';
import { distilledText } from '../distill/types';
import { RecallError } from '../errors';
import type { Layer } from '../model';
import type { Db } from '../store/db';
import type { Store } from '../store/store';
import type { Embedder } from './embedder';
import { sweepOrphanVectors, useVectorSpace, VECTOR_TABLES } from '../store/vectorStore';
import { putVector } from '../store/vectors';

/**
 * The embedding stage (indexer: ... -> distill -> embed): vectors for every distilled exchange on the
 * chosen layers, and optionally for verbatim chunks. Batched (each batch embedded, then written in one
 * transaction), resumable (only exchanges without vectors are picked up) and cancellable between batches.
 */
export interface EmbedStageOptions {
  /** Layers to embed; default the distilled text only (`core`: core + context). */
  readonly layers?: readonly Layer[];
  /** Exchanges per batch (default 64). */
  readonly batchSize?: number;
}

export interface EmbedProgress {
  readonly phase: 'embed';
  readonly layer: Layer;
  readonly done: number;
  readonly total: number;
}

export interface EmbedReport {
  readonly modelId: string;
  readonly dimension: number;
  /** Vectors of another model were dropped first. */
  readonly reset: boolean;
  readonly orphansRemoved: number;
  /** Exchanges embedded per layer in this run. */
  readonly embedded: Partial<Record<Layer, number>>;
  readonly chunks: number;
  readonly cancelled: boolean;
}

export const DEFAULT_VECTOR_LAYERS: readonly Layer[] = ['core'];
/** The paper's verbatim chunks: ~1,500 characters, cut at whitespace. */
export const CHUNK_CHARS = 1500;
/** A 200 KB exchange (a pasted log) would otherwise dominate the stage; its head says what it was about. */
export const MAX_CHUNKS = 64;

export async function embedStore(
  store: Store,
  embedder: Embedder,
  options: EmbedStageOptions = {},
  onProgress: (p: EmbedProgress) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
): Promise<EmbedReport> {
  if (!store.vectorsAvailable) {
    throw new RecallError('model-unavailable', store.vectorError ?? 'sqlite-vec is not loaded; search stays lexical.');
  }
  const db = store.db;
  const reset = await useVectorSpace(db, { modelId: embedder.modelId, dimension: embedder.dimension });
  const orphansRemoved = await sweepOrphanVectors(db);
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const embedded: Partial<Record<Layer, number>> = {};
  let chunks = 0;
  for (const layer of options.layers ?? DEFAULT_VECTOR_LAYERS) {
    const total = await pendingCount(db, layer);
    let done = 0;
    onProgress({ phase: 'embed', layer, done, total });
    // what the first embedding of a process makes (the built-in model's word table: 45-80 ms at once, 63 ms of the
    // extension host's thread in an appended whole run at 1 GB) made first a slice at a time; nothing once made
    if (total > 0) await embedder.prepare?.();
    while (!token.isCancellationRequested) {
      if (layer === 'verbatim') {
        const batch = await pendingVerbatim(db, Math.max(1, Math.floor(batchSize / 4)));
        if (batch.length === 0) break;
        chunks += await embedVerbatim(db, embedder, batch);
        done += batch.length;
      } else {
        const batch = await pendingDistilled(db, layer, batchSize);
        if (batch.length === 0) break;
        const vectors = await embedder.embed(batch.map((b) => b.text));
        await db.transaction(async () => {
          for (const [i, b] of batch.entries()) {
            await putVector(db, VECTOR_TABLES[layer], b.n, vectors[i]!);
            await db.run('INSERT OR REPLACE INTO vector_rows(layer, exchange_n) VALUES (?, ?)', [layer, b.n]);
          }
        });
        done += batch.length;
      }
      embedded[layer] = done;
      onProgress({ phase: 'embed', layer, done, total });
    }
  }
  return {
    modelId: embedder.modelId,
    dimension: embedder.dimension,
    reset,
    orphansRemoved,
    embedded,
    chunks,
    cancelled: token.isCancellationRequested,
  };
}

async function pendingCount(db: Db, layer: Layer): Promise<number> {
  const from = layer === 'verbatim' ? 'exchanges e' : 'distilled d JOIN exchanges e ON e.n = d.exchange_n';
  const row = await db.get<{ c: number }>(
    `SELECT count(*) AS c FROM ${from} WHERE NOT EXISTS (SELECT 1 FROM vector_rows v WHERE v.layer = ? AND v.exchange_n = e.n)`,
    [layer],
  );
  return row?.c ?? 0;
}

interface DistilledRow {
  n: number;
  core: string;
  context: string;
  files: string | null;
  rooms: string | null;
  terms: string;
}

/** The text a distilled layer embeds: the distilled text, plus the facets the layer names. */
export function layerText(layer: Exclude<Layer, 'verbatim'>, r: { core: string; context: string; files?: string; rooms?: string; terms?: string }): string {
  const parts = [distilledText({ exchangeCore: r.core, specificContext: r.context })];
  if ((layer === 'core+files' || layer === 'all-facets') && r.files) parts.push(r.files);
  if ((layer === 'core+rooms' || layer === 'all-facets') && r.rooms) parts.push(r.rooms);
  if (layer === 'all-facets' && r.terms) parts.push(r.terms);
  return parts.join('\n');
}

async function pendingDistilled(db: Db, layer: Exclude<Layer, 'verbatim'>, limit: number): Promise<Array<{ n: number; text: string }>> {
  const rows = await db.all<DistilledRow>(
    `SELECT d.exchange_n AS n, d.core, d.context, d.terms,
       (SELECT group_concat(path, ' ') FROM files_touched f WHERE f.exchange_n = d.exchange_n) AS files,
       (SELECT group_concat(r.label, ', ') FROM exchange_rooms er JOIN rooms r ON r.id = er.room_id
         WHERE er.exchange_n = d.exchange_n) AS rooms
     FROM distilled d
     WHERE NOT EXISTS (SELECT 1 FROM vector_rows v WHERE v.layer = ? AND v.exchange_n = d.exchange_n)
     ORDER BY d.exchange_n LIMIT ?`,
    [layer, limit],
  );
  return rows.map((r) => ({
    n: r.n,
    text: layerText(layer, { core: r.core, context: r.context, terms: r.terms, ...(r.files ? { files: r.files } : {}), ...(r.rooms ? { rooms: r.rooms } : {}) }),
  }));
}

async function pendingVerbatim(db: Db, limit: number): Promise<Array<{ n: number; verbatim: string }>> {
  return db.all(
    `SELECT n, verbatim FROM exchanges e
     WHERE NOT EXISTS (SELECT 1 FROM vector_rows v WHERE v.layer = 'verbatim' AND v.exchange_n = e.n)
     ORDER BY n LIMIT ?`,
    [limit],
  );
}

async function embedVerbatim(db: Db, embedder: Embedder, batch: ReadonlyArray<{ n: number; verbatim: string }>): Promise<number> {
  const pieces = batch.map((b) => chunkText(b.verbatim));
  const vectors = await embedder.embed(pieces.flat());
  let at = 0;
  await db.transaction(async () => {
    for (const [i, b] of batch.entries()) {
      await db.run('DELETE FROM verbatim_chunks WHERE exchange_n = ?', [b.n]);
      for (let ord = 0; ord < pieces[i]!.length; ord++) {
        const row = await db.get<{ id: number }>('INSERT INTO verbatim_chunks(exchange_n, ord) VALUES (?, ?) RETURNING id', [b.n, ord]);
        await putVector(db, VECTOR_TABLES.verbatim, row!.id, vectors[at++]!);
      }
      await db.run("INSERT OR REPLACE INTO vector_rows(layer, exchange_n) VALUES ('verbatim', ?)", [b.n]);
    }
  });
  return at;
}

/** ~CHUNK_CHARS pieces cut at the last whitespace before the limit (or hard, in a run without any). */
export function chunkText(text: string, size = CHUNK_CHARS, maxChunks = MAX_CHUNKS): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length && out.length < maxChunks) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const cut = text.lastIndexOf(' ', end);
      const nl = text.lastIndexOf('\n', end);
      const best = Math.max(cut, nl);
      if (best > start + size / 2) end = best;
    }
    const piece = text.slice(start, end).trim();
    if (piece) out.push(piece);
    start = end;
  }
  return out.length > 0 ? out : [''];
}
