import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { embedStore } from '../../src/core/embed/stage';
import { TransformersEmbedder } from '../../src/core/embed/transformersEmbedder';
import { AGENT_KINDS } from '../../src/core/model';
import { Store } from '../../src/core/store/store';
import { EXTENSION_STORAGE_ID, workspaceStoreFile } from '../../src/core/storeLocation';
import { countTokens } from '../../src/core/tokens';
import { tempDir } from './helpers';
import { CLI, connectMcp as connect, type McpSession as Session, resultItems as items, resultText as text } from './mcpClient';
import { CONVERSATIONS, type FixtureConversation, openFixture, writeConversation } from './searchFixture';
import { PLANTED } from './secrets';

/**
 * The MCP server as an agent meets it: `node dist/cli.js mcp` spawned over stdio by the SDK's own client,
 * against stores written through the real Store (and, for the concurrency test, by a real `index` run).
 */

const LONG: FixtureConversation = {
  file: 'long-session.jsonl',
  agent: 'claude-code',
  project: '/p/shop/packages/api',
  exchanges: [
    {
      key: 'd1',
      text: `User: explain the rate limiter and the deploy key\nAssistant: ${'The token bucket refills every second and the burst size is forty requests. '.repeat(80)}\nThe deploy used ${PLANTED[0]!.secret} as the key.`,
      startedAt: '2025-02-01T10:00:00Z',
      files: [{ path: 'src/limiter.ts', how: 'edit', lines: [{ start: 10, end: 24 }] }],
    },
  ],
};

