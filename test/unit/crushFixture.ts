import { Db } from '../../src/core/store/db';

/**
 * Crush's `crush.db` with the tables its migrations leave (charmbracelet/crush `internal/db/migrations/`: the initial
 * schema with its triggers, then `summary_message_id`, `provider`, `is_summary_message`, `todos`), in WAL mode as
 * Crush opens it. Returns the open connection: the caller plays Crush and closes it.
 */
export async function buildCrushDb(file: string): Promise<Db> {
  const db = await Db.open(file);
  await db.exec('PRAGMA journal_mode = WAL');
  await db.exec(`
    CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
      prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
      updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
    CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL DEFAULT '[]', model TEXT,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL,
      FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE);
    CREATE INDEX idx_messages_session_id ON messages (session_id);
    CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages BEGIN
      UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
    CREATE TRIGGER update_messages_updated_at AFTER UPDATE ON messages BEGIN
      UPDATE messages SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
  `);
  return db;
}

/** A part as Crush stores it: `{type, data}`. */
export const part = (type: string, data: Record<string, unknown>): unknown => ({ type, data });

export interface CrushMessage {
  readonly id: string;
  readonly role: string;
  /** The parts, or the column's raw text (a damaged row). */
  readonly parts: unknown[] | string;
  readonly createdAt: number;
  readonly finishedAt?: number;
  readonly model?: string;
  readonly summary?: boolean;
}

export async function insertCrushSession(db: Db, id: string, title: string, createdAt: number, parent?: string): Promise<void> {
  await db.run('INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES (?, ?, ?, ?, ?)', [id, parent ?? null, title, createdAt, createdAt]);
}

export async function insertCrushMessage(db: Db, sessionId: string, m: CrushMessage): Promise<void> {
  await db.run(
    'INSERT INTO messages (id, session_id, role, parts, model, provider, is_summary_message, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [m.id, sessionId, m.role, typeof m.parts === 'string' ? m.parts : JSON.stringify(m.parts), m.model ?? null, m.model ? 'anthropic' : null, m.summary ? 1 : 0, m.createdAt, m.createdAt, m.finishedAt ?? null],
  );
}
