import type { Db, Params } from './db';

/**
 * Which exchanges a room holds, as a subquery of exchange row numbers for `e.n IN (…)`:
 * - a file room: every exchange of its project that touched its file (files_touched), as the File History view
 *   lists them, not only those the distiller filed under the file as their main one; README.md of one project is
 *   not README.md of another;
 * - another room: the exchanges linked to it or to a member of its family (roomFamilies.ts).
 * Undefined for a room the store does not have.
 */
export async function roomMembers(db: Db, roomId: string): Promise<{ sql: string; params: Params } | undefined> {
  const room = await db.get<{ type: string; key: string; project: string | null }>('SELECT type, key, project FROM rooms WHERE id = ?', [roomId]);
  if (!room) return undefined;
  const paths = room.type === 'file' ? await pathsOf(db, roomId, room.key) : [];
  if (paths.length > 0) {
    return {
      sql: `SELECT f.exchange_n FROM files_touched f JOIN exchanges fe ON fe.n = f.exchange_n JOIN conversations fc ON fc.id = fe.conversation_id
            WHERE f.path IN (SELECT value FROM json_each(?)) AND fc.project IS ?`,
      params: [JSON.stringify(paths), room.project],
    };
  }
  return {
    sql: 'SELECT x.exchange_n FROM exchange_rooms x WHERE x.room_id IN (SELECT ? UNION ALL SELECT m.id FROM rooms m WHERE m.family = ?)',
    params: [roomId, roomId],
  };
}

/**
 * The stored spellings of a file room's path, read from its own exchanges' touched files: the room's key is the
 * path lower-cased (distill/rooms.ts), files_touched keeps it as written. None when the key names no touched
 * file (an LLM distiller's free-text path): the room then holds its own links.
 */
async function pathsOf(db: Db, roomId: string, key: string): Promise<string[]> {
  const rows = await db.all<{ path: string }>(
    'SELECT DISTINCT f.path FROM exchange_rooms x JOIN files_touched f ON f.exchange_n = x.exchange_n WHERE x.room_id = ?',
    [roomId],
  );
  return rows.map((r) => r.path).filter((p) => p.normalize('NFKC').toLowerCase() === key);
}
