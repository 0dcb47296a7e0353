import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Db } from '../../src/core/store/db';

/**
 * Builds an OpenCode SQLite database (`opencode.db`, tables as OpenCode's migrations create them) from a
 * JSON-file storage tree, the way OpenCode's own JSON-to-SQLite migration does: ids from the file names,
 * `data` the object without its ids. In WAL mode, as OpenCode opens it. Returns the open connection: the
 * caller plays OpenCode (writes while the adapter reads) and closes it.
 */
export async function buildOpenCodeDb(storage: string, file: string): Promise<Db> {
  const db = await Db.open(file);
  await db.exec('PRAGMA journal_mode = WAL');
  await db.exec(`
    CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
      title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX message_session_idx ON message (session_id);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX part_message_idx ON part (message_id);
    CREATE INDEX part_session_idx ON part (session_id);
  `);
  const json = (f: string): Record<string, unknown> => JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
  const names = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  const time = (o: Record<string, unknown>): { created: number; updated: number } => {
    const t = (o['time'] ?? {}) as { created?: number; updated?: number };
    return { created: t.created ?? 0, updated: t.updated ?? t.created ?? 0 };
  };
  for (const projectId of readdirSync(path.join(storage, 'session'))) {
    for (const name of names(path.join(storage, 'session', projectId))) {
      const s = json(path.join(storage, 'session', projectId, name));
      const sessionId = path.basename(name, '.json');
      const t = time(s);
      await db.run('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        sessionId, projectId, (s['parentID'] as string) ?? null, String(s['slug'] ?? ''), String(s['directory'] ?? ''),
        String(s['title'] ?? ''), String(s['version'] ?? ''), t.created, t.updated,
      ]);
      for (const m of names(path.join(storage, 'message', sessionId))) {
        const { id: _id, sessionID: _s, ...data } = json(path.join(storage, 'message', sessionId, m));
        const messageId = path.basename(m, '.json');
        const mt = time(data);
        await db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?)', [messageId, sessionId, mt.created, mt.updated, JSON.stringify(data)]);
        for (const p of names(path.join(storage, 'part', messageId))) {
          const { id: _pid, sessionID: _ps, messageID: _pm, ...partData } = json(path.join(storage, 'part', messageId, p));
          await db.run('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)', [path.basename(p, '.json'), messageId, sessionId, mt.created, mt.updated, JSON.stringify(partData)]);
        }
      }
    }
  }
  return db;
}
