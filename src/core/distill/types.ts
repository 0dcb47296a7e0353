/**
 * The distilled layer (paper 3.2): every exchange becomes a small structured object that routes search,
 * while the user always reads the verbatim exchange. `files_touched` is not here: it is tool/regex-derived
 * (files.ts), never produced by a distiller.
 */

export type { DistilledExchange, RoomAssignment, RoomType } from '../model';
export { ROOM_TYPES } from '../model';
import type { DistilledExchange } from '../model';

/** Distilled text as indexed and counted: core, newline, context (~38 tokens in the paper). */
export function distilledText(d: Pick<DistilledExchange, 'exchangeCore' | 'specificContext'>): string {
  return d.specificContext ? `${d.exchangeCore}\n${d.specificContext}` : d.exchangeCore;
}
