import * as path from 'node:path';
import type { DistilledExchange, RoomAssignment } from '../../src/core/distill/types';
import type { AgentKind, Exchange, FileTouch } from '../../src/core/model';
import { type DistilledRecord, saveDistillBatch } from '../../src/core/store/distilledStore';
import { SearchReads } from '../../src/core/store/searchReads';
import { Store } from '../../src/core/store/store';
import { tempDir } from './helpers';

/**
 * A tiny store whose rankings can be checked by hand: three conversations, six exchanges, each with a
 * distinct vocabulary. Written through the real Store (FTS triggers and all); distilled rows via
 * saveDistillBatch, as the distiller would.
 */
export interface FixtureExchange {
  readonly key: string;
  readonly text: string;
  /** The human prompt; default: the text's first line without `User: ` (`''`: an exchange no human spoke in). */
  readonly prompt?: string;
  readonly files?: readonly FileTouch[];
  readonly startedAt: string;
  /** Distilled object; none = not distilled. */
  readonly distilled?: { core: string; context: string; rooms: RoomAssignment[]; terms?: string };
}

export interface FixtureConversation {
  readonly file: string;
  readonly agent: AgentKind;
  readonly project: string;
  /** The transcript is one line (Cline's history): every exchange at line 1, told apart by its byte offset. */
  readonly oneLine?: boolean;
  readonly exchanges: readonly FixtureExchange[];
}

const room = (type: RoomAssignment['type'], key: string, label = key): RoomAssignment => ({ type, key, label, relevance: 0.9 });

export const CONVERSATIONS: readonly FixtureConversation[] = [
  {
    file: 'shop-session.jsonl',
    agent: 'claude-code',
    project: '/p/shop',
    exchanges: [
      {
        key: 'a1',
        text: 'User: the login page throws a null pointer error\nAssistant: Fixed the null check in auth.ts before the session lookup.',
        files: [{ path: 'src/auth.ts', how: 'edit' }],
        startedAt: '2025-01-10T09:00:00Z',
        distilled: {
          core: 'Fixed a null pointer crash on the login page by checking the session first.',
          context: 'auth.ts null check',
          rooms: [room('concept', 'authentication', 'Authentication')],
        },
      },
      {
        key: 'a2',
        text: 'User: add unit tests for the signup form\nAssistant: Wrote tests in signup.test.ts covering empty fields and login redirect.',
        files: [{ path: 'src/signup.test.ts', how: 'write' }],
        startedAt: '2025-01-10T10:00:00Z',
        distilled: {
          core: 'Added unit tests for the signup form validation.',
          context: 'signup.test.ts',
          rooms: [room('workflow', 'testing', 'Testing')],
        },
      },
      {
        key: 'a3',
        text: 'User: login error again, the login login login page is broken\nAssistant: The error came from a stale cookie.',
        startedAt: '2025-01-11T08:00:00Z',
      },
    ],
  },
  {
    file: 'db-session.jsonl',
    agent: 'codex',
    project: '/p/shop',
    exchanges: [
      {
        key: 'b1',
        text: 'User: database migration failed with error 1062 duplicate key\nAssistant: Changed the unique index on orders.email.',
        files: [{ path: 'db/migrations/004.sql', how: 'edit' }],
        startedAt: '2025-03-05T12:00:00Z',
        distilled: {
          core: 'Repaired a failing database migration by changing a unique index.',
          context: 'error 1062 duplicate key',
          rooms: [room('file', 'db/migrations/004.sql'), room('concept', 'database', 'Database')],
          terms: 'orders email',
        },
      },
    ],
  },
  {
    file: 'blog.history.md',
    agent: 'aider',
    project: '/p/blog',
    exchanges: [
      {
        key: 'c1',
        text: 'User: write a blog post about gardening tomatoes\nAssistant: Here is a draft about growing tomatoes in pots.',
        startedAt: '2025-06-01T07:30:00Z',
        distilled: {
          core: 'Drafted a gardening blog post about growing tomatoes.',
          context: 'tomatoes in pots',
          rooms: [room('concept', 'gardening', 'Gardening')],
        },
      },
      {
        key: 'c2',
        text: 'User: publish the post\nAssistant: Published it to the static site with the deploy script.',
        startedAt: '2025-06-02T07:30:00Z',
      },
    ],
  },
];

