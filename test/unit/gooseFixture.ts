import { Db } from '../../src/core/store/db';

/**
 * Goose's `sessions.db` as Goose 1.x creates it (block/goose `session_manager.rs` create + migrations 1-13: `name`,
 * `user_set_name`, `session_type`, `provider_name`, `model_config_json`, `metadata_json`, `message_id`), in WAL
 * mode as Goose opens it; `older` is the first schema (Goose 1.10: no `name`, `session_type`, `model_config_json`,
 * `metadata_json`). Returns the open connection: the caller plays Goose and closes it.
 */
export async function buildGooseDb(file: string, older = false): Promise<Db> {
  const db = await Db.open(file);
  await db.exec('PRAGMA journal_mode = WAL');
  await db.exec(`
    CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY, ${older ? '' : "name TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user',"}
      description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
      created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
      extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
      accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
      schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT
      ${older ? '' : ', provider_name TEXT, model_config_json TEXT, project_id TEXT'}
    );
    CREATE TABLE messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
      content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER
      ${older ? '' : ', metadata_json TEXT, message_id TEXT'}
    );
    CREATE INDEX idx_messages_session ON messages(session_id);
  `);
  return db;
}

export interface GooseSession {
  readonly id: string;
  readonly workingDir: string;
  readonly name?: string;
  readonly description?: string;
  readonly type?: string;
  readonly createdAt: string;
  readonly model?: string;
}

/** One message as Goose serialises it: `{role, created, content[], metadata}`. */
export interface GooseMessage {
  readonly role: string;
  readonly created: number;
  readonly content: unknown[] | string;
  readonly metadata?: { userVisible: boolean; agentVisible: boolean };
}

export async function insertGooseSession(db: Db, s: GooseSession, older = false): Promise<void> {
  if (older) {
    await db.run('INSERT INTO sessions (id, description, working_dir, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [s.id, s.description ?? '', s.workingDir, s.createdAt, s.createdAt]);
    return;
  }
  await db.run(
    'INSERT INTO sessions (id, name, description, session_type, working_dir, created_at, updated_at, model_config_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [s.id, s.name ?? '', s.description ?? '', s.type ?? 'user', s.workingDir, s.createdAt, s.createdAt, s.model ? JSON.stringify({ model_name: s.model, context_limit: 400000 }) : null],
  );
}

/** Adds a message the way Goose's add_message does: the row, then the session's `updated_at`. */
export async function addGooseMessage(db: Db, sessionId: string, m: GooseMessage, older = false): Promise<void> {
  const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  if (older) {
    await db.run('INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)', [sessionId, m.role, content, m.created]);
  } else {
    await db.run('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)', [
      sessionId, m.role, content, m.created, JSON.stringify(m.metadata ?? { userVisible: true, agentVisible: true }),
    ]);
  }
  await db.run("UPDATE sessions SET updated_at = datetime('now') WHERE id = ?", [sessionId]);
}

/** Goose's content blocks. */
export const text = (t: string): unknown => ({ type: 'text', text: t });
export const toolRequest = (id: string, name: string, args: Record<string, unknown>): unknown => ({ type: 'toolRequest', id, toolCall: { status: 'success', value: { name, arguments: args } } });
export const toolResponse = (id: string, content: unknown[], isError = false): unknown => ({
  type: 'toolResponse', id, toolResult: { status: 'success', value: { content, isError } },
});
