import { Db } from '../../src/core/store/db';

export const KIRO_TIDES = '2f4a6c8e-0b1d-4f3a-8c5e-7a9b1c3d5e7f';
export const KIRO_GAUGES = '3a5b7c9d-1e2f-4a4b-9c6d-8e0f2a4b6c8d';
export const KIRO_DAMAGED = '4b6c8d0e-2f3a-4b5c-8d7e-9f1a3b5c7d9e';

const turn = (cwd: string, content: unknown, timestamp: string | null, assistant: unknown, end: number): unknown => ({
  user: { additional_context: '', env_context: { env_state: { operating_system: 'linux', current_working_directory: cwd } }, content, timestamp, images: null },
  assistant,
  request_metadata: { request_id: `req-${end}`, stream_end_timestamp_ms: end },
});

/** The tide conversation as Kiro saved it last: a prompt, a tool round trip, an answer, a second prompt and its edit. */
export function tidesConversation(extraTurns: unknown[] = []): Record<string, unknown> {
  const cwd = '/home/dev/harbour';
  return {
    conversation_id: KIRO_TIDES,
    next_message: null,
    history: [
      turn(cwd, { Prompt: { prompt: 'Which function converts the tide heights from the API into chart points in src/tides/chart.ts?' } }, '2025-11-08T09:00:00Z',
        { ToolUse: { message_id: 'msg-k1', content: 'Reading the chart module.', tool_uses: [{ id: 'tooluse_k1', name: 'fs_read', orig_name: 'fs_read', args: { operations: [{ mode: 'Line', path: '/home/dev/harbour/src/tides/chart.ts', start_line: 10, end_line: 48 }] } }] } },
        1762592405000),
      turn(cwd, { ToolUseResults: { tool_use_results: [{ tool_use_id: 'tooluse_k1', content: [{ Text: 'export function toChartPoints(h: Height[]) { return h.map((x) => ({ x: x.at, y: x.metres })); }' }], status: 'Success' }] } }, null,
        { Response: { message_id: 'msg-k2', content: 'toChartPoints in src/tides/chart.ts maps each height to a point whose x is the reading time and y the height in metres; nothing else converts them.' } },
        1762592410000),
      // an older CLI saved a turn as the pair [user, assistant]
      [
        { content: { Prompt: { prompt: 'Make toChartPoints skip readings whose height is null instead of drawing them at zero.' } }, timestamp: '2025-11-08T09:05:00Z' },
        { ToolUse: { message_id: 'msg-k3', content: 'toChartPoints now filters out readings with a null height before mapping, so gaps in the API data stay gaps on the chart instead of dropping to zero.', tool_uses: [{ id: 'tooluse_k2', name: 'fs_write', args: { command: 'str_replace', path: '/home/dev/harbour/src/tides/chart.ts', old_str: 'h.map(', new_str: 'h.filter((x) => x.metres !== null).map(' } }] } },
      ],
      ...extraTurns,
    ],
    valid_history_range: [0, 3],
    transcript: ['> Which function converts the tide heights', 'toChartPoints ...'],
    tools: {},
    context_manager: null,
    model_info: { model_id: 'claude-sonnet-4.5', context_window_tokens: 200000 },
  };
}

/**
 * Builds Kiro CLI's `data.sqlite3` (the Amazon Q Developer CLI's schema, migration 008) in rollback-journal mode, as
 * its source opens it: the tide conversation saved under an older folder and again, later, under the current one;
 * a gauges conversation; a row whose value is cut short. Returns the open connection (the caller plays Kiro).
 */
export async function buildKiroDb(file: string): Promise<Db> {
  const db = await Db.open(file);
  await db.exec(`CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id));
    CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB);`);
  const insert = (key: string, id: string, value: string, created: number, updated: number): Promise<unknown> =>
    db.run('INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)', [key, id, value, created, updated]);
  const older = { ...tidesConversation(), history: (tidesConversation()['history'] as unknown[]).slice(0, 1) };
  await insert('/home/dev/old-harbour', KIRO_TIDES, JSON.stringify(older), 1762592400000, 1762592405000);
  await insert('/home/dev/harbour', KIRO_TIDES, JSON.stringify(tidesConversation()), 1762592400000, 1762592700000);
  const gauges = {
    conversation_id: KIRO_GAUGES,
    history: [turn('/home/dev/gauges', { Prompt: { prompt: 'Why does the gauge list show stations that were decommissioned last year?' } }, '2025-11-01T08:00:00Z',
      { Response: { message_id: 'msg-g1', content: 'listGauges does not filter on the decommissioned_at column; stations with a date in it are still returned and drawn.' } }, 1762000000000)],
  };
  await insert('/home/dev/gauges', KIRO_GAUGES, JSON.stringify(gauges), 1762000000000, 1762000005000);
  await insert('/home/dev/harbour', KIRO_DAMAGED, '{"conversation_id":"4b6c8d0e', 1762600000000, 1762600000000);
  await db.run("INSERT INTO state VALUES ('auth.token', 'never read')");
  return db;
}