describe('agent-recall mcp over stdio', () => {
  let db: string;
  let ids: Map<string, string>;
  let shop: Session;

  before(async () => {
    const f = await openFixture([...CONVERSATIONS, LONG]);
    await f.store.close();
    db = path.join(f.dir, 'recall.sqlite');
    ids = f.ids;
    shop = await connect(['--db', db, '--workspace', '/p/shop']);
  });
  after(async () => shop.close());

  test('lists the four tools, read-only, with typed input schemas', async () => {
    const { tools } = await shop.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['file_history', 'read_exchange', 'recent', 'search']);
    const search = tools.find((t) => t.name === 'search')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
    const props = search.inputSchema.properties as Record<string, { type?: string; maximum?: number; items?: { enum?: string[] } }>;
    assert.equal(props['query']!.type, 'string');
    assert.equal(props['limit']!.type, 'integer');
    assert.equal(props['limit']!.maximum, 50);
    assert.deepEqual(props['agent']!.items!.enum, [...AGENT_KINDS]);
    for (const t of tools) assert.equal(t.annotations?.readOnlyHint, true, t.name);
    assert.deepEqual(tools.find((t) => t.name === 'read_exchange')!.inputSchema.required, ['id']);
  });

  test('search returns distilled hits with id, date, agent, files, rooms and a snippet', async () => {
    const r = await shop.call('search', { query: 'login page null pointer' });
    assert.ok(!r.isError, text(r));
    const first = items(r)[0]!;
    assert.equal(first['id'], ids.get('a1'));
    assert.equal(first['agent'], 'claude-code');
    assert.equal(first['date'], '2025-01-10T09:00:00Z');
    assert.match(String(first['core']), /null pointer crash on the login page/);
    assert.deepEqual(first['files'], ['src/auth.ts']);
    assert.match(String(first['snippet']), /null pointer/);
    assert.doesNotMatch(String(first['snippet']), /[\u0001\u0002]/, 'no highlight marks in text for agents');
    assert.match(text(r), new RegExp(`1\\. ${ids.get('a1')} · 2025-01-10 · claude-code`));
    // rooms are listed as the store shows them (small rooms stay hidden until they recur)
    for (const room of first['rooms'] as Array<{ label: string }>) assert.ok(text(r).includes(room.label));
  });

  test('search filters by agent, dates, file and room', async () => {
    const byAgent = items(await shop.call('search', { query: 'error', agent: ['codex'] }));
    assert.deepEqual(byAgent.map((i) => i['id']), [ids.get('b1')]);
    const since = items(await shop.call('search', { query: 'error login migration', since: '2025-03-01' }));
    assert.deepEqual(since.map((i) => i['id']), [ids.get('b1')]);
    const until = items(await shop.call('search', { query: 'error login migration', until: '2025-01-10T09:30:00Z' }));
    assert.deepEqual(until.map((i) => i['id']), [ids.get('a1')]);
    const wholeDay = items(await shop.call('search', { query: 'error login migration', until: '2025-01-10' }));
    assert.deepEqual(wholeDay.map((i) => i['id']).sort(), [ids.get('a1'), ids.get('a2')], 'a bare date includes its whole day');
    const byFile = items(await shop.call('search', { query: 'tests signup login', file: '/p/shop/src/signup.test.ts' }));
    assert.deepEqual(byFile.map((i) => i['id']), [ids.get('a2')]);
    const byRoom = items(await shop.call('search', { query: 'login tests migration', room: 'workflow:testing' }));
    assert.deepEqual(byRoom.map((i) => i['id']), [ids.get('a2')]);
  });

  test('search says how many matches of a conversation were left out, and the conversation filter returns them all', async () => {
    // the shop conversation holds three exchanges with "login"; at most two results of a six-word query come from one
    // conversation (a shorter one sees up to six: searcher.ts, SHORT_QUERY_TERMS)
    const query = 'login page null pointer broken cookie';
    const capped = await shop.call('search', { query });
    const shown = items(capped);
    assert.equal(shown.length, 2);
    assert.deepEqual(shown.map((i) => i['more']), [1, 1]);
    const conversation = String(shown[0]!['conversation']);
    assert.match(text(capped), new RegExp(`1 more in this conversation: search again with conversation ${conversation}`));
    const all = items(await shop.call('search', { query, conversation }));
    assert.deepEqual(all.map((i) => i['id']).sort(), [ids.get('a1'), ids.get('a2'), ids.get('a3')].sort());
    assert.ok(all.every((i) => i['more'] === 0 && i['conversation'] === conversation));
  });

  test('every answer stays within its token budget and says what it left out', async () => {
    const r = await shop.call('search', { query: 'login error tests migration limiter', limit: 20, maxTokens: 150 });
    assert.ok(countTokens(text(r)) <= 150, `${countTokens(text(r))} tokens`);
    assert.ok((r.structuredContent?.['leftOut'] as number) > 0);
    assert.match(text(r), /more left out to stay within 150 tokens/);

    const long = await shop.call('read_exchange', { id: ids.get('d1')!, maxTokens: 300 });
    assert.ok(countTokens(text(long)) <= 300, `${countTokens(text(long))} tokens`);
    assert.match(text(long), /… \[cut at 300 tokens; \d+ more characters\]$/, 'the marker names the budget asked for');
    assert.equal(long.structuredContent?.['cut'], true);
  });

  test('read_exchange gives the verbatim exchange, where it came from and its neighbours', async () => {
    const r = await shop.call('read_exchange', { id: ids.get('a2')!.slice(0, 10) });
    assert.ok(!r.isError, text(r));
    const t = text(r);
    assert.match(t, /Wrote tests in signup\.test\.ts covering empty fields and login redirect\./);
    assert.match(t, /shop-session\.jsonl:11-19/);
    assert.match(t, /Core: Added unit tests for the signup form validation\./);
    assert.match(t, /Files: src\/signup\.test\.ts \(write\)/);
    assert.equal(r.structuredContent?.['previous'], ids.get('a1'));
    assert.equal(r.structuredContent?.['next'], ids.get('a3'));
  });

  test('file_history lists the exchanges that touched a path, newest first, with how and lines', async () => {
    const r = await shop.call('file_history', { path: 'src/limiter.ts' });
    assert.deepEqual(items(r).map((i) => [i['id'], i['how'], i['lines']]), [[ids.get('d1'), 'edit', [[10, 24]]]]);
    assert.match(text(r), /edit lines 10-24/);
    const abs = await shop.call('file_history', { path: '/p/shop/src/auth.ts' });
    assert.deepEqual(items(abs).map((i) => i['id']), [ids.get('a1')]);
    const none = await shop.call('file_history', { path: 'src/nothing.ts' });
    assert.ok(!none.isError);
    assert.match(text(none), /No past exchange in this workspace touched src\/nothing\.ts/);
  });

  test('recent lists the newest exchanges of the workspace', async () => {
    const r = await shop.call('recent', { limit: 3 });
    assert.deepEqual(items(r).map((i) => i['id']), [ids.get('b1'), ids.get('d1'), ids.get('a3')]);
    assert.match(text(r), /Repaired a failing database migration/);
  });

  test('bad input gets a clear error result, never a crash', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search', { query: '   ' }, /query must not be empty/],
      ['search', {}, /query/],
      ['search', { query: 'x', limit: 100000 }, /limit/],
      ['search', { query: 'x', limit: 2.5 }, /limit/],
      ['search', { query: 'x', agent: ['windsurf'] }, /agent/],
      ['search', { query: 'x', since: 'last tuesday' }, /ISO date/],
      // Date would roll these over to another day and filter from there
      ['search', { query: 'x', since: '2025-02-30' }, /2025-02-30 is not a real date: February 2025 has 28 days/],
      ['search', { query: 'x', until: '2024-04-31T10:00:00Z' }, /April 2024 has 30 days/],
      ['search', { query: 'x', since: '2025-13-01' }, /there is no month 13/],
      ['search', { query: 'x', since: '2025-01-31T24:30:00Z' }, /time of day is out of range/],
      ['search', { query: 'x', maxTokens: 10 }, /maxTokens/],
      ['read_exchange', { id: 'DROP TABLE' }, /exchange id/],
      ['read_exchange', { id: 'ffffffffffffffff' }, /No exchange ffffffffffffffff in this workspace's memory/],
      ['read_exchange', { id: 'a' }, /exchange id/],
      ['file_history', { path: '' }, /path must not be empty/],
      ['recent', { limit: 0 }, /limit/],
    ];
    for (const [tool, args, message] of cases) {
      const r = await shop.call(tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)} should fail`);
      assert.match(text(r), message, `${tool} ${JSON.stringify(args)}`);
    }
    // still serving after all that; a leap day is a real date
    assert.ok(!(await shop.call('recent', {})).isError);
    assert.ok(!(await shop.call('search', { query: 'x', since: '2024-02-29', until: '2024-02-29T23:59:59+01:00' })).isError);
  });

  test('never returns another workspace\'s exchanges', async () => {
    const blogId = ids.get('c1')!;
    assert.deepEqual(items(await shop.call('search', { query: 'gardening blog tomatoes' })), []);
    assert.equal((await shop.call('read_exchange', { id: blogId })).isError, true);
    assert.ok(items(await shop.call('recent', { limit: 100 })).every((i) => i['id'] !== blogId && i['id'] !== ids.get('c2')));
    // a sibling folder whose name starts the same is another workspace too
    const shopping = await connect(['--db', db, '--workspace', '/p/sho']);
    try {
      assert.deepEqual(items(await shopping.call('recent', { limit: 100 })), []);
    } finally {
      await shopping.close();
    }
    // the same file without a workspace: the user named the file, so all of it
    const whole = await connect(['--db', db]);
    try {
      assert.equal(items(await whole.call('search', { query: 'gardening blog tomatoes' }))[0]?.['id'], blogId);
    } finally {
      await whole.close();
    }
  });

  test('a workspace store that holds only the workspace is searched whole until a project outside it is written', async () => {
    const f = await openFixture(CONVERSATIONS.filter((c) => c.project.startsWith('/p/shop')));
    const file = path.join(f.dir, 'recall.sqlite');
    await f.store.close();
    const s = await connect(['--db', file, '--workspace', '/p/shop']);
    try {
      // the boundary is read (none outside) and kept for the searches after
      assert.deepEqual(items(await s.call('search', { query: 'gardening blog tomatoes' })), []);
      assert.deepEqual(items(await s.call('search', { query: 'gardening blog tomatoes' })), []);
      // an index run in another process writes a project outside the workspace: the store changed, so the boundary is read again
      const writer = await Store.open(file);
      await writeConversation(writer, f.dir, CONVERSATIONS.find((c) => c.project === '/p/blog')!);
      await writer.close();
      assert.deepEqual(items(await s.call('search', { query: 'gardening blog tomatoes' })), []);
      assert.ok(items(await s.call('search', { query: 'null pointer login page' })).length > 0);
    } finally {
      await s.close();
    }
    const whole = await connect(['--db', file]);
    try {
      assert.ok(items(await whole.call('search', { query: 'gardening blog tomatoes' })).length > 0, 'the blog is searchable outside the workspace');
    } finally {
      await whole.close();
    }
  });

  test('secrets are replaced in what the tools return unless --no-redact', async () => {
    const secret = PLANTED[0]!.secret;
    // no flag: redacted, as the extension's server is (its setting defaults on)
    const r = await shop.call('read_exchange', { id: ids.get('d1')!, maxTokens: 20000 });
    assert.ok(!text(r).includes(secret));
    assert.match(text(r), /\[REDACTED:anthropic-key\] as the key/);
    const hits = await shop.call('search', { query: 'deploy key rate limiter' });
    assert.ok(!JSON.stringify(hits).includes(secret));
    assert.match(await shop.stderrMatching(/serving/), /serving .*, secrets redacted/);
    // --redact is still accepted, and means the same
    const explicit = await connect(['--db', db, '--workspace', '/p/shop', '--redact']);
    try {
      assert.ok(!text(await explicit.call('read_exchange', { id: ids.get('d1')!, maxTokens: 20000 })).includes(secret));
    } finally {
      await explicit.close();
    }
    const plain = await connect(['--db', db, '--workspace', '/p/shop', '--no-redact']);
    try {
      assert.ok(text(await plain.call('read_exchange', { id: ids.get('d1')!, maxTokens: 20000 })).includes(secret), 'with --no-redact the text is verbatim');
      assert.match(await plain.stderrMatching(/serving/), /secrets NOT redacted \(--no-redact\)/);
    } finally {
      await plain.close();
    }
    const both = spawnSync(process.execPath, [CLI, 'mcp', '--db', db, '--redact', '--no-redact'], { encoding: 'utf8' });
    assert.equal(both.status, 2);
    assert.match(both.stderr, /give --redact \(the default\) or --no-redact, not both/);
  });
});

describe('agent-recall mcp finds the workspace store', () => {
  test('--workspace DIR opens the store the extension keeps for DIR', async () => {
    const home = tempDir('recall-home-');
    const workspace = path.join(tempDir('recall-ws-'), 'shop');
    mkdirSync(workspace);
    const storage = path.join(home, '.config', 'Code', 'User', 'globalStorage', EXTENSION_STORAGE_ID);
    const file = workspaceStoreFile(storage, [workspace]);
    mkdirSync(path.dirname(file), { recursive: true });
    const store = await Store.open(file);
    await writeConversation(store, path.dirname(file), { ...CONVERSATIONS[0]!, project: workspace });
    await store.close();

    const s = await connect(['--workspace', workspace], { HOME: home });
    try {
      assert.equal(items(await s.call('recent', {})).length, 3);
      assert.match(await s.stderrMatching(/serving/), new RegExp(`serving ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    } finally {
      await s.close();
    }
  });

  test('a workspace without a store, or no workspace at all, is told what to do', () => {
    const home = tempDir('recall-home-');
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--workspace', tempDir('recall-ws-')], { encoding: 'utf8', env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '' } });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /No Agent Recall store for .*Open the folder in VS Code with Agent Recall installed/);
    const none = spawnSync(process.execPath, [CLI, 'mcp'], { encoding: 'utf8' });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /mcp needs --workspace DIR/);
    const missing = spawnSync(process.execPath, [CLI, 'mcp', '--db', path.join(home, 'nothing.sqlite')], { encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /There is no Agent Recall store at/);
  });
});

