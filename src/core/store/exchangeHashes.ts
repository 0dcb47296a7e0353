import { exchangeHash } from '../exchangeHash';
import type { AgentKind, DatePrecision, FileTouch } from '../model';
import type { Db } from './db';
import { type FileTouchRow, toFileTouch } from './rows';

/**
 * Schema 31 (issue 41, incremental runs): each exchange keeps its content hash (exchangeHash.ts), so a source read
 * again whole (its time changed with its bytes the same: a `touch`, a sync tool, a restore, a checkout; a whole JSON
 * or markdown document rewritten at each turn of a live session) keeps the exchanges it still holds as they were,
 * with their distilled objects, vectors, rooms and token counts, and writes only the new, changed and vanished ones
 * (store.ts replaceRows). Before, every exchange of such a source was deleted and written again, then distilled,
 * counted and embedded again.
 *
 * The migration hashes every stored exchange from its row, its conversation's and its files touched, a page at a
 * time (the stored files are what a parse's give once stored, so the hash is a fresh parse's when the row is). A row
 * whose store drifted from its source gets a hash no parse gives: it is written again at its source's next whole
 * read, as every row was before.
 *
 * A whole JSON or markdown document also keeps the hash of all its bytes (`sources.file_hash`, sourceRead.ts): read
 * again at the same size and bytes, it is not even parsed. Stored from a source's next whole read on (none before).
 */
export const EXCHANGE_HASHES_SQL = `
  ALTER TABLE exchanges ADD COLUMN content_hash TEXT;
  ALTER TABLE sources ADD COLUMN file_hash TEXT;
`;

const PAGE = 100;

export async function hashStoredExchanges(db: Db, onProgress?: (done: number, total: number) => void): Promise<void> {
  const total = (await db.get<{ c: number }>('SELECT count(*) AS c FROM exchanges'))?.c ?? 0;
  let done = 0;
  let after = 0;
  for (;;) {
    const rows = await db.all<{
      n: number; conversation_id: string; agent: AgentKind; project: string | null; part: number; ply_start: number; ply_end: number;
      started_at: string | null; date_precision: DatePrecision | null; ended_at: string | null; prompt: string; verbatim: string;
    }>(
      `SELECT e.n, e.conversation_id, c.agent, c.project, e.part, e.ply_start, e.ply_end, e.started_at, e.date_precision, e.ended_at,
         e.prompt, e.verbatim
       FROM exchanges e JOIN conversations c ON c.id = e.conversation_id WHERE e.n > ? ORDER BY e.n LIMIT ?`,
      [after, PAGE],
    );
    if (rows.length === 0) break;
    const first = rows[0]!.n;
    const last = rows[rows.length - 1]!.n;
    const files = new Map<number, FileTouch[]>();
    for (const t of await db.all<FileTouchRow & { n: number }>(
      'SELECT exchange_n AS n, path, how, lines FROM files_touched WHERE exchange_n BETWEEN ? AND ? ORDER BY exchange_n, path',
      [first, last],
    )) {
      const list = files.get(t.n) ?? [];
      list.push(toFileTouch(t));
      files.set(t.n, list);
    }
    const hashes = rows.map((r) => [
      r.n,
      exchangeHash({
        conversationKey: r.conversation_id,
        agent: r.agent,
        project: r.project ?? undefined,
        part: r.part,
        plyStart: r.ply_start,
        plyEnd: r.ply_end,
        startedAt: r.started_at ?? undefined,
        datePrecision: r.date_precision ?? undefined,
        endedAt: r.ended_at ?? undefined,
        prompt: r.prompt,
        verbatim: r.verbatim,
        filesTouched: files.get(r.n) ?? [],
      }),
    ]);
    await db.run('UPDATE exchanges SET content_hash = j.value ->> 1 FROM json_each(?) j WHERE exchanges.n = j.value ->> 0', [JSON.stringify(hashes)]);
    done += rows.length;
    after = last;
    onProgress?.(done, total);
  }
}
