import { stat } from 'node:fs/promises';
import type { Db, Params } from './db';
import { type LooseRow, PageFile, type Value } from './pageFile';

/**
 * Rows read off table leaf pages that no b-tree reaches any more (pageFile.ts), put back into their tables.
 * A leaf page does not name its table: a page goes to the table whose rows every record on it fits (no more
 * values than columns, each value of its column's type, NOT NULL kept), among the tables whose tree has a hole;
 * a page that fits none of them, or several, stays out. Rows already copied through SQLite keep that copy.
 */

type Affinity = 'integer' | 'text' | 'real' | 'numeric' | 'blob';

interface Column {
  readonly name: string;
  readonly affinity: Affinity;
  readonly notNull: boolean;
  readonly hasDefault: boolean;
}

interface Shape {
  readonly table: string;
  readonly columns: readonly Column[];
  /** The INTEGER PRIMARY KEY column, stored as NULL in the record (the rowid holds it); -1 when none. */
  readonly rowidAlias: number;
}

/**
 * Copies into `to` the rows of `tables` (names in both stores) found on pages of `from`'s file that no
 * b-tree reaches; returns how many rows each table gained. Nothing when a write-ahead log with frames lies
 * beside the file: its pages are newer than the file's, and a page read from the file could be an old one.
 */
export async function copyLooseRows(from: Db, to: Db, tables: ReadonlySet<string>): Promise<Map<string, number>> {
  const gained = new Map<string, number>();
  const walBytes = await stat(`${from.file}-wal`).then((s) => s.size, () => 0);
  if (walBytes > 0) return gained;
  const schema = await from
    .all<{ name: string; rootpage: number; sql: string | null; type: string }>('SELECT name, type, rootpage, sql FROM sqlite_schema WHERE rootpage > 0')
    .catch(() => undefined);
  const file = schema && (await PageFile.open(from.file));
  if (!schema || !file) return gained;
  try {
    const inUse = new Uint8Array(file.pages + 1);
    const holed = await file.markInUse([1, ...schema.map((s) => s.rootpage)], inUse);
    const shapes: Shape[] = [];
    for (const s of schema) {
      if (s.type === 'table' && holed.has(s.rootpage) && !/without\s+rowid\s*$/i.test(s.sql ?? '')) {
        const shape = await shapeOf(from, s.name);
        if (shape) shapes.push(shape);
      }
    }
    if (shapes.length === 0) return gained;
    for await (const { rows } of file.looseLeaves(inUse)) {
      const fitting = shapes.filter((shape) => rows.every((row) => fits(shape, row)));
      if (fitting.length !== 1 || !tables.has(fitting[0]!.table)) continue;
      const shape = fitting[0]!;
      const n = await insertRows(to, shape, rows);
      gained.set(shape.table, (gained.get(shape.table) ?? 0) + n);
    }
  } finally {
    await file.close();
  }
  return gained;
}

async function shapeOf(from: Db, table: string): Promise<Shape | undefined> {
  type Info = { name: string; type: string; notnull: number; dflt_value: unknown; pk: number };
  const info = await from.all<Info>(`PRAGMA table_info(${quote(table)})`).catch((): Info[] => []);
  if (info.length === 0) return undefined;
  const pks = info.filter((c) => c.pk > 0);
  const alias = pks.length === 1 && pks[0]!.type.toUpperCase() === 'INTEGER' ? info.indexOf(pks[0]!) : -1;
  const columns = info.map((c) => ({ name: c.name, affinity: affinity(c.type), notNull: c.notnull === 1, hasDefault: c.dflt_value !== null }));
  return { table, columns, rowidAlias: alias };
}

/** SQLite's rules for a column's affinity from its declared type (sqlite.org/datatype3.html). */
function affinity(declared: string): Affinity {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t === '' || t.includes('BLOB')) return 'blob';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'real';
  return 'numeric';
}

/** Whether `row` can be a row of `shape`: columns added later may be missing from old rows, when they may be. */
function fits(shape: Shape, row: LooseRow): boolean {
  const { columns } = shape;
  if (row.values.length === 0 || row.values.length > columns.length) return false;
  for (let i = row.values.length; i < columns.length; i++) if (columns[i]!.notNull && !columns[i]!.hasDefault) return false;
  return row.values.every((v, i) => (i === shape.rowidAlias ? v === null : v === null ? !columns[i]!.notNull : holds(columns[i]!.affinity, v)));
}

function holds(affinity: Affinity, v: Exclude<Value, null>): boolean {
  switch (affinity) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'text':
      return typeof v === 'string';
    case 'real':
      return typeof v === 'number';
    case 'numeric':
      return typeof v !== 'object';
    case 'blob':
      return true;
  }
}

/** Inserts the rows of one page, keeping any row already copied; returns how many were new. */
async function insertRows(to: Db, shape: Shape, rows: readonly LooseRow[]): Promise<number> {
  const target = new Set((await to.all<{ name: string }>(`PRAGMA table_info(${quote(shape.table)})`)).map((c) => c.name));
  let added = 0;
  // rows written before a column was added hold fewer values: one statement per length
  for (const width of new Set(rows.map((r) => r.values.length))) {
    const kept = shape.columns.slice(0, width).map((c, i) => ({ name: c.name, i })).filter((c) => target.has(c.name));
    const names = [...(shape.rowidAlias < 0 ? ['rowid'] : []), ...kept.map((c) => quote(c.name))];
    const params = rows
      .filter((r) => r.values.length === width)
      .map((r) => [...(shape.rowidAlias < 0 ? [r.rowid] : []), ...kept.map((c) => (c.i === shape.rowidAlias ? r.rowid : r.values[c.i]!))] as Params);
    const inserted = await to.insertRows<unknown>(`INSERT OR IGNORE INTO ${quote(shape.table)}(${names.join(', ')})`, params, 'RETURNING 1');
    added += inserted.length;
  }
  return added;
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
