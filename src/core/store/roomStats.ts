import type { Db } from './db';
import { assignFamilies, type ChangedRoom, nameHeads } from './roomFamilies';
import { ROOM_PAGE, roomPages } from './roomPages';

/**
 * The rooms read model's numbers: how many exchanges and conversations each room holds, when it was last
 * active, and its label, kept on the room row so the tree, the room chips and `rooms` read them without
 * counting. Kept incrementally: a trigger marks a room dirty whenever one of its exchange links is added
 * or removed (distillation, re-indexing, deletion), and `refreshRooms` recounts only the dirty ones at the
 * end of each distill stage. A family's head (roomFamilies.ts) counts its members' exchanges with its own. Every
 * number is a function of the stored rows alone, so a store indexed in any order, in one run or in many, shows
 * the same rooms.
 */

/** A room appears in the tree (and as a chip) from this many exchanges, from this many conversations on. */
export const MIN_ROOM_EXCHANGES = 3;
export const MIN_ROOM_CONVERSATIONS = 2;

/** SQL condition on a `rooms` row aliased `r`: the room is big enough to be shown, and no other room's member. */
export const ROOM_SHOWN = `(r.family IS NULL AND r.exchanges >= ${MIN_ROOM_EXCHANGES} AND r.conversations >= ${MIN_ROOM_CONVERSATIONS})`;

/** The exchange links of the room `rooms.id` and of its family's members (a subquery's condition on `x`). */
const LINKS_OF_FAMILY = 'x.room_id IN (SELECT rooms.id UNION ALL SELECT m.id FROM rooms m WHERE m.family = rooms.id)';

/**
 * Recounts the dirty rooms (and the heads of dirty members) and relabels them with the label their own exchanges
 * used most (ties: the first in sort order), assigns the families of the concept rooms that are new or were
 * recounted (roomFamilies.ts), recounts the heads that gained or lost a member and names them, then removes rooms
 * no exchange belongs to any more. Returns how many rooms were recounted (a room recounted twice counts twice).
 */
export async function refreshRooms(db: Db): Promise<number> {
  await db.run(`UPDATE rooms SET dirty = 1 WHERE dirty = 0 AND id IN (SELECT family FROM rooms WHERE dirty = 1 AND family IS NOT NULL)`);
  const changed: ChangedRoom[] = [];
  for await (const page of roomPages<{ id: string; key: string; project: string | null; fresh: number }>(
    db,
    'id, key, project, exchanges = 0 AS fresh',
    "dirty = 1 AND type = 'concept'",
  )) {
    for (const r of page) changed.push({ id: r.id, key: r.key, project: r.project, fresh: r.fresh === 1 });
  }
  const recounted = await recount(db);
  if (await assignFamilies(db, changed)) recounted.push(...(await recount(db)));
  await nameHeads(db, recounted);
  await db.run('DELETE FROM rooms WHERE exchanges = 0 AND dirty = 0');
  return recounted.length;
}

/** Recounts and relabels the dirty rooms, a page at a time (roomPages.ts); returns their ids. */
async function recount(db: Db): Promise<string[]> {
  const done: string[] = [];
  for (;;) {
    const page = await db.all<{ id: string }>(
      `UPDATE rooms SET
         exchanges = (SELECT count(DISTINCT x.exchange_n) FROM exchange_rooms x WHERE ${LINKS_OF_FAMILY}),
         conversations = (SELECT count(DISTINCT e.conversation_id) FROM exchange_rooms x JOIN exchanges e ON e.n = x.exchange_n
                          WHERE ${LINKS_OF_FAMILY}),
         last_at = (SELECT max(e.started_at) FROM exchange_rooms x JOIN exchanges e ON e.n = x.exchange_n WHERE ${LINKS_OF_FAMILY}),
         label = coalesce((SELECT x.label FROM exchange_rooms x WHERE x.room_id = rooms.id AND x.label IS NOT NULL
                           GROUP BY x.label ORDER BY count(*) DESC, x.label LIMIT 1), label),
         dirty = 0
       WHERE rowid IN (SELECT rowid FROM rooms WHERE dirty = 1 LIMIT ${ROOM_PAGE}) RETURNING id`,
    );
    for (const room of page) done.push(room.id);
    if (page.length < ROOM_PAGE) return done;
  }
}

/** Marks every room dirty and assigns every family again (after a repair rebuilt what the counts are taken from). */
export async function markAllRoomsDirty(db: Db): Promise<void> {
  await db.run('UPDATE rooms SET dirty = 1');
  await assignFamilies(db, 'all');
}
