import { leadingNames, normaliseKey } from '../roomKey';
import { TimeSlice } from '../timeSlice';
import type { Db } from './db';
import { pagesOf, ROOM_PAGE, roomPages } from './roomPages';

/**
 * Room families (issue 39): a concept room named by a phrase or identifier led by the name of a one-word concept
 * room of the same project is shown as part of that room — `GeminiClient`, `GEMINI_API_KEYS` in the room of
 * "Gemini"; "markdown formatting", "markdown linting" in the room of "Markdown"; "docker compose" in "Docker";
 * "GitHub" (keyed `git_hub`: camelCase splits) in "Github". Within one exchange the offline distiller already files
 * a name's phrases under the name (distill/offlineRooms.ts nameRooms); across exchanges only the store knows which
 * names are rooms of a project. Only a phrase the name leads joins it: there the name says what the phrase is
 * about, while a phrase it ends names a kind of thing ("Database schema", "JSON Schema", "tool schemas" are three
 * schemas, not the room of "Schema").
 * The family is kept on the member's row (`rooms.family`, the head's id): the member keeps its id and its links,
 * the tree and the room chips show the head, and the head's counts cover its members' exchanges (roomStats.ts); a
 * head is named by the name its family used most ("GitHub", not the "Github SSH" of its own exchanges).
 * A family depends on the keys and labels of a project's rooms, not on the order they were indexed in.
 */

interface Candidate {
  readonly id: string;
  readonly key: string;
  readonly label: string;
  readonly project: string | null;
  readonly family: string | null;
}

/** A concept room that changed since the last refresh: `fresh` when it is new (never counted). */
export interface ChangedRoom {
  readonly id: string;
  readonly key: string;
  readonly project: string | null;
  readonly fresh: boolean;
}

const COLUMNS = 'id, key, label, project, family';

/**
 * The rooms of wanted (project, key) pairs, a JSON array: the pairs outer (CROSS JOIN), each one lookup in
 * rooms_scope. Left to itself SQLite scanned every concept room and parsed the whole array again for each
 * (quadratic: a first index of a 1 GB history, ~58K rooms, spent minutes of SQLite's thread here).
 */
export const HEADS = `SELECT r.id, r.key, r.project FROM json_each(?) j CROSS JOIN rooms r ON r.type = 'concept'
  AND r.project IS json_extract(j.value, '$[0]') AND r.key = json_extract(j.value, '$[1]')`;
/** New families, a JSON array of [room id, head id or null]: each looked up by the room's id (not a scan of the array per room). */
export const SET_FAMILIES = `UPDATE rooms SET family = j.value ->> 1 FROM json_each(?) j WHERE rooms.id = j.value ->> 0`;
/** Keys are stems joined by `_` in sorted order (core/roomKey.ts): a one-word key has none. */
const oneWord = (key: string): boolean => !key.includes('_');
const scoped = (project: string | null, key: string): string => JSON.stringify([project, key]);

/**
 * Assigns the family of the concept rooms that changed (a new or relabelled room), and, for a new one-word room,
 * of the project's rooms it may lead; with `all`, of every concept room (a repair, a store from before
 * families). Marks the old and new heads of the rooms whose family changed dirty, for roomStats.ts to recount.
 * Returns how many rooms changed family.
 */
