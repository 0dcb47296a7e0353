import type { AgentKind, DistilledExchange, DistillInput, FileTouch, RoomType, StoredRoom } from '../model';
import type { Db, Params } from './db';
import { resetFtsTable } from './ftsReset';
import { type FileTouchRow, toFileTouch } from './rows';

/** Store functions for the distilled layer: what is pending, the cache, results, failures, rooms. */

export interface DistilledRecord {
  readonly n: number;
  /** The exchange row `n` held when it was read: the record is written only while it still does (see saveDistillBatch). */
  readonly exchangeId?: string;
  readonly value: DistilledExchange;
  /** The value's rooms as resolved by rooms.ts (normalised keys, ids, project). */
  readonly rooms: readonly StoredRoom[];
  readonly filesTouched: readonly FileTouch[];
  readonly distiller: string;
  readonly model?: string;
  readonly promptVersion: string;
  readonly contentHash: string;
  readonly tokens: number;
  /** Store the result in the content cache (LLM results, which cost money to make again). */
  readonly cache: boolean;
  /** Its verbatim text's redaction stamp (redactionCheck.ts: CLEAN or HOLDS_SECRET); none leaves it to the redaction stage. */
  readonly redactionStamp?: string;
}

export interface DistillFailure {
  readonly n: number;
  readonly exchangeId?: string;
  readonly distiller: string;
  readonly error: string;
  readonly retryAfterMs?: number;
}

/** After this many failed attempts an exchange is left alone until the user retries explicitly. */
export const MAX_DISTILL_ATTEMPTS = 5;

/**
 * Whose backlog: a distiller's name and prompt version. An exchange is in a distiller's backlog when it has
 * no distilled object, when its object is the offline distiller's and this one is not (turning an LLM on
 * upgrades what `index` distilled offline), or when its object came from this distiller under an older
 * prompt version. Objects of another LLM distiller are left alone.
 */
export interface DistillTarget {
  readonly name: string;
  readonly promptVersion: string;
}

/** The backlog of any LLM distiller: what has no object, or only the offline one (for plans and counts). */
export const LLM_BACKLOG: DistillTarget = { name: '', promptVersion: '' };

const OFFLINE = 'offline';

/** SQL condition on `d` (distilled, left-joined) for a target's backlog (none: no object yet), and its parameters. */
function backlogCondition(target: DistillTarget | undefined): [string, Params] {
  if (!target) return ['d.exchange_n IS NULL', []];
  return [
    '(d.exchange_n IS NULL OR (? AND d.distiller = ?) OR (d.distiller = ? AND d.prompt_version <> ?))',
    [target.name !== OFFLINE ? 1 : 0, OFFLINE, target.name, target.promptVersion],
  ];
}

/**
 * Exchanges without a distilled object, or the target's whole backlog (see DistillTarget), whose last failure (if any) is due for a retry, in store order,
 * after row `afterN` (the stage pages with it, so an exchange left undone in this run is not re-read).
 */
export async function pendingDistillation(
  db: Db,
  limit: number,
  afterN = 0,
  now = Date.now(),
  target?: DistillTarget,
): Promise<DistillInput[]> {
  const [backlog, params] = backlogCondition(target);
  const rows = await db.all<{
    n: number; id: string; agent: AgentKind; project: string | null; title: string | null; ply_start: number; ply_end: number;
    prompt: string; verbatim: string;
  }>(
    // the page's exchanges found in the narrow index on n, then read: walking the exchanges' own rows (their texts)
    // to find them read ~180 ms of pages at 40,000 exchanges when few or none were waiting
    `SELECT e.n, e.id, c.agent, c.project, c.title, e.ply_start, e.ply_end, e.prompt, e.verbatim
     FROM exchanges e JOIN conversations c ON c.id = e.conversation_id
     WHERE e.n IN (
       SELECT x.n FROM exchanges x INDEXED BY exchanges_place
       LEFT JOIN distilled d ON d.exchange_n = x.n
       LEFT JOIN distill_failures f ON f.exchange_n = x.n
       WHERE x.n > ? AND ${backlog} AND (f.exchange_n IS NULL OR (f.next_attempt_at <= ? AND f.attempts < ?))
       ORDER BY x.n LIMIT ?)
     ORDER BY e.n`,
    [afterN, ...params, now, MAX_DISTILL_ATTEMPTS, limit],
  );
  // the batch's files in one query (rows are in n order, so a range covers them)
  const files = new Map<number, FileTouch[]>();
  if (rows.length > 0) {
    const touched = await db.all<FileTouchRow & { n: number }>(
      'SELECT exchange_n AS n, path, how, lines FROM files_touched WHERE exchange_n BETWEEN ? AND ? ORDER BY exchange_n, path',
      [rows[0]!.n, rows[rows.length - 1]!.n],
    );
    for (const t of touched) {
      const list = files.get(t.n) ?? [];
      list.push(toFileTouch(t));
      files.set(t.n, list);
    }
  }
  const out: DistillInput[] = [];
  for (const r of rows) {
    out.push({
      n: r.n,
      exchangeId: r.id,
      agent: r.agent,
      ...(r.project !== null ? { project: r.project } : {}),
      ...(r.title !== null && r.title !== '' ? { title: r.title } : {}),
      plyStart: r.ply_start,
      plyEnd: r.ply_end,
      prompt: r.prompt,
      verbatim: r.verbatim,
      filesTouched: files.get(r.n) ?? [],
    });
  }
  return out;
}

