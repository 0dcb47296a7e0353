import { randomBytes } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import type { AgentKind } from '../model';
import type { Db } from './db';

/**
 * What the store held after its last index run, kept beside it (`<store>.ledger.json`): per source, when it
 * was last written and how many exchanges it held. It lives outside the SQLite file and its write-ahead log
 * on purpose: a lost `-wal` (deleted while a reader held an old snapshot, so its commits never reached the
 * main file) leaves a store that is whole in itself and passes every integrity check, only older. Against
 * the ledger it shows: a source the store holds as written earlier than recorded, or not at all.
 */

interface LedgerEntry {
  readonly path: string;
  readonly agent: AgentKind;
  /** `sources.indexed_at` (ms) of the source's last write; a later write only ever raises it. */
  readonly indexedAt: number;
  readonly exchanges: number;
}

/** A source whose last recorded writes the store no longer holds. */
export interface LostSource {
  readonly path: string;
  readonly agent: AgentKind;
  /** Exchanges recorded in the ledger and missing from the store now. */
  readonly exchanges: number;
  /** Whether its transcript still exists (then the next index run reads it again). */
  readonly transcriptExists: boolean;
}

export function ledgerFile(storeFile: string): string {
  return `${storeFile}.ledger.json`;
}

/** The current per-source counts, read in one snapshot. */
async function currentEntries(db: Db): Promise<LedgerEntry[]> {
  return db.all<LedgerEntry>(
    `SELECT s.path, s.agent, coalesce(s.indexed_at, 0) AS indexedAt, count(e.n) AS exchanges
     FROM sources s LEFT JOIN exchanges e ON e.source_id = s.id GROUP BY s.id ORDER BY s.path`,
  );
}

/**
 * Records what the store holds now (after a run's last commit). Written under a temporary name and renamed,
 * so a reader never sees half a ledger. Two processes writing it race harmlessly: each writes committed
 * values, which the store never goes below unless it lost writes.
 */
export async function writeLedger(db: Db): Promise<void> {
  const file = ledgerFile(db.file);
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const out = await open(tmp, 'w');
    try {
      // the text JSON.stringify({ version: 1, sources }) makes, a page of sources at a time (see LEDGER_PAGE)
      await db.snapshot(async () => {
        await out.write('{"version":1,"sources":[');
        for (let after = '', first = true; ; first = false) {
          const page = await ledgerPage(db, after);
          if (page.length > 0) await out.write(`${first ? '' : ','}${page.map((e) => JSON.stringify(e)).join(',')}`);
          if (page.length < LEDGER_PAGE) break;
          after = page[page.length - 1]!.path;
        }
        await out.write(']}');
      });
    } finally {
      await out.close();
    }
    await rename(tmp, file);
  } catch {
    // the ledger only detects losses: a store without one (read-only folder, full disk) works as before
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Sources a statement of `writeLedger` reads: the driver makes a statement's rows in one JavaScript task, and the
 * 12,096 sources of a 1 GB history with their 2.4 MB of JSON held the extension host's thread ~35 ms (a CPU profile) after
 * each whole run that wrote.
 */
const LEDGER_PAGE = 2_000;

/**
 * The entries of `currentEntries` after the path `after`, LEDGER_PAGE of them: the sources in the order of their paths'
 * index, each one's exchanges counted in `exchanges_source` (the join and GROUP BY of `currentEntries`, limited, read and
 * sorted every source again for each page: 23-38 ms of SQLite's CPU a page at 1 GB, against 13-16 ms this way).
 */
function ledgerPage(db: Db, after: string): Promise<LedgerEntry[]> {
  return db.all<LedgerEntry>(
    `SELECT s.path, s.agent, coalesce(s.indexed_at, 0) AS indexedAt, (SELECT count(*) FROM exchanges e WHERE e.source_id = s.id) AS exchanges
     FROM sources s WHERE s.path > ? ORDER BY s.path LIMIT ?`,
    [after, LEDGER_PAGE],
  );
}

/** The sources whose recorded writes the store no longer holds; empty without a ledger. */
export async function lostSources(db: Db): Promise<LostSource[]> {
  const recorded = await readLedger(ledgerFile(db.file));
  if (recorded.length === 0) return [];
  const now = new Map((await db.snapshot(() => currentEntries(db))).map((e) => [e.path, e]));
  const lost: LostSource[] = [];
  for (const r of recorded) {
    const held = now.get(r.path);
    if (held && held.indexedAt >= r.indexedAt) continue;
    const transcriptExists = await stat(r.path).then((s) => s.isFile(), () => false);
    lost.push({ path: r.path, agent: r.agent, exchanges: Math.max(0, r.exchanges - (held?.exchanges ?? 0)), transcriptExists });
  }
  return lost;
}

/** How many exchanges the store held after its last index run, by its ledger; undefined without one. */
export async function recordedExchanges(storeFile: string): Promise<number | undefined> {
  const recorded = await readLedger(ledgerFile(storeFile));
  return recorded.length === 0 ? undefined : recorded.reduce((n, e) => n + e.exchanges, 0);
}

async function readLedger(file: string): Promise<LedgerEntry[]> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { sources?: unknown };
    if (!Array.isArray(parsed.sources)) return [];
    return parsed.sources.filter(
      (e): e is LedgerEntry =>
        typeof e === 'object' && e !== null && typeof (e as LedgerEntry).path === 'string' && typeof (e as LedgerEntry).agent === 'string' &&
        typeof (e as LedgerEntry).indexedAt === 'number' && typeof (e as LedgerEntry).exchanges === 'number',
    );
  } catch {
    return []; // no ledger yet, or one cut short: nothing to compare with
  }
}

/** One sentence for `check` and the host: what was lost, what is read again, what is gone for good. */
export function describeLost(lost: readonly LostSource[]): string | undefined {
  if (lost.length === 0) return undefined;
  const sum = (ls: readonly LostSource[]): number => ls.reduce((n, l) => n + l.exchanges, 0);
  const back = lost.filter((l) => l.transcriptExists);
  const gone = lost.filter((l) => !l.transcriptExists);
  const parts = [
    `the store holds less than it recorded after its last index run (its write-ahead log "-wal" was lost, or an older copy was restored): ` +
      `${sum(lost)} exchanges of ${lost.length} transcripts are missing`,
  ];
  if (back.length) parts.push(`${back.length} transcripts still exist and are read again (${sum(back)} exchanges)`);
  if (gone.length) parts.push(`${gone.length} transcripts no longer exist: their ${sum(gone)} exchanges are lost (${gone.slice(0, 3).map((l) => l.path).join(', ')}${gone.length > 3 ? ', …' : ''})`);
  return parts.join('; ');
}
