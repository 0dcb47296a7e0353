import type { AgentKind, SkipCounts, SkipReason } from '../model';
import type { Db } from './db';
import { COUNTED_TOKENS, type CompressionStats, compressionStats } from './distilledStore';

/** What the store holds, counted: the Index view's and `agent-recall stats`'s figures. */
export interface StoreStats {
  readonly sources: number;
  readonly conversations: number;
  readonly exchanges: number;
  readonly exchangesByAgent: Partial<Record<AgentKind, number>>;
  readonly skippedLines: SkipCounts;
  readonly droppedExchanges: number;
  readonly droppedPrompts: number;
  readonly verbatimChars: number;
  /** Summed over exchanges whose tokens are counted; `tokensPending` are not counted yet. */
  readonly verbatimTokens: number;
  readonly tokensPending: number;
  readonly sourcesWithErrors: number;
  /** The distilled layer against the verbatim one (paper: corpus totals, cl100k). */
  readonly compression: CompressionStats;
  /** When the earliest and the latest dated exchanges started (ISO); absent while none is dated. */
  readonly dates: { readonly oldest?: string; readonly newest?: string };
}

/** The headline counts, what an indexing run in progress shows: no text is summed (~80 ms at 50,000 exchanges; stats() ~300). */
export type StoreCounts = Pick<StoreStats, 'conversations' | 'exchanges' | 'exchangesByAgent'> & {
  /** Distilled exchanges, as `compression.distilled` counts them. */
  readonly distilled: number;
};

const one = async (db: Db, sql: string): Promise<number> => (await db.get<{ v: number | null }>(sql))?.v ?? 0;

/** The headline counts; the caller reads them as one snapshot. */
export async function readCounts(db: Db): Promise<StoreCounts> {
  const byAgent: Partial<Record<AgentKind, number>> = {};
  for (const r of await db.all<{ agent: AgentKind; c: number }>(
    'SELECT c.agent, count(*) AS c FROM exchanges e JOIN conversations c ON c.id = e.conversation_id GROUP BY c.agent',
  )) {
    byAgent[r.agent] = r.c;
  }
  return {
    // conversations holding an exchange: a copy's file keeps a conversation row whose exchanges are another's
    conversations: await one(db, 'SELECT count(*) AS v FROM conversations c WHERE EXISTS (SELECT 1 FROM exchanges e WHERE e.conversation_id = c.id)'),
    exchanges: await one(db, 'SELECT count(*) AS v FROM exchanges'),
    exchangesByAgent: byAgent,
    distilled: await one(db, `SELECT count(*) AS v FROM distilled d JOIN exchanges e ON e.n = d.exchange_n WHERE ${COUNTED_TOKENS}`),
  };
}

/** Counts over the whole store; the caller reads them as one snapshot. */
export async function readStats(db: Db): Promise<StoreStats> {
  const skipped: SkipCounts = {};
  for (const r of await db.all<{ reason: SkipReason; c: number }>(
    'SELECT reason, count(*) AS c FROM skipped_lines GROUP BY reason',
  )) {
    skipped[r.reason] = r.c;
  }
  return {
    sources: await one(db, 'SELECT count(*) AS v FROM sources'),
    ...(await readCounts(db)),
    skippedLines: skipped,
    droppedExchanges: await one(db, 'SELECT count(*) AS v FROM dropped_exchanges'),
    droppedPrompts: await one(db, 'SELECT sum(prompts) AS v FROM dropped_exchanges'),
    verbatimChars: await one(db, 'SELECT sum(length(verbatim)) AS v FROM exchanges'),
    verbatimTokens: await one(db, 'SELECT sum(verbatim_tokens) AS v FROM exchanges'),
    tokensPending: await one(db, 'SELECT count(*) AS v FROM exchanges WHERE verbatim_tokens IS NULL'),
    sourcesWithErrors: await one(db, 'SELECT count(*) AS v FROM sources WHERE last_error IS NOT NULL'),
    compression: await compressionStats(db),
    dates: await exchangeDates(db),
  };
}

async function exchangeDates(db: Db): Promise<StoreStats['dates']> {
  // two lookups in the started_at index (one min/max query would scan the table)
  const oldest = (await db.get<{ v: string | null }>('SELECT min(started_at) AS v FROM exchanges'))?.v;
  const newest = (await db.get<{ v: string | null }>('SELECT max(started_at) AS v FROM exchanges'))?.v;
  return { ...(oldest ? { oldest } : {}), ...(newest ? { newest } : {}) };
}
