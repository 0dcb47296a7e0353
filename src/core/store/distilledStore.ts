import type { DistilledExchange, RoomAssignment } from '../distill/types';
import type { AgentKind, FileTouch } from '../model';
import type { Db } from './db';
import { type FileTouchRow, toFileTouch } from './rows';

/** Store functions for the distilled layer: what is pending, the cache, results, failures, rooms. */

export interface PendingExchange {
  readonly n: number;
  readonly exchangeId: string;
  readonly agent: AgentKind;
  readonly project?: string;
  readonly plyStart: number;
  readonly plyEnd: number;
  readonly prompt: string;
  readonly verbatim: string;
  readonly verbatimTokens?: number;
  readonly filesTouched: FileTouch[];
}

export interface StoredRoom extends RoomAssignment {
  readonly id: string;
  readonly project?: string;
}

export interface DistilledRecord {
  readonly n: number;
  readonly value: DistilledExchange;
  readonly rooms: readonly StoredRoom[];
  readonly filesTouched: readonly FileTouch[];
  readonly distiller: string;
  readonly model?: string;
  readonly promptVersion: string;
  readonly contentHash: string;
  readonly tokens: number;
  /** Store the result in the content cache (LLM results, which cost money to make again). */
  readonly cache: boolean;
}

/** After this many failed attempts an exchange is left alone until the user retries explicitly. */
export const MAX_DISTILL_ATTEMPTS = 5;

/** Exchanges with no distilled object whose last failure (if any) is due for a retry. */
export async function pendingDistillation(db: Db, limit: number, now = Date.now()): Promise<PendingExchange[]> {
  const rows = await db.all<{
    n: number; id: string; agent: AgentKind; project: string | null; ply_start: number; ply_end: number;
    prompt: string; verbatim: string; verbatim_tokens: number | null;
  }>(
    `SELECT e.n, e.id, c.agent, c.project, e.ply_start, e.ply_end, e.prompt, e.verbatim, e.verbatim_tokens
     FROM exchanges e JOIN conversations c ON c.id = e.conversation_id
     LEFT JOIN distilled d ON d.exchange_n = e.n
     LEFT JOIN distill_failures f ON f.exchange_n = e.n
     WHERE d.exchange_n IS NULL AND (f.exchange_n IS NULL OR (f.next_attempt_at <= ? AND f.attempts < ?))
     ORDER BY e.n LIMIT ?`,
    [now, MAX_DISTILL_ATTEMPTS, limit],
  );
  const out: PendingExchange[] = [];
  for (const r of rows) {
    const files = await db.all<FileTouchRow>('SELECT path, how, lines FROM files_touched WHERE exchange_n = ?', [r.n]);
    out.push({
      n: r.n,
      exchangeId: r.id,
      agent: r.agent,
      ...(r.project !== null ? { project: r.project } : {}),
      plyStart: r.ply_start,
      plyEnd: r.ply_end,
      prompt: r.prompt,
      verbatim: r.verbatim,
      ...(r.verbatim_tokens !== null ? { verbatimTokens: r.verbatim_tokens } : {}),
      filesTouched: files.map(toFileTouch),
    });
  }
  return out;
}

export async function cachedDistillation(
  db: Db,
  contentHash: string,
  promptVersion: string,
  model: string,
): Promise<DistilledExchange | undefined> {
  const row = await db.get<{ result: string }>(
    'SELECT result FROM distill_cache WHERE content_hash = ? AND prompt_version = ? AND model = ?',
    [contentHash, promptVersion, model],
  );
  return row ? (JSON.parse(row.result) as DistilledExchange) : undefined;
}