describe('agent-recall mcp beside an index run', () => {
  test('searches while `index` writes the same store: no error, no partial rows', async () => {
    const root = tempDir('recall-concurrent-');
    const workspace = path.join(root, 'ws');
    const transcripts = path.join(root, 'projects');
    mkdirSync(workspace);
    mkdirSync(transcripts);
    const SESSIONS = 240;
    const EXCHANGES = 6;
    for (let s = 0; s < SESSIONS; s++) writeFileSync(path.join(transcripts, `s${s}.jsonl`), claudeSession(workspace, s, EXCHANGES));
    const db = path.join(root, 'recall.sqlite');
    // a first small store exists (as the extension's would), then a run indexes everything into it
    const first = tempDir('recall-first-');
    writeFileSync(path.join(first, 's0.jsonl'), claudeSession(workspace, 0, EXCHANGES));
    const seeded = spawnSync(process.execPath, [CLI, 'index', '--root', first, '--db', db, '--workspace', workspace, '--quiet'], { encoding: 'utf8' });
    assert.equal(seeded.status, 0, seeded.stderr);

    const s = await connect(['--db', db, '--workspace', workspace]);
    try {
      const indexer = spawn(process.execPath, [CLI, 'index', '--root', transcripts, '--db', db, '--workspace', workspace, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let indexErr = '';
      indexer.stderr.on('data', (d: Buffer) => (indexErr += d.toString()));
      const exited = new Promise<number | null>((resolve) => indexer.on('exit', resolve));
      let running = true;
      void exited.then(() => (running = false));
      let rounds = 0;
      let duringRun = 0;
      let lastCount = 0;
      for (;;) {
        const wasRunning = running;
        const hits = await s.call('search', { query: 'harbour tide gauge calibration', limit: 50, maxTokens: 20000 });
        assert.ok(!hits.isError, text(hits));
        const recent = await s.call('recent', { limit: 100, maxTokens: 20000 });
        assert.ok(!recent.isError, text(recent));
        // every exchange listed is whole: its conversation, date and text are there, and it can be read
        const listed = [...items(hits), ...items(recent)];
        for (const it of listed) {
          assert.equal(it['agent'], 'claude-code');
          assert.match(String(it['date']), /^2025-/);
        }
        for (const it of [listed[0], listed[listed.length - 1]]) {
          if (!it) continue;
          const read = await s.call('read_exchange', { id: String(it['id']), maxTokens: 20000 });
          assert.ok(!read.isError, text(read));
          assert.match(text(read), /harbour tide gauge calibration session \d+ step \d+/);
        }
        const count = items(recent).length;
        assert.ok(count >= lastCount, `the store never shrinks as seen by readers (${count} < ${lastCount})`);
        lastCount = count;
        rounds++;
        if (wasRunning && running) duringRun++;
        if (!wasRunning) break;
      }
      assert.equal(await exited, 0, indexErr);
      assert.ok(duringRun >= 3, `searched ${duringRun} times while the index run was writing`);
      assert.ok(lastCount > 0 && lastCount <= 100);
      const last = await s.call('search', { query: `calibration session ${SESSIONS - 1} step ${EXCHANGES - 1}`, limit: 5 });
      assert.match(text(last), new RegExp(`session ${SESSIONS - 1} step`), 'the end of the run is visible to the server');
    } finally {
      await s.close();
    }
  });
});

/** A Claude Code session of `n` exchanges in `cwd`, each mentioning its session and step. */
function claudeSession(cwd: string, session: number, n: number): string {
  const lines: string[] = [];
  const sessionId = `00000000-0000-4000-8000-${String(session).padStart(12, '0')}`;
  let parent: string | null = null;
  for (let i = 0; i < n; i++) {
    const at = (k: number) => new Date(Date.UTC(2025, 0, 1 + (session % 28), 8, i * 2 + k)).toISOString();
    const u = `${sessionId.slice(0, 24)}${String(session * 100 + i * 2).padStart(12, '0')}`;
    const a = `${sessionId.slice(0, 24)}${String(session * 100 + i * 2 + 1).padStart(12, '0')}`;
    lines.push(JSON.stringify({ parentUuid: parent, type: 'user', cwd, sessionId, uuid: u, timestamp: at(0), message: { role: 'user', content: `Please check the harbour tide gauge calibration session ${session} step ${i} and report drift.` } }));
    lines.push(JSON.stringify({ parentUuid: u, type: 'assistant', cwd, sessionId, uuid: a, timestamp: at(1), message: { role: 'assistant', content: [{ type: 'text', text: `The harbour tide gauge calibration session ${session} step ${i} shows a drift of ${i + 1} millimetres against the reference benchmark; no action needed.` }] } }));
    parent = a;
  }
  return lines.join('\n') + '\n';
}

test('the MCP SDK stays out of the extension host and the other commands: only dist/mcp.js bundles it', () => {
  const { readFileSync } = require('node:fs') as typeof import('node:fs');
  const dist = (f: string): string => readFileSync(path.resolve(__dirname, '../../../dist', f), 'utf8');
  for (const f of ['extension.js', 'cli.js', 'commands.js']) assert.doesNotMatch(dist(f), /modelcontextprotocol|McpServer = class|JSONRPCMessageSchema|ZodError/, f);
  // a name the SDK keeps as a string, in a minified build too (`McpServer = class` is its dev bundle's text only)
  assert.match(dist('mcp.js'), /JSONRPCMessageSchema/);
  // the launcher loads one bundle or the other (through the code cache: codeCache.ts), nothing of its own
  assert.ok(dist('cli.js').length < 10_000, `dist/cli.js is ${dist('cli.js').length} characters`);
});

describe('agent-recall mcp with an embedding model', () => {
  const ROOT = path.resolve(__dirname, '../../..');
  const MODEL = path.join(ROOT, '.cache/models/wink-static-100d');
  // no word of it is in the store: only the vectors can place the gardening exchange (c1)
  const MEANING_ONLY = 'vegetables harvest';
  let keys: Map<string, string>;
  let db: string;
  let words: Session;
  let semantic: Session;

  before(async () => {
    const built = spawnSync(process.execPath, [path.join(ROOT, 'test/model/buildStaticModel.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`building the test model failed: ${built.stderr || built.error?.message}`);
    ({ db, keys } = await embeddedStore());
    words = await connect(['--db', db]);
    semantic = await connect(['--db', db, '--embed-model', MODEL]);
  });
  after(async () => {
    await words?.close();
    await semantic?.close();
  });

  /** The fixture store with its core layer embedded by the test model (recorded as `modelId`). */
  async function embeddedStore(modelId?: string): Promise<{ db: string; keys: Map<string, string> }> {
    const f = await openFixture(CONVERSATIONS);
    const embedder = await TransformersEmbedder.load({ model: MODEL, ...(modelId ? { modelId } : {}) });
    try {
      await embedStore(f.store, embedder, { layers: ['core'] });
    } finally {
      await embedder.dispose();
      await f.store.close();
    }
    return { db: path.join(f.dir, 'recall.sqlite'), keys: f.keys };
  }

  const ranked = async (s: Session, query: string) => items(await s.call('search', { query })).map((i) => keys.get(String(i['id'])));

  test('searches by meaning too where the words are not decisive; the words-only server cannot place the hit', async () => {
    assert.match(await semantic.stderrMatching(/searching with/), /searching with local:wink-static-100d too/);
    assert.deepEqual(await ranked(words, MEANING_ONLY), []);
    assert.equal((await ranked(semantic, MEANING_ONLY))[0], 'c1');
    // a confident lexical answer stays the words' answer
    assert.deepEqual(await ranked(semantic, 'duplicate key 1062'), await ranked(words, 'duplicate key 1062'));
  });

  test('a hub model that is not downloaded: words only, one line on stderr, nothing fetched', async () => {
    const cache = tempDir('recall-model-cache-');
    const s = await connect(['--db', db, '--embed-model', 'Xenova/all-MiniLM-L6-v2', '--model-cache', cache]);
    try {
      assert.deepEqual(await ranked(s, MEANING_ONLY), []);
      assert.deepEqual(await ranked(s, 'login error'), await ranked(words, 'login error'));
      const lines = (await s.stderrMatching(/words only/)).split('\n').filter((l) => /words only/.test(l));
      assert.equal(lines.length, 1, s.stderr());
      // the offline path's own message (a download attempt would fail with a network error instead)
      assert.match(lines[0]!, /Xenova\/all-MiniLM-L6-v2.*never downloads/);
      assert.deepEqual(readdirSync(cache), [], 'nothing was downloaded into the cache');
    } finally {
      await s.close();
    }
  });

  test('a hub model already in --model-cache loads from there, offline', async () => {
    const hubId = 'agent-recall-test/wink-static-100d';
    const cache = tempDir('recall-model-cache-');
    cpSync(MODEL, path.join(cache, ...hubId.split('/')), { recursive: true });
    const hub = await embeddedStore(hubId);
    const s = await connect(['--db', hub.db, '--embed-model', hubId, '--model-cache', cache]);
    try {
      assert.match(await s.stderrMatching(/searching with/), new RegExp(`searching with ${hubId} too`));
      const first = items(await s.call('search', { query: MEANING_ONLY }))[0];
      assert.equal(hub.keys.get(String(first?.['id'])), 'c1');
    } finally {
      await s.close();
    }
  });

  test('a model folder that does not load: words only, with the reason', async () => {
    const s = await connect(['--db', db, '--embed-model', path.join(tempDir('recall-no-model-'), 'missing')]);
    try {
      assert.deepEqual(await ranked(s, MEANING_ONLY), []);
      assert.match(await s.stderrMatching(/words only/), /searching by words only\. .*does not exist/);
    } finally {
      await s.close();
    }
  });
});
