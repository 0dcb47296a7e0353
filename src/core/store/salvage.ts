import type { Db, Params } from './db';
import { recordedExchanges } from './ledger';
import { copyLooseRows } from './looseRows';

/**
 * Copies every row that can still be read from a damaged store into a fresh one, table by table, around
 * damaged pages: a garbage page must cost the rows on it, not the memory (agents delete their transcripts;
 * the store may hold the only copy). Derived tables (full-text indexes) are rebuilt afterwards from the
 * copied rows; vectors are not copied (the embedding stage makes them again).
 */

export interface TableSalvage {
  readonly table: string;
  readonly copied: number;
  /** Rows known to be lost, when the damaged store's own records say how many there were. */
  readonly lost?: number;
  /** Some ranges could not be read (the count of rows in them is not known when `lost` is absent). */
  readonly damaged: boolean;
}

/** Tables that are rebuilt or re-made rather than copied (the lexicon by the repair that follows a salvage). */
const NOT_COPIED = new Set(['vector_rows', 'verbatim_chunks', 'embedding_model', 'lexicon_segments', 'lexicon_postings', 'lexicon_deleted']);
const PAGE = 256;
const ROWID = 'salvage_rowid';

/** Copies the readable rows of every table of `to`'s schema from `from`; `to` must have foreign keys off. */
export async function salvageRows(from: Db, to: Db): Promise<TableSalvage[]> {
  const tables = await to.all<{ name: string }>(
    `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
       AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT GLOB '*_fts_*' AND name NOT GLOB 'vec_*'`,
  );
  const read: Array<{ table: string; copied: number; damaged: boolean }> = [];
  for (const { name } of tables) {
    if (NOT_COPIED.has(name)) continue;
    read.push(await salvageTable(from, to, name));
  }
  // then the rows on pages SQLite no longer reaches (their parent page was lost)
  const loose = await copyLooseRows(from, to, new Set(read.map((t) => t.table)));
  const out: TableSalvage[] = [];
  for (const t of read) {
    const copied = t.copied + (loose.get(t.table) ?? 0);
    const lost = await knownCount(from, t.table).then((n) => (n === undefined ? undefined : Math.max(0, n - copied)));
    out.push({ table: t.table, copied, damaged: t.damaged || (lost ?? 0) > 0, ...(lost !== undefined ? { lost } : {}) });
  }
  await reattachOrphans(to);
  await dropDangling(to);
  return out;
}