/** Writes a batch of distilled objects, their rooms and facets in one transaction. */
export async function saveDistilled(db: Db, records: readonly DistilledRecord[]): Promise<void> {
  await db.transaction(async () => {
    for (const r of records) {
      await db.run('DELETE FROM distilled WHERE exchange_n = ?', [r.n]);
      await db.run('DELETE FROM exchange_rooms WHERE exchange_n = ?', [r.n]);
      await db.run(
        `INSERT INTO distilled(exchange_n, core, context, distiller, model, prompt_version, content_hash, tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.n, r.value.exchangeCore, r.value.specificContext, r.distiller, r.model ?? null, r.promptVersion, r.contentHash, r.tokens, Date.now()],
      );
      for (const room of r.rooms) {
        await db.run(
          `INSERT INTO rooms(id, type, key, label, project) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(id) DO NOTHING`,
          [room.id, room.type, room.key, room.label, room.project ?? null],
        );
        await db.run('INSERT OR REPLACE INTO exchange_rooms(exchange_n, room_id, relevance) VALUES (?, ?, ?)', [r.n, room.id, room.relevance]);
      }
      await db.run('INSERT INTO distilled_fts(rowid, core, context, files, rooms) VALUES (?, ?, ?, ?, ?)', [
        r.n,
        r.value.exchangeCore,
        r.value.specificContext,
        r.filesTouched.map((f) => f.path).join(' '),
        r.rooms.map((x) => `${x.label} ${x.key}`).join(' '),
      ]);
      await db.run('DELETE FROM distill_failures WHERE exchange_n = ?', [r.n]);
      if (r.cache && r.model) {
        await db.run(
          'INSERT OR REPLACE INTO distill_cache(content_hash, prompt_version, model, result, created_at) VALUES (?, ?, ?, ?, ?)',
          [r.contentHash, r.promptVersion, r.model, JSON.stringify(r.value), Date.now()],
        );
      }
    }
  });
}

/** Records a failure; the next attempt waits exponentially longer (1 min, 2, 4, … capped at a day). */
export async function recordDistillFailure(
  db: Db,
  n: number,
  distiller: string,
  error: string,
  retryAfterMs = 0,
  now = Date.now(),
): Promise<void> {
  const prev = await db.get<{ attempts: number }>('SELECT attempts FROM distill_failures WHERE exchange_n = ?', [n]);
  const attempts = (prev?.attempts ?? 0) + 1;
  const backoff = Math.min(24 * 3600_000, 60_000 * 2 ** (attempts - 1));
  await db.run(
    `INSERT OR REPLACE INTO distill_failures(exchange_n, distiller, attempts, last_error, next_attempt_at) VALUES (?, ?, ?, ?, ?)`,
    [n, distiller, attempts, error.slice(0, 2000), now + Math.max(backoff, retryAfterMs)],
  );
}

export interface CompressionStats {
  readonly distilled: number;
  readonly verbatimTokens: number;
  readonly distilledTokens: number;
  /** Corpus totals, the paper's way: sum verbatim / sum distilled over distilled exchanges. */
  readonly ratio: number;
  /** Mean of per-exchange ratios. */
  readonly meanItemRatio: number;
  readonly meanDistilledTokens: number;
  readonly failures: number;
}

export async function compressionStats(db: Db): Promise<CompressionStats> {
  const r = await db.get<{ c: number; v: number | null; d: number | null; m: number | null }>(
    `SELECT count(*) AS c, sum(e.verbatim_tokens) AS v, sum(d.tokens) AS d,
       avg(CAST(e.verbatim_tokens AS REAL) / max(d.tokens, 1)) AS m
     FROM distilled d JOIN exchanges e ON e.n = d.exchange_n WHERE e.verbatim_tokens IS NOT NULL`,
  );
  const failures = (await db.get<{ c: number }>('SELECT count(*) AS c FROM distill_failures'))?.c ?? 0;
  const v = r?.v ?? 0;
  const d = r?.d ?? 0;
  return {
    distilled: r?.c ?? 0,
    verbatimTokens: v,
    distilledTokens: d,
    ratio: d > 0 ? +(v / d).toFixed(2) : 0,
    meanItemRatio: +(r?.m ?? 0).toFixed(2),
    meanDistilledTokens: r?.c ? +(d / r.c).toFixed(1) : 0,
    failures,
  };
}