export async function assignFamilies(db: Db, changed: readonly ChangedRoom[] | 'all', slice = new TimeSlice()): Promise<number> {
  const candidates = changed === 'all' ? await everyPhrase(db) : await phrasesAffected(db, changed);
  const changes: Array<[id: string, family: string | null]> = [];
  const dirty = new Set<string>();
  // a page of rooms at a time, giving the event loop back between rooms and between pages: a first index's last
  // refresh reads every new room (its leading names were one task of 214 ms on a 1 GB history, the heads' lookup
  // and the families after them two more of ~100 ms)
  for (const page of pagesOf(candidates)) {
    const names: Array<readonly string[]> = [];
    for (const room of page) {
      await slice.yieldIfDue();
      names.push(leadingNames(room.label));
    }
    const heads = await headsOf(db, page, names);
    for (const [i, room] of page.entries()) {
      const lead = names[i]!.find((name) => name !== room.key && heads.has(scoped(room.project, name)));
      const family = lead !== undefined ? heads.get(scoped(room.project, lead))! : null;
      if (family === room.family) continue;
      changes.push([room.id, family]);
      for (const id of [family, room.family]) if (id !== null) dirty.add(id);
    }
  }
  for (const page of pagesOf(changes)) await db.run(SET_FAMILIES, [JSON.stringify(page)]);
  for (const page of pagesOf([...dirty])) await db.run('UPDATE rooms SET dirty = 1 WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(page)]);
  return changes.length;
}

async function everyPhrase(db: Db): Promise<Candidate[]> {
  const out: Candidate[] = [];
  // `+type`: pages go by rowid; by rooms_scope each page would read and sort every concept room again
  for await (const page of roomPages<Candidate>(db, COLUMNS, "+type = 'concept' AND instr(key, '_') > 0")) out.push(...page);
  return out;
}

/**
 * The changed phrase rooms, and the phrase rooms of each new one-word room's project whose key holds its word;
 * `changed` a page at a time, each in a task of its own.
 */
async function phrasesAffected(db: Db, changed: readonly ChangedRoom[]): Promise<Candidate[]> {
  const ids = new Set<string>();
  const heads: ChangedRoom[] = [];
  const out: Candidate[] = [];
  for (const page of pagesOf(changed)) {
    const phrases: string[] = [];
    for (const room of page) {
      if (!oneWord(room.key)) (ids.add(room.id), phrases.push(room.id));
      else if (room.fresh) heads.push(room);
    }
    if (phrases.length === 0) continue;
    out.push(...(await db.all<Candidate>(`SELECT ${COLUMNS} FROM rooms WHERE id IN (SELECT value FROM json_each(?))`, [JSON.stringify(phrases)])));
  }
  for (const head of heads) {
    const rows = await db.all<Candidate>(
      `SELECT ${COLUMNS} FROM rooms WHERE type = 'concept' AND project IS ? AND instr('_' || key || '_', ?) > 0 AND instr(key, '_') > 0`,
      [head.project, `_${head.key}_`],
    );
    for (const r of rows) if (!ids.has(r.id)) (ids.add(r.id), out.push(r));
  }
  return out;
}

/** The one-word concept rooms that could lead the candidates (`names`: each one's leading names), by project and key. */
async function headsOf(db: Db, candidates: readonly Candidate[], names: ReadonlyArray<readonly string[]>): Promise<Map<string, string>> {
  const wanted = [...new Set(candidates.flatMap((c, i) => names[i]!.map((name) => scoped(c.project, name))))];
  if (wanted.length === 0) return new Map();
  const rows = await db.all<{ id: string; key: string; project: string | null }>(HEADS, [`[${wanted.join(',')}]`]);
  return new Map(rows.map((r) => [scoped(r.project, r.key), r.id]));
}

/**
 * Names each of these heads that has members by the label its family used most for the name itself: one written
 * word keyed as the head or joining into its key ("GitHub" for `github`, "MarkdownV2" for `markdown`), not a
 * member's own name (`GeminiClient`) or a phrase. A head whose family never wrote the name alone keeps its label.
 */
export async function nameHeads(db: Db, ids: readonly string[]): Promise<void> {
  const heads: Array<{ id: string; key: string; label: string }> = [];
  for (const page of pagesOf(ids)) {
    heads.push(...(await db.all<{ id: string; key: string; label: string }>(
      `SELECT r.id, r.key, r.label FROM rooms r WHERE r.id IN (SELECT value FROM json_each(?)) AND EXISTS (SELECT 1 FROM rooms m WHERE m.family = r.id)`,
      [JSON.stringify(page)],
    )));
  }
  for (const head of heads) {
    const name = await familyName(db, head);
    if (name !== undefined && name !== head.label) await db.run('UPDATE rooms SET label = ? WHERE id = ?', [name, head.id]);
  }
}

/** The name of a head its family used most (see nameHeads), read a page of labels at a time: a family can have thousands. */
async function familyName(db: Db, head: { id: string; key: string }): Promise<string | undefined> {
  for (let offset = 0; ; offset += ROOM_PAGE) {
    const labels = await db.all<{ label: string; c: number }>(
      `SELECT x.label, count(*) AS c FROM exchange_rooms x WHERE x.label IS NOT NULL
         AND x.room_id IN (SELECT ? UNION ALL SELECT m.id FROM rooms m WHERE m.family = ?)
       GROUP BY x.label ORDER BY c DESC, x.label LIMIT ${ROOM_PAGE} OFFSET ?`,
      [head.id, head.id, offset],
    );
    const name = labels.find((l) => !/\s/u.test(l.label) && (normaliseKey('concept', l.label) === head.key || leadingNames(l.label)[0] === head.key));
    if (name || labels.length < ROOM_PAGE) return name?.label;
  }
}