/** Rows whose parent was lost (a room assignment of a lost exchange) go: they mean nothing alone. */
async function dropDangling(to: Db): Promise<void> {
  const tables = await to.all<{ name: string }>(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`);
  for (let pass = 0; pass < 3; pass++) {
    let dropped = 0;
    for (const { name } of tables) {
      const fks = await to.all<{ table: string; from: string; to: string | null }>(`PRAGMA foreign_key_list(${quote(name)})`).catch(() => []);
      for (const fk of fks) {
        const r = await to.run(
          `DELETE FROM ${quote(name)} WHERE ${quote(fk.from)} IS NOT NULL
             AND ${quote(fk.from)} NOT IN (SELECT ${fk.to ? quote(fk.to) : 'rowid'} FROM ${quote(fk.table)})`,
        );
        dropped += r.changes;
      }
    }
    if (dropped === 0) break; // a deletion can orphan a grandchild: repeat until nothing changes
  }
}

/**
 * Exchanges whose conversation or source row was on a damaged page keep their verbatim text: they get a
 * stand-in conversation (named by its id) and source (marked as salvaged), rather than being dropped as
 * orphans. The next index run fills in what the transcripts still say.
 */
async function reattachOrphans(to: Db): Promise<void> {
  await to.run(
    `INSERT OR IGNORE INTO sources(id, path, agent, size, last_error)
     SELECT e.source_id, '[salvaged source ' || e.source_id || ']', coalesce(max(c.agent), 'claude-code'), -1,
       'its row was lost to a damaged page; exchanges salvaged'
     FROM (SELECT source_id, conversation_id FROM exchanges UNION ALL SELECT source_id, id FROM conversations) e
       LEFT JOIN conversations c ON c.id = e.conversation_id
     WHERE e.source_id NOT IN (SELECT id FROM sources) GROUP BY e.source_id`,
  );
  await to.run(
    `INSERT OR IGNORE INTO conversations(id, source_id, agent, session_id, line)
     SELECT e.conversation_id, min(e.source_id), s.agent, e.conversation_id, min(e.line_start)
     FROM exchanges e JOIN sources s ON s.id = e.source_id
     WHERE e.conversation_id NOT IN (SELECT id FROM conversations) GROUP BY e.conversation_id`,
  );
}

async function salvageTable(from: Db, to: Db, table: string): Promise<{ table: string; copied: number; damaged: boolean }> {
  const info = await to.all<{ name: string; pk: number }>(`PRAGMA table_info(${quote(table)})`);
  const sourceCols = new Set(
    (await from.all<{ name: string }>(`PRAGMA table_info(${quote(table)})`).catch(() => info)).map((c) => c.name),
  );
  const cols = info.filter((c) => sourceCols.has(c.name)).map((c) => c.name);
  const withoutRowid = await to.get(`SELECT rowid FROM ${quote(table)} LIMIT 0`).then(
    () => false,
    () => true,
  );
  // Pages are walked in key order: the rowid, or a WITHOUT ROWID table's primary key.
  const keys = withoutRowid ? info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name) : ['rowid'];
  // the rowid is read under its own name: SQLite names it after an INTEGER PRIMARY KEY column otherwise
  const rowid = withoutRowid ? [] : ['rowid'];
  const select = `SELECT ${[...rowid.map(() => `rowid AS ${ROWID}`), ...cols.map(quote)].join(', ')} FROM ${quote(table)}`;
  const insert = `INSERT OR IGNORE INTO ${quote(table)}(${[...rowid, ...cols.map(quote)].join(', ')})`;
  const order = ` ORDER BY ${keys.map(quote).join(', ')}`;
  const after = (): string => ` WHERE (${keys.map(quote).join(', ')}) > (${keys.map(() => '?').join(', ')})`;
  const keyOf = (row: Record<string, unknown>): unknown[] => keys.map((k) => row[k === 'rowid' ? ROWID : k]);

  let copied = 0;
  let damaged = false;
  let last: unknown[] | undefined;
  const read = (limit: number): Promise<Array<Record<string, unknown>>> =>
    from.all(select + (last ? after() : '') + order + ` LIMIT ${limit}`, (last ?? []) as Params);
  const take = async (rows: Array<Record<string, unknown>>): Promise<void> => {
    await to.insertRows(insert, rows.map((r) => [...rowid.map(() => r[ROWID]), ...cols.map((c) => r[c])] as unknown as Params));
    copied += rows.length;
    if (rows.length > 0) last = keyOf(rows[rows.length - 1]!);
  };
  for (;;) {
    let rows = await read(PAGE).catch(() => undefined);
    if (!rows) {
      damaged = true;
      // up to the damaged page row by row, then past it
      let one: Array<Record<string, unknown>> | undefined;
      while ((one = await read(1).catch(() => undefined)) && one.length === 1) await take(one);
      if (one) break; // the end was reached
      rows = await nextReadable(from, keys[0]!, select, order + ` LIMIT ${PAGE}`, last?.[0]);
      if (!rows) break;
    }
    if (rows.length === 0) break;
    await take(rows);
  }
  return { table, copied, damaged };
}

/**
 * The rows from the first readable leading key after `lastKey`: probes forward in growing steps until a
 * read succeeds, then narrows back, so at most the rows of the damaged pages are skipped. Keys that are not
 * numbers cannot be stepped over: the rest of such a table is lost.
 */
async function nextReadable(
  from: Db,
  key: string,
  select: string,
  order: string,
  lastKey: unknown,
): Promise<Array<Record<string, unknown>> | undefined> {
  if (lastKey !== undefined && typeof lastKey !== 'number') return undefined;
  const base = typeof lastKey === 'number' ? lastKey : 0;
  const readFrom = async (k: number): Promise<Array<Record<string, unknown>> | undefined> =>
    from.all<Record<string, unknown>>(`${select} WHERE ${quote(key)} >= ?${order}`, [k]).catch(() => undefined);
  let bad = base;
  let good: { at: number; rows: Array<Record<string, unknown>> } | undefined;
  for (let step = 1; base + step < Number.MAX_SAFE_INTEGER; step *= 2) {
    const rows = await readFrom(base + step);
    if (rows) {
      good = { at: base + step, rows };
      break;
    }
    bad = base + step;
  }
  if (!good) return undefined;
  // narrow: the smallest key after the damage from which a read works
  while (good.at - bad > 1) {
    const mid: number = bad + Math.floor((good.at - bad) / 2);
    const rows = await readFrom(mid);
    if (rows) good = { at: mid, rows };
    else bad = mid;
  }
  return good.rows;
}

/**
 * How many rows the damaged store says a table had, from an index kept apart from the table itself; for
 * exchanges whose index cannot be read either, from the ledger written beside the store after each index run.
 */
async function knownCount(from: Db, table: string): Promise<number | undefined> {
  const counter: Record<string, string> = {
    // the full-text index keeps one size row per document, in its own b-tree
    exchanges: 'SELECT count(*) AS n FROM exchanges_fts_docsize',
    distilled: 'SELECT count(*) AS n FROM distilled_fts_docsize',
  };
  const sql = counter[table];
  if (!sql) return undefined;
  const counted = (await from.get<{ n: number }>(sql).catch(() => undefined))?.n;
  return counted ?? (table === 'exchanges' ? recordedExchanges(from.file) : undefined);
}

function quote(name: string): string {
  return name === 'rowid' ? name : `"${name.replace(/"/g, '""')}"`;
}