/** How many exchanges `pendingDistillation` would return in all (for progress). */
export async function countPendingDistillation(
  db: Db,
  now = Date.now(),
  target?: DistillTarget,
): Promise<number> {
  const [backlog, params] = backlogCondition(target);
  const r = await db.get<{ c: number }>(
    `SELECT count(*) AS c FROM exchanges e LEFT JOIN distilled d ON d.exchange_n = e.n
     LEFT JOIN distill_failures f ON f.exchange_n = e.n
     WHERE ${backlog} AND (f.exchange_n IS NULL OR (f.next_attempt_at <= ? AND f.attempts < ?))`,
    [...params, now, MAX_DISTILL_ATTEMPTS],
  );
  return r?.c ?? 0;
}

/** Every stored room, to seed an LLM run's RoomRegistry (near-duplicate keys resolve to rooms that exist). */
export async function knownRooms(db: Db): Promise<Array<{ type: RoomType; key: string; project?: string }>> {
  const rows = await db.all<{ type: RoomType; key: string; project: string | null }>('SELECT type, key, project FROM rooms ORDER BY rowid');
  return rows.map((r) => ({ type: r.type, key: r.key, ...(r.project !== null ? { project: r.project } : {}) }));
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
  if (!row) return undefined;
  try {
    return JSON.parse(row.result) as DistilledExchange;
  } catch {
    return undefined; // a damaged entry is a miss: the exchange is distilled again and the entry replaced
  }
}

/**
 * Writes one batch in one transaction: distilled objects with their rooms and full-text facets, the
 * cache entries of LLM results, and the failures (each retried later with backoff). Rows travel as one
 * bound JSON parameter per table (read with json_each): a handful of statements per batch instead of
 * ten per exchange, which is most of the stage's time on the callback driver. A record or failure naming its
 * exchange is dropped when row `n` no longer holds it: another process re-indexed its source while it was being
 * distilled (its row went, or its number went to another exchange); the new row waits for the next run.
 */
export async function saveDistillBatch(
  db: Db,
  records: readonly DistilledRecord[],
  failures: readonly DistillFailure[] = [],
  now = Date.now(),
): Promise<{ readonly written: number; readonly failed: number }> {
  return db.transaction(async () => {
    const live = await stillHeld(db, [...records, ...failures]);
    const held = <T extends { n: number; exchangeId?: string }>(r: T): boolean => r.exchangeId === undefined || live.has(r.n);
    const kept = records.filter(held);
    const failed = failures.filter(held);
    if (kept.length > 0) await writeRecords(db, kept, now);
    for (const f of failed) await writeFailure(db, f, now);
    return { written: kept.length, failed: failed.length };
  });
}

/** Of the rows named with their exchange, those that still hold that exchange. */
export async function stillHeld(db: Db, rows: ReadonlyArray<{ n: number; exchangeId?: string }>): Promise<Set<number>> {
  const named = rows.filter((r) => r.exchangeId !== undefined).map((r) => [r.n, r.exchangeId]);
  if (named.length === 0) return new Set();
  const found = await db.all<{ n: number }>('SELECT e.n FROM json_each(?) j JOIN exchanges e ON e.n = j.value ->> 0 AND e.id = j.value ->> 1', [
    JSON.stringify(named),
  ]);
  return new Set(found.map((r) => r.n));
}

