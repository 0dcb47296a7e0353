/**
 * The distilled layer (paper 3.2): every exchange becomes a small structured object that routes search,
 * while the user always reads the verbatim exchange. `files_touched` is not here: it is tool/regex-derived
 * (files.ts), never produced by a distiller.
 */

export type RoomType = 'file' | 'concept' | 'workflow';

export const ROOM_TYPES: readonly RoomType[] = ['file', 'concept', 'workflow'];

/** A thematic room an exchange belongs to, as a distiller proposes it. */
export interface RoomAssignment {
  readonly type: RoomType;
  /**
   * Identity within a type. Distillers propose it as written; rooms.ts normalises it (case, separators,
   * stems) and merges near-duplicates before it is stored.
   */
  readonly key: string;
  /** Human label shown in the rooms tree. */
  readonly label: string;
  /** 0–1: how central the room is to the exchange. */
  readonly relevance: number;
}

export interface DistilledExchange {
  /** 1–2 sentences: what was done or decided, in the participants' own terms. */
  readonly exchangeCore: string;
  /** One exact detail copied from the exchange: a number, error message, parameter name or path. */
  readonly specificContext: string;
  /** 1–3 rooms. */
  readonly rooms: readonly RoomAssignment[];
}

/** Distilled text as indexed and counted: core, newline, context (~38 tokens in the paper). */
export function distilledText(d: Pick<DistilledExchange, 'exchangeCore' | 'specificContext'>): string {
  return d.specificContext ? `${d.exchangeCore}\n${d.specificContext}` : d.exchangeCore;
}