export interface Fixture {
  readonly store: Store;
  /** What search reads of `store`. */
  readonly reads: SearchReads;
  readonly dir: string;
  /** Fixture key -> exchange id. */
  readonly ids: Map<string, string>;
  /** Exchange id -> fixture key (to read results). */
  readonly keys: Map<string, string>;
}

export async function openFixture(conversations: readonly FixtureConversation[] = CONVERSATIONS): Promise<Fixture> {
  const dir = tempDir('recall-search-');
  const store = await Store.open(path.join(dir, 'recall.sqlite'));
  const ids = new Map<string, string>();
  const keys = new Map<string, string>();
  for (const conv of conversations) await writeConversation(store, dir, conv, ids, keys);
  await distillFixture(store, conversations);
  return { store, reads: new SearchReads(store), dir, ids, keys };
}

/** Writes (or rewrites, replacing what the source held) one conversation through Store.writeParse. */
export async function writeConversation(
  store: Store,
  dir: string,
  conv: FixtureConversation,
  ids = new Map<string, string>(),
  keys = new Map<string, string>(),
): Promise<void> {
  const file = path.join(dir, conv.file);
  const convKey = `${conv.file}#1`;
  const exchanges: Exchange[] = conv.exchanges.map((x, i) => {
    const id = `${x.key}-${conv.file}`.padEnd(24, '0');
    ids.set(x.key, id);
    keys.set(id, x.key);
    return {
      id,
      conversationKey: convKey,
      agent: conv.agent,
      sourceFile: file,
      sessionId: conv.file,
      project: conv.project,
      part: 0,
      plyStart: i * 2,
      plyEnd: i * 2 + 1,
      lineStart: conv.oneLine ? 1 : i * 10 + 1,
      lineEnd: conv.oneLine ? 1 : i * 10 + 9,
      byteStart: i * 1000,
      startedAt: x.startedAt,
      prompt: x.prompt ?? x.text.split('\n')[0]!.replace(/^User: /, ''),
      verbatim: x.text,
      messages: [],
      filesTouched: x.files ?? [],
    };
  });
  await store.writeParse({
    state: {
      path: file, agent: conv.agent, size: 1, mtimeMs: 1, headHash: '', anchorHash: '', parsedOffset: 1, nextLine: 100,
      resumeOffset: 0, resumeLine: 1, resumePly: 0, pendingPartial: false,
    },
    full: true,
    fromOffset: 0,
    fromLine: 1,
    conversations: [{ key: convKey, meta: { agent: conv.agent, sessionId: conv.file, project: conv.project, isSubagent: false, line: 1 } }],
    exchanges,
    dropped: [],
    skipped: [],
  });
}

/** Writes the fixture's distilled objects (as a distiller would), keyed by exchange row number. */
export async function distillFixture(store: Store, conversations: readonly FixtureConversation[]): Promise<void> {
  const records: DistilledRecord[] = [];
  for (const conv of conversations) {
    for (const x of conv.exchanges) {
      if (!x.distilled) continue;
      const row = await store.db.get<{ n: number }>('SELECT n FROM exchanges WHERE id = ?', [`${x.key}-${conv.file}`.padEnd(24, '0')]);
      const value: DistilledExchange = {
        exchangeCore: x.distilled.core,
        specificContext: x.distilled.context,
        rooms: x.distilled.rooms,
        ...(x.distilled.terms ? { searchTerms: x.distilled.terms } : {}),
      };
      records.push({
        n: row!.n,
        value,
        rooms: x.distilled.rooms.map((r) => ({ ...r, id: `${r.type}:${r.key}`, project: conv.project })),
        filesTouched: x.files ?? [],
        distiller: 'fixture',
        promptVersion: 'test',
        contentHash: x.key,
        tokens: 20,
        cache: false,
      });
    }
  }
  await saveDistillBatch(store.db, records);
}