const EACH = 'SELECT value AS v FROM json_each(?)';
const at = (i: number): string => `json_extract(v, '$[${i}]')`;

async function writeRecords(db: Db, records: readonly DistilledRecord[], now: number): Promise<void> {
  const ns = JSON.stringify(records.map((r) => r.n));
  // the distilled_ad trigger removes the old full-text rows with the old distilled rows
  await db.run(`DELETE FROM distilled WHERE exchange_n IN (SELECT v FROM (${EACH}))`, [ns]);
  await db.run(`DELETE FROM exchange_rooms WHERE exchange_n IN (SELECT v FROM (${EACH}))`, [ns]);
  await db.run(`DELETE FROM distill_failures WHERE exchange_n IN (SELECT v FROM (${EACH}))`, [ns]);
  await db.run(
    `INSERT INTO distilled(exchange_n, core, context, distiller, model, prompt_version, content_hash, tokens, terms, clean, created_at)
     SELECT ${[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(at).join(', ')}, ? FROM (${EACH})`,
    [
      now,
      JSON.stringify(
        records.map((r) => [
          r.n, r.value.exchangeCore, r.value.specificContext, r.distiller, r.model ?? null, r.promptVersion, r.contentHash, r.tokens,
          r.value.searchTerms ?? '', r.redactionStamp ?? null,
        ]),
      ),
    ],
  );
  const rooms = records.flatMap((r) => r.rooms.map((room) => [r.n, room.id, room.type, room.key, room.label, room.project ?? null, room.relevance]));
  if (rooms.length > 0) {
    const json = JSON.stringify(rooms);
    await db.run(`INSERT INTO rooms(id, type, key, label, project) SELECT ${[1, 2, 3, 4, 5].map(at).join(', ')} FROM (${EACH}) WHERE true
       ON CONFLICT(id) DO NOTHING`, [json]);
    await db.run(
      `INSERT OR REPLACE INTO exchange_rooms(exchange_n, room_id, relevance, label) SELECT ${[0, 1, 6, 4].map(at).join(', ')} FROM (${EACH})`,
      [json],
    );
  }
  // the facets as indexed, for the delete trigger (distilled_fts keeps no text: contentlessFts.ts)
  const facets = JSON.stringify(records.map((r) => [r.n, filesFacet(r.filesTouched), roomsFacet(r.rooms)]));
  await db.run(`INSERT OR REPLACE INTO distilled_facets(exchange_n, files, rooms) SELECT ${[0, 1, 2].map(at).join(', ')} FROM (${EACH})`, [facets]);
  await db.run(
    `INSERT INTO distilled_fts(rowid, core, context, files, rooms, terms)
     SELECT d.exchange_n, d.core, d.context, x.files, x.rooms, d.terms FROM (${EACH}) j
     JOIN distilled d ON d.exchange_n = ${at(0)} JOIN distilled_facets x ON x.exchange_n = d.exchange_n`,
    [facets],
  );
  const cached = records.filter((r) => r.cache && r.model);
  if (cached.length > 0) {
    await db.run(
      `INSERT OR REPLACE INTO distill_cache(content_hash, prompt_version, model, result, created_at)
       SELECT ${[0, 1, 2, 3].map(at).join(', ')}, ? FROM (${EACH})`,
      [now, JSON.stringify(cached.map((r) => [r.contentHash, r.promptVersion, r.model, JSON.stringify(r.value)]))],
    );
  }
}

/** The next attempt waits exponentially longer (1 min, 2, 4, … capped at a day), or as long as the server asked. */
async function writeFailure(db: Db, f: DistillFailure, now: number): Promise<void> {
  const prev = await db.get<{ attempts: number }>('SELECT attempts FROM distill_failures WHERE exchange_n = ?', [f.n]);
  const attempts = (prev?.attempts ?? 0) + 1;
  const backoff = Math.min(24 * 3600_000, 60_000 * 2 ** (attempts - 1));
  await db.run(
    'INSERT OR REPLACE INTO distill_failures(exchange_n, distiller, attempts, last_error, next_attempt_at) VALUES (?, ?, ?, ?, ?)',
    [f.n, f.distiller, attempts, f.error.slice(0, 2000), now + Math.max(backoff, f.retryAfterMs ?? 0)],
  );
}

