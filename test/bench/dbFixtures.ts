import { Db } from '../../src/core/store/db';

/**
 * Large agent databases for the benchmarks, written the way the agents write them (WAL mode): Cursor's
 * `state.vscdb` shaped like a heavy user's and OpenCode's `opencode.db`, plus one more message each, written
 * through a connection of its own as the agent would while we read.
 */

const WORDS = 'tide chart axis harbour legend spring neap gauge offset zone format label curve margin sort list'.split(' ');
const sentence = (seed: number, n: number): string => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]).join(' ');
export const BENCH_PROJECT = '/home/dev/tidepool';

export function cursorComposerId(c: number): string {
  return `${c.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
}

/** Every 4th assistant bubble a tool call carrying a 20 KB result and 8 KB of other tool data, 10 KB of composer state. */
export async function generateCursorDb(file: string, composers: number, bubbles: number): Promise<void> {
  const db = await Db.open(file);
  await db.exec(`PRAGMA journal_mode = WAL; CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);`);
  for (let c = 0; c < composers; c++) {
    const id = cursorComposerId(c);
    await db.transaction(async () => {
      const headers = [];
      for (let b = 0; b < bubbles; b++) {
        const user = b % 6 === 0;
        const bubbleId = `${id}-${b}`;
        headers.push({ bubbleId, type: user ? 1 : 2 });
        const bubble: Record<string, unknown> = { _v: 3, type: user ? 1 : 2, bubbleId, createdAt: new Date(1.76e12 + c * 1e7 + b * 1e4).toISOString(), text: sentence(c + b, user ? 30 : 80) };
        if (!user && b % 4 === 1) {
          bubble['text'] = '';
          bubble['toolFormerData'] = { tool: 5, name: 'read_file', toolCallId: `call_${b}`, status: 'completed', rawArgs: JSON.stringify({ target_file: `src/m${b}.ts` }), result: 'r'.repeat(20_000), additionalData: { x: 'a'.repeat(8000) } };
        }
        await db.run('INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)', [`bubbleId:${id}:${bubbleId}`, JSON.stringify(bubble)]);
      }
      await db.run('INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)', [
        `composerData:${id}`,
        JSON.stringify({ _v: 10, composerId: id, name: sentence(c, 4), createdAt: 1.76e12 + c * 1e7, lastUpdatedAt: 1.76e12 + c * 1e7, fullConversationHeadersOnly: headers, workspaceIdentifier: { id: 'w', uri: { fsPath: BENCH_PROJECT } }, originalFileStates: { x: 's'.repeat(10_000) } }),
      ]);
    });
  }
  await db.close();
}

/** Cursor adds a bubble: its row, then the composer's header list and `lastUpdatedAt` (INSERT OR REPLACE, as Cursor does). */
export async function addCursorBubble(writer: Db, composerId: string, bubble: { bubbleId: string; type: 1 | 2; text: string }): Promise<void> {
  await writer.transaction(async () => {
    await writer.run('INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)', [`bubbleId:${composerId}:${bubble.bubbleId}`, JSON.stringify({ _v: 3, ...bubble, createdAt: new Date().toISOString() })]);
    const row = await writer.get<{ v: string }>('SELECT CAST(value AS TEXT) AS v FROM cursorDiskKV WHERE key = ?', [`composerData:${composerId}`]);
    const composer = JSON.parse(row!.v) as { fullConversationHeadersOnly: unknown[]; lastUpdatedAt: number };
    composer.fullConversationHeadersOnly.push({ bubbleId: bubble.bubbleId, type: bubble.type });
    composer.lastUpdatedAt = Date.now();
    await writer.run('INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)', [`composerData:${composerId}`, JSON.stringify(composer)]);
  });
}

export function openCodeSessionId(s: number): string {
  return `ses_${s.toString(16).padStart(8, '0')}bench`;
}

/** OpenCode's tables as it creates them (with its indexes), `sessions` sessions of `turns` prompt/reply turns (every 3rd reply reads a file). */
export async function generateOpenCodeDb(file: string, sessions: number, turns: number): Promise<void> {
  const db = await Db.open(file);
  await db.exec(`PRAGMA journal_mode = WAL;
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
      title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX message_session_idx ON message(session_id); CREATE INDEX part_message_idx ON part(message_id); CREATE INDEX part_session_idx ON part(session_id);`);
  for (let s = 0; s < sessions; s++) {
    const id = openCodeSessionId(s);
    const t = 1.76e12 + s * 1e7;
    await db.transaction(async () => {
      await db.run('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)', [id, 'p1', id, BENCH_PROJECT, sentence(s, 4), '1.0.0', t, t + turns * 2e4]);
      for (let k = 0; k < turns; k++) await addOpenCodeTurn(db, id, `${s}_${k}`, t + k * 2e4, sentence(s + k, 30), sentence(s + k + 1, 80), k % 3 === 1);
    });
  }
  await db.close();
}

/** One prompt and its reply (a text part, and a tool part when `tool`), and the session's `time_updated`, as OpenCode writes them. */
export async function addOpenCodeTurn(db: Db, sessionId: string, id: string, t: number, prompt: string, reply: string, tool = false): Promise<void> {
  const message = (mid: string, at: number, data: Record<string, unknown>): Promise<unknown> =>
    db.run('INSERT INTO message VALUES (?, ?, ?, ?, ?)', [mid, sessionId, at, at, JSON.stringify({ ...data, time: { created: at } })]);
  const part = (pid: string, mid: string, at: number, data: Record<string, unknown>): Promise<unknown> =>
    db.run('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)', [pid, mid, sessionId, at, at, JSON.stringify(data)]);
  await message(`msg_${id}_u`, t, { role: 'user' });
  await part(`prt_${id}_u`, `msg_${id}_u`, t, { type: 'text', text: prompt });
  await message(`msg_${id}_a`, t + 1000, { role: 'assistant', modelID: 'claude-sonnet-4', providerID: 'anthropic' });
  if (tool) {
    await part(`prt_${id}_t`, `msg_${id}_a`, t + 1100, { type: 'tool', callID: `call_${id}`, tool: 'read', state: { status: 'completed', input: { filePath: `${BENCH_PROJECT}/src/m.ts` }, output: 'o'.repeat(8000) } });
  }
  await part(`prt_${id}_a`, `msg_${id}_a`, t + 1200, { type: 'text', text: reply });
  await db.run('UPDATE session SET time_updated = ? WHERE id = ?', [t + 1200, sessionId]);
}
