import type { Params } from '../store/db';
import { projectWithin } from '../store/scope';
import type { SearchFilters } from './types';

/**
 * Search filters as one SQL condition over `e` (exchanges) and `c` (conversations), with bound
 * parameters. Lexical signals apply it inside their query; vector signals (vec0 cannot join) apply it
 * to their candidates afterwards.
 */
export interface SqlFilter {
  readonly sql: string;
  readonly params: Params;
}

export function buildFilter(filters: SearchFilters | undefined): SqlFilter | undefined {
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

