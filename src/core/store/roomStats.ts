import type { Db } from './db';

/**
 * The rooms read model's numbers: how many exchanges and conversations each room holds, when it was last
 * active, and its label, kept on the room row so the tree, the room chips and `rooms` read them without
 * counting. Kept incrementally: a trigger marks a room dirty whenever one of its exchange links is added
 * or removed (distillation, re-indexing, deletion), and `refreshRooms` recounts only the dirty ones at the
 * end of each distill stage. Every number is a function of the stored rows alone, so a store indexed in any
 * order, in one run or in many, shows the same rooms.
 */

/** A room appears in the tree (and as a chip) from this many exchanges, from this many conversations on. */
export const MIN_ROOM_EXCHANGES = 3;
export const MIN_ROOM_CONVERSATIONS = 2;

/** SQL condition on a `rooms` row aliased `r`: the room is big enough to be shown. */
export const ROOM_SHOWN = `(r.exchanges >= ${MIN_ROOM_EXCHANGES} AND r.conversations >= ${MIN_ROOM_CONVERSATIONS})`;

/**
 * Recounts the dirty rooms and relabels them with the label their exchanges used most (ties: the first in
 * sort order), then removes rooms no exchange belongs to any more. Returns how many rooms were recounted.
 */
export async function refreshRooms(db: Db): Promise<number> {
  const changed = await db.run(
    `UPDATE rooms SET
       exchanges = (SELECT count(*) FROM exchange_rooms x WHERE x.room_id = rooms.id),
       conversations = (SELECT count(DISTINCT e.conversation_id) FROM exchange_rooms x JOIN exchanges e ON e.n = x.exchange_n
                        WHERE x.room_id = rooms.id),
       last_at = (SELECT max(e.started_at) FROM exchange_rooms x JOIN exchanges e ON e.n = x.exchange_n WHERE x.room_id = rooms.id),
       label = coalesce((SELECT x.label FROM exchange_rooms x WHERE x.room_id = rooms.id AND x.label IS NOT NULL
                         GROUP BY x.label ORDER BY count(*) DESC, x.label LIMIT 1), label),
       dirty = 0
     WHERE dirty = 1`,
  );
  await db.run('DELETE FROM rooms WHERE exchanges = 0 AND dirty = 0');
  return changed.changes;
}

/** Marks every room dirty (after a repair rebuilt what the counts are taken from). */
export async function markAllRoomsDirty(db: Db): Promise<void> {
  await db.run('UPDATE rooms SET dirty = 1');
}
