import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Db } from '../../src/core/store/db';

export const TRAE_TIDES = 'b8f1c2d3-4e5f-4a6b-9c7d-0e1f2a3b4c5d';
export const TRAE_GAUGES = 'c9a2d3e4-5f6a-4b7c-8d9e-1f2a3b4c5d6e';
export const TRAE_GLOBAL = 'd0b3e4f5-6a7b-4c8d-9e0f-2a3b4c5d6e7f';
export const HARBOUR = '/home/dev/harbour';

const T = Date.parse('2025-11-10T09:00:00.000Z');

/** The tide session as Trae keeps it: times in epoch ms, an answer whose content is empty and whose plan says it all. */
export function tidesSession(extra: unknown[] = []): Record<string, unknown> {
  return {
    sessionId: TRAE_TIDES,
    createdAt: T,
    updatedAt: T + 120_000,
    model: 'doubao-seed-code',
    messages: [
      { role: 'user', content: 'The tide table shows high water an hour late since the clocks changed; where does formatTide pick the time zone?', timestamp: T, turnIndex: 0 },
      { role: 'assistant', content: 'formatTide in src/tides/format.ts calls toISOString(), so it always prints UTC; the table never applies Europe/Paris, which is why summer times are an hour off.', timestamp: T + 20_000, turnIndex: 1 },
      { role: 'system', content: 'context compacted', timestamp: T + 30_000 },
      7,
      { role: 'user', content: 'Make it print harbour local time with Intl.DateTimeFormat and keep the ISO format for the CSV export.', timestamp: T + 60_000, turnIndex: 2 },
      {
        role: 'assistant', content: '', timestamp: T + 90_000, turnIndex: 3,
        agentTaskContent: { guideline: { planItems: [
          { content: 'Add formatTideLocal(t) in src/tides/format.ts using Intl.DateTimeFormat with timeZone Europe/Paris.' },
          { content: 'Use it in the tide table; leave the CSV export on formatTide (ISO, UTC).' },
        ] } },
      },
      ...extra,
    ],
  };
}

/** Another session, dated in epoch seconds and ISO strings (both occur), and the model named only by its messages. */
export const gaugesSession = {
  sessionId: TRAE_GAUGES,
  createdAt: 1762502400,
  messages: [
    { role: 'user', content: 'Why does the gauge list still show the stations that were decommissioned last year?', timestamp: 1762502400 },
    { role: 'assistant', content: 'listGauges never reads decommissioned_at, so retired stations come back with the others; filter on it being null.', timestamp: '2025-11-07T08:00:30.000Z', model: 'doubao-1.5-pro' },
  ],
};

/**
 * Builds VS Code's `state.vscdb` as the editor writes it (`ItemTable`, rollback journal: VS Code sets no journal mode)
 * with Trae's storage value, and other keys as any VS Code workspace has. Returns the open connection (the caller
 * plays Trae and closes it).
 */
export async function buildTraeDb(file: string, value: unknown | undefined, folder?: string): Promise<Db> {
  await mkdir(path.dirname(file), { recursive: true });
  if (folder) await writeFile(path.join(path.dirname(file), 'workspace.json'), JSON.stringify({ folder: pathToFileURL(folder).href }));
  const db = await Db.open(file);
  await db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  await db.run('INSERT INTO ItemTable VALUES (?, ?)', ['workbench.explorer.treeViewState', '{"focus":[],"selection":[]}']);
  if (value !== undefined) await db.run('INSERT INTO ItemTable VALUES (?, ?)', ['memento/icube-ai-agent-storage', typeof value === 'string' ? value : JSON.stringify(value)]);
  return db;
}

/** Trae's storage value of the harbour workspace: two sessions and two entries that are not sessions. */
export const harbourValue = (tides = tidesSession()): unknown => ({ list: [tides, { createdAt: T, messages: [] }, 'not a session', gaugesSession] });

/** A Trae user-data folder under `root`: its workspace databases (harbour; another project; a VS Code workspace without Trae's key) and its global one. */
export async function buildTraeUserData(root: string): Promise<{ user: string; harbourDb: string; plainDb: string; otherDb: string; globalDb: string; dbs: Db[] }> {
  const user = path.join(root, 'Trae', 'User');
  const harbourDb = path.join(user, 'workspaceStorage', '5f1e0c2b9a8d7e6f', 'state.vscdb');
  const plainDb = path.join(user, 'workspaceStorage', '6a2f1d3c0b9e8f7a', 'state.vscdb');
  const otherDb = path.join(user, 'workspaceStorage', '7b3a2e4d1c0f9a8b', 'state.vscdb');
  const globalDb = path.join(user, 'globalStorage', 'state.vscdb');
  const dbs = [
    await buildTraeDb(harbourDb, harbourValue(), HARBOUR),
    await buildTraeDb(plainDb, undefined, HARBOUR),
    await buildTraeDb(otherDb, { list: [{ ...gaugesSession, sessionId: 'e1c4f5a6-7b8c-4d9e-8f0a-3b4c5d6e7f80' }] }, '/home/dev/gauges'),
    await buildTraeDb(globalDb, { list: [{ sessionId: TRAE_GLOBAL, createdAt: T, messages: [
      { role: 'user', content: 'What is the difference between neap and spring tides, in one paragraph for the help page?', timestamp: T },
      { role: 'assistant', content: 'Spring tides come at new and full moon, when sun and moon pull together and the range is largest; neap tides come at the quarters, with the smallest range.', timestamp: T + 5000 },
    ] }] }),
  ];
  return { user, harbourDb, plainDb, otherDb, globalDb, dbs };
}