function filesFacet(files: readonly FileTouch[]): string {
  return files.map((f) => f.path).join(' ');
}

function roomsFacet(rooms: ReadonlyArray<Pick<StoredRoom, 'label' | 'key'>>): string {
  return rooms.map((x) => `${x.label} ${x.key}`).join(' ');
}


/**
 * Re-creates distilled_fts from the distilled rows, their files and rooms (the rows are the truth; the
 * full-text table is derived). Runs inside the caller's transaction. `facets`: false for the table of schema 15
 * to 29, which kept its text and had no side table (contentlessFts.ts).
 */
export async function rebuildDistilledFts(db: Db, facets = true): Promise<void> {
  await resetFtsTable(db, 'distilled_fts');
  if (facets) await db.run('DELETE FROM distilled_facets');
  const rows = await db.all<{ n: number; core: string; context: string; terms: string }>(
    'SELECT exchange_n AS n, core, context, terms FROM distilled ORDER BY exchange_n',
  );
  for (const r of rows) {
    const files = await db.all<FileTouchRow>('SELECT path, how, lines FROM files_touched WHERE exchange_n = ? ORDER BY path', [r.n]);
    const rooms = await db.all<{ label: string; key: string }>(
      'SELECT r.label, r.key FROM exchange_rooms x JOIN rooms r ON r.id = x.room_id WHERE x.exchange_n = ? ORDER BY x.relevance DESC, r.id',
      [r.n],
    );
    const [filesText, roomsText] = [filesFacet(files.map(toFileTouch)), roomsFacet(rooms)];
    if (facets) await db.run('INSERT INTO distilled_facets(exchange_n, files, rooms) VALUES (?, ?, ?)', [r.n, filesText, roomsText]);
    await db.run('INSERT INTO distilled_fts(rowid, core, context, files, rooms, terms) VALUES (?, ?, ?, ?, ?, ?)', [
      r.n, r.core, r.context, filesText, roomsText, r.terms,
    ]);
  }
}

/** Distilled rows without a full-text row, full-text rows without a distilled row, a damaged index. */
export async function distilledFtsProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const missing = await db.get<{ c: number }>('SELECT count(*) AS c FROM distilled WHERE exchange_n NOT IN (SELECT rowid FROM distilled_fts)');
  if (missing?.c) problems.push(`${missing.c} distilled exchanges have no distilled full-text row`);
  const orphan = await db.get<{ c: number }>('SELECT count(*) AS c FROM distilled_fts WHERE rowid NOT IN (SELECT exchange_n FROM distilled)');
  if (orphan?.c) problems.push(`${orphan.c} distilled full-text rows have no distilled exchange`);
  // without its facets as indexed, a row could not be taken out of the index (contentlessFts.ts)
  const bare = await db.get<{ c: number }>('SELECT count(*) AS c FROM distilled_fts_docsize WHERE id NOT IN (SELECT exchange_n FROM distilled_facets)');
  if (bare?.c) problems.push(`${bare.c} distilled full-text rows have no facets kept`);
  try {
    await db.run("INSERT INTO distilled_fts(distilled_fts, rank) VALUES ('integrity-check', 1)");
  } catch (err) {
    problems.push(`distilled full-text index: ${(err as Error).message}`);
  }
  return problems;
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

/** The distilled exchanges compression counts: those whose verbatim tokens are counted (the ratio needs both). */
export const COUNTED_TOKENS = 'e.verbatim_tokens IS NOT NULL';

export async function compressionStats(db: Db): Promise<CompressionStats> {
  const r = await db.get<{ c: number; v: number | null; d: number | null; m: number | null }>(
    `SELECT count(*) AS c, sum(e.verbatim_tokens) AS v, sum(d.tokens) AS d,
       avg(CAST(e.verbatim_tokens AS REAL) / max(d.tokens, 1)) AS m
     FROM distilled d JOIN exchanges e ON e.n = d.exchange_n WHERE ${COUNTED_TOKENS}`,
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
