import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RecallError } from '../../src/core/errors';
import type { Db } from '../../src/core/store/db';
import { conversationKey, segmentConversation } from '../../src/core/segment';
import type { Store } from '../../src/core/store/store';
import type { Conversation, Message, MessageKind, ToolCall, ToolResult } from '../../src/core/model';

export const FIXTURES = path.resolve(__dirname, '../../../test/fixtures');

let ownRoot: string | undefined;

/** A fresh folder under the runner's temporary root, or, for a file run alone, under one this process removes on exit. */
export function tempDir(prefix = 'recall-'): string {
  return mkdtempSync(path.join(process.env['RECALL_TEST_TMP'] ?? (ownRoot ??= processRoot()), prefix));
}

function processRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'agent-recall-test-'));
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  return root;
}

let nextLine = 1;

/** Builds a message on the next line(s), for segmentation tests that do not need a parser. */
export function msg(
  kind: MessageKind,
  text: string,
  extra: { toolCalls?: ToolCall[]; toolResults?: ToolResult[]; lines?: number; uuid?: string; timestamp?: string } = {},
): Message {
  const line = nextLine;
  const lines = extra.lines ?? 1;
  nextLine += lines;
  return {
    kind,
    role: kind === 'reply' ? 'assistant' : 'user',
    text,
    toolCalls: extra.toolCalls ?? [],
    toolResults: extra.toolResults ?? [],
    line,
    lineEnd: line + lines - 1,
    offset: (line - 1) * 100,
    ...(extra.uuid ? { uuid: extra.uuid } : {}),
    ...(extra.timestamp ? { timestamp: extra.timestamp } : {}),
  };
}

export function resetLines(): void {
  nextLine = 1;
}

export function conversation(messages: Message[], project = '/home/dev/shop'): Conversation {
  return {
    sourceFile: '/tmp/session.jsonl',
    meta: { agent: 'claude-code', sessionId: 's1', project, isSubagent: false, line: 1 },
    messages,
  };
}

/** Dot product; the cosine of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A model that cannot run rejects with RecallError('model-unavailable'), says why, and that search stays lexical. */
export async function rejectsUnavailable(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof RecallError, `a RecallError, got ${String(err)}`);
    assert.equal(err.code, 'model-unavailable');
    assert.match(err.message, pattern);
    assert.match(err.message, /lexical search still works/);
    return true;
  });
}

/** The SQL of every statement `db` runs while `fn` runs. */
export async function statementsOf(db: Db, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const all = db.all.bind(db);
  const get = db.get.bind(db);
  db.all = (<T>(sql: string, params?: unknown[]) => (seen.push(sql), all<T>(sql, params as never))) as typeof db.all;
  db.get = (<T>(sql: string, params?: unknown[]) => (seen.push(sql), get<T>(sql, params as never))) as typeof db.get;
  try {
    await fn();
  } finally {
    db.all = all;
    db.get = get;
  }
  return seen;
}

/**
 * The SQL of every statement the store's two connections run while `fn` runs: the second (Store.vectorReader) reads
 * what need not be of a search's snapshot, a distance bound's sample.
 */
export async function storeStatementsOf(store: Store, fn: () => Promise<unknown>): Promise<string[]> {
  const reader = await store.vectorReader();
  let second: string[] = [];
  const first = await statementsOf(store.db, async () => {
    if (reader) second = await statementsOf(reader, fn);
    else await fn();
  });
  return [...first, ...second];
}

/**
 * How a CommonMark reader splits `text` into lines outside fences and lines inside them: a fence opens
 * with 3+ backticks and closes only at a line of as many or more backticks and nothing else (either
 * indented by up to 3 spaces).
 */
export function splitQuoted(text: string): { outside: string[]; quoted: string[] } {
  const outside: string[] = [];
  const quoted: string[] = [];
  let open = 0;
  for (const line of text.split('\n')) {
    if (open === 0) {
      const m = /^ {0,3}(`{3,})[^`]*$/.exec(line);
      if (m) open = m[1]!.length;
      else outside.push(line);
    } else if (new RegExp(`^ {0,3}\`{${open},}\\s*$`).test(line)) open = 0;
    else quoted.push(line);
  }
  return { outside, quoted };
}

/**
 * `messages` written as conversation `session` of `project` (its own source file) into `store`, as one full parse;
 * returns its exchanges' row numbers and ids in order.
 */
export async function storeConversation(store: Store, session: string, messages: Message[], project?: string): Promise<Array<{ n: number; id: string }>> {
  const base = conversation(messages, project);
  const conv = { ...base, sourceFile: `/tmp/${session}.jsonl`, meta: { ...base.meta, sessionId: session } };
  const seg = segmentConversation(conv, { minChars: 10, maxPlies: 20 });
  await store.writeParse({
    state: {
      path: conv.sourceFile, agent: 'claude-code', size: 100, mtimeMs: 1, headHash: session, anchorHash: 'a',
      parsedOffset: 100, nextLine: 99, resumeOffset: 0, resumeLine: 1, resumePly: 0, pendingPartial: false,
    },
    full: true, fromOffset: 0, fromLine: 1,
    conversations: [{ key: conversationKey(conv), meta: conv.meta }],
    exchanges: seg.exchanges, dropped: seg.dropped, skipped: [],
  });
  return store.db.all<{ n: number; id: string }>(
    'SELECT e.n, e.id FROM exchanges e JOIN conversations c ON c.id = e.conversation_id WHERE c.session_id = ? ORDER BY e.n',
    [session],
  );
}

/** A text of `length` pieces drawn from `pieces` by a seeded generator: the same seed, the same text, on every run. */
export function seededText(pieces: readonly string[], seed: number, length: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += pieces[x % pieces.length];
  }
  return out;
}

/** The number of rows each of the store's `db.all` statements returns from now on (what a statement reads at a time). */
export function rowsPerStatement(store: Store): number[] {
  const counts: number[] = [];
  const all = store.db.all.bind(store.db);
  store.db.all = async <T>(sql: string, params?: Parameters<typeof all>[1]): Promise<T[]> => {
    const rows = await all<T>(sql, params);
    counts.push(rows.length);
    return rows;
  };
  return counts;
}
