import type { SearchFilters } from '../model';
import type { Db, Params } from './db';
import { projectWithin } from './scope';

/**
 * Search filters as one SQL condition over `e` (exchanges) and `c` (conversations), with bound parameters: made
 * once a search (`exchangeFilter`), then handed back with every read that filters. Lexical signals apply it inside
 * their statement; vector signals (vec0 cannot join) to their candidates afterwards.
 */
export interface ExchangeFilter {
  readonly sql: string;
  readonly params: Params;
}

/** `filters` as one condition; undefined when they limit nothing. */
export function exchangeFilter(filters: SearchFilters | undefined): ExchangeFilter | undefined {
  if (!filters) return undefined;
  const parts: string[] = [];
  const params: Array<string | number> = [];
  if (filters.agents && filters.agents.length > 0) {
    parts.push(`c.agent IN (${filters.agents.map(() => '?').join(', ')})`);
    params.push(...filters.agents);
  }
  // ISO-8601 timestamps compare as text; an exchange without a time never passes a time filter.
  if (filters.since) {
    parts.push('e.started_at >= ?');
    params.push(filters.since);
  }
  if (filters.until) {
    parts.push('e.started_at <= ?');
    params.push(filters.until);
  }
  if (filters.file) {
    parts.push('EXISTS (SELECT 1 FROM files_touched f WHERE f.exchange_n = e.n AND f.path = ?)');
    params.push(filters.file);
  }
  if (filters.room) {
    // the room's own links and its family members' (store/roomFamilies.ts)
    parts.push('EXISTS (SELECT 1 FROM exchange_rooms r WHERE r.exchange_n = e.n AND r.room_id IN (SELECT ? UNION ALL SELECT m.id FROM rooms m WHERE m.family = ?))');
    params.push(filters.room, filters.room);
  }
  if (filters.conversation) {
    parts.push('e.conversation_id = ?');
    params.push(filters.conversation);
  }
  if (filters.project) {
    parts.push('c.project = ?');
    params.push(filters.project);
  }
  if (filters.within) {
    const within = projectWithin(filters.within);
    parts.push(within.sql);
    params.push(...within.params);
  }
  return parts.length > 0 ? { sql: parts.join(' AND '), params } : undefined;
}

/** Which of exchanges `ns` pass `filter`. */
export async function passingFilter(db: Db, ns: readonly number[], filter: ExchangeFilter): Promise<Set<number>> {
  const passing = await db.all<{ n: number }>(
    `SELECT e.n FROM exchanges e JOIN conversations c ON c.id = e.conversation_id
     WHERE e.n IN (SELECT value FROM json_each(?)) AND ${filter.sql}`,
    [JSON.stringify(ns), ...filter.params],
  );
  return new Set(passing.map((r) => r.n));
}
