import type { Db } from '../store/db';

/** The first `chars` characters of the verbatim text of exchanges `ns` (second-stage evidence reads no more). */
export function headTexts(db: Db, ns: readonly number[], chars: number): Promise<Array<{ n: number; text: string }>> {
  return db.all<{ n: number; text: string }>(
    `SELECT n, substr(verbatim, 1, ${chars}) AS text FROM exchanges WHERE n IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(ns)],
  );
}
