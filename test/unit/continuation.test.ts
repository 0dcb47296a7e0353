import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { embedStore } from '../../src/core/embed/stage';
import { WordVectorEmbedder } from '../../src/core/embed/wordVectorEmbedder';
import { requestsOf } from '../../src/core/search/continuation';
import { createSearcher } from '../../src/core/search/searcher';
import type { Searcher } from '../../src/core/search/types';
import { candidatePlaces } from '../../src/core/store/continuations';
import { conversationsOf } from '../../src/core/store/hitRows';
import { statementsOf, storeStatementsOf } from './helpers';
import { type Fixture, type FixtureConversation, openFixture } from './searchFixture';

const words = (n: number) => Array.from({ length: n }, () => 'filler').join(' ');

/**
 * `request` asks for the nightly deploy workflow; `continuation` (no human prompt) is the agent carrying it
 * out and says the query's words more often, so BM25 alone ranks it first. `later` asks something else
 * afterwards; `leftover` is a continuation whose request (`unrelated`) holds none of the query's words.
 */
const CONVERSATIONS: readonly FixtureConversation[] = [
  {
    file: 'deploy.jsonl',
    agent: 'claude-code',
    project: '/p/x',
    exchanges: [
      { key: 'request', text: `User: set up a nightly deploy workflow for the site\nAssistant: ${words(30)} starting.`, startedAt: '2025-01-01T00:00:00Z' },
      {
        key: 'continuation',
        prompt: '',
        text: `Assistant: the nightly deploy workflow runs the deploy job; nightly deploy workflow checked; deploy workflow done.`,
        startedAt: '2025-01-01T00:05:00Z',
      },
      { key: 'later', text: `User: rename the release notes file\nAssistant: ${words(20)} renamed.`, startedAt: '2025-01-01T00:10:00Z' },
    ],
  },
  {
    file: 'cache.jsonl',
    agent: 'codex',
    project: '/p/x',
    exchanges: [
      { key: 'unrelated', text: `User: clear the build cache\nAssistant: ${words(20)} cleared.`, startedAt: '2025-02-01T00:00:00Z' },
      { key: 'leftover', prompt: '', text: `Assistant: while clearing it, the rollback script for the canary deploy failed once.`, startedAt: '2025-02-01T00:05:00Z' },
    ],
  },
  {
    file: 'others.jsonl',
    agent: 'codex',
    project: '/p/x',
    exchanges: ['fix the login page', 'write release notes', 'update the lock file', 'profile the slow query'].map((t, i) => ({
      key: `other${i}`,
      text: `User: ${t}\nAssistant: ${words(20)} done.`,
      startedAt: `2025-03-0${i + 1}T00:00:00Z`,
    })),
  },
];

describe('an exchange no human spoke in ranks after its request', () => {
  let fx: Fixture;
  let searcher: Searcher;
  before(async () => {
    fx = await openFixture(CONVERSATIONS);
    searcher = createSearcher(fx.reads);
  });
  after(() => fx?.store.close());
  const keysOf = (hits: ReadonlyArray<{ exchangeId: string }>) => hits.map((h) => fx.keys.get(h.exchangeId));

  test('the request comes first, its continuation right after it with the same score', async () => {
    const r = await searcher.search({ text: 'nightly deploy workflow' });
    assert.deepEqual(keysOf(r.hits).slice(0, 2), ['request', 'continuation']);
    assert.equal(r.hits[1]!.score, r.hits[0]!.score);
  });

  test('a single-word query too', async () => {
    const r = await searcher.search({ text: 'nightly' });
    assert.deepEqual(keysOf(r.hits), ['request', 'continuation']);
  });

  test('a continuation whose request is no candidate stays where its words put it', async () => {
    const r = await searcher.search({ text: 'rollback canary deploy' });
    assert.equal(keysOf(r.hits)[0], 'leftover');
  });

  test('excluding the request ("not these") leaves the continuation in first place', async () => {
    const r = await searcher.search({ text: 'nightly deploy workflow', exclude: [fx.ids.get('request')!] });
    assert.equal(keysOf(r.hits)[0], 'continuation');
  });
});

test("the candidates' conversations and requests are read from the exchanges' indexes, not from their rows", async () => {
  // a row holds the exchange's whole text: ~100 of them read cost a search at 50K exchanges ~3 ms the first time
  const fx = await openFixture(CONVERSATIONS);
  try {
    const db = fx.store.db;
    const rows = await db.all<{ n: number; id: string }>('SELECT n, id FROM exchanges ORDER BY n');
    const ns = rows.map((r) => r.n);
    const key = (n: number) => fx.keys.get(rows.find((r) => r.n === n)!.id);
    const requests = await requestsOf(fx.reads, ns.map((n) => ({ n, score: 1 })));
    assert.deepEqual([...requests].map(([n, request]) => [key(n), key(request)]), [['continuation', 'request'], ['leftover', 'unrelated']]);
    // one shape whether a continuation or not (V8 compiles the code reading them for one: issue 42)
    const places = await candidatePlaces(db, ns);
    assert.ok(places.some((p) => p.request === undefined) && places.some((p) => p.request !== undefined));
    assert.deepEqual(new Set(places.map((p) => Object.keys(p).join())), new Set(['n,conversationId,request']));
    const sql = await statementsOf(db, async () => {
      await candidatePlaces(db, ns);
      await conversationsOf(db, ns);
    });
    assert.equal(sql.length, 2);
    for (const statement of sql) {
      const plan = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement}`, [JSON.stringify(ns)])).map((r) => r.detail);
      const reads = plan.filter((d) => /^(SCAN|SEARCH) (exchanges|e|p)\b/.test(d));
      assert.ok(reads.length > 0 && reads.every((d) => /USING COVERING INDEX/.test(d)), plan.join('\n'));
    }
  } finally {
    await fx.store.close();
  }
});

test("a searcher reads each candidate's place once, until the store changes, and answers the same", async () => {
  // the places statement reads ~100 candidates a search; a candidate's conversation and request are the exchange's
  const fx = await openFixture(CONVERSATIONS);
  try {
    const searcher = createSearcher(fx.reads);
    const placesRead = async (text: string) => {
      let answer: unknown;
      const sql = await storeStatementsOf(fx.store, async () => {
        answer = (await searcher.search({ text })).hits.map((h) => [fx.keys.get(h.exchangeId), h.score, h.more]);
      });
      return { reads: sql.filter((s) => s.includes('CASE WHEN NOT e.asked')).length, answer };
    };
    const first = await placesRead('nightly deploy workflow');
    assert.equal(first.reads, 1);
    assert.deepEqual((first.answer as string[][]).slice(0, 2).map(([key]) => key), ['request', 'continuation']);
    // asked again, and another query over some of the same candidates: nothing read again, the same answer
    assert.deepEqual(await placesRead('nightly deploy workflow'), { reads: 0, answer: first.answer });
    assert.equal((await placesRead('deploy workflow')).reads, 0);
    // a change of the store (any write moves its change stamp): read again
    await fx.store.db.run('UPDATE exchanges SET asked = asked WHERE n = (SELECT min(n) FROM exchanges)');
    assert.deepEqual(await placesRead('nightly deploy workflow'), { reads: 1, answer: first.answer });
  } finally {
    await fx.store.close();
  }
});

describe('a continuation in a one-line transcript (Cline) follows its request too', () => {
  // every exchange of a one-line file is at line 1: the order is the records' byte offsets
  const oneLine = CONVERSATIONS.map((c) => ({ ...c, file: c.file.replace('.jsonl', '.json'), oneLine: true }));
  let fx: Fixture;
  before(async () => {
    fx = await openFixture(oneLine);
  });
  after(() => fx?.store.close());

  test('the request comes first, its continuation right after it', async () => {
    const r = await createSearcher(fx.reads).search({ text: 'nightly deploy workflow' });
    assert.deepEqual(r.hits.slice(0, 2).map((h) => fx.keys.get(h.exchangeId)), ['request', 'continuation']);
  });
});

/**
 * A retry: the user pressed Copilot's "Try Again" (SpecStory saves it as the prompt `@agent Try Again`) and the
 * agent answered the request before it again, saying the query's words more often than the first answer did.
 */
const RETRIED: readonly FixtureConversation[] = [
  {
    file: 'compose.md',
    agent: 'specstory',
    project: '/p/bot',
    exchanges: [
      {
        key: 'request',
        text: `User: what does this terminal error mean?\nAssistant: exit code 255 from the compose logs command. ${words(30)}`,
        startedAt: '2025-09-26T07:55:00Z',
        distilled: { core: 'Asked what the last terminal error meant.', context: 'terminal error', rooms: [] },
      },
      {
        key: 'retry',
        prompt: '@agent Try Again',
        text: 'User: @agent Try Again\nAssistant: exit code 255 from compose logs: compose logs exited with code 255 when the service crashed.',
        startedAt: '2025-09-26T07:56:00Z',
        distilled: { core: 'Exit code 255 from compose logs means the service crashed.', context: 'compose logs exit code', rooms: [] },
      },
    ],
  },
  {
    file: 'others.md',
    agent: 'specstory',
    project: '/p/bot',
    exchanges: ['fix the login page', 'write release notes', 'update the lock file', 'profile the slow query'].map((t, i) => ({
      key: `other${i}`,
      text: `User: ${t}\nAssistant: ${words(20)} done.`,
      startedAt: `2025-03-0${i + 1}T00:00:00Z`,
      distilled: { core: `${t}.`, context: 'done', rooms: [] },
    })),
  },
];

/** The conversations stored and their distilled layer embedded with the built-in model (built first if need be). */
function embeddedFixture(conversations: readonly FixtureConversation[]): { readonly fx: Fixture; readonly embedder: WordVectorEmbedder } {
  const ROOT = path.resolve(__dirname, '../../..');
  const opened = {} as { fx: Fixture; embedder: WordVectorEmbedder };
  before(async () => {
    const r = spawnSync(process.execPath, ['scripts/buildBuiltinModel.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`building the built-in model failed: ${r.stderr || r.error?.message}`);
    opened.embedder = await WordVectorEmbedder.load(path.join(ROOT, 'dist/models/word-vectors-100d'));
    opened.fx = await openFixture(conversations);
    await embedStore(opened.fx.store, opened.embedder, { layers: ['core'] });
  });
  after(async () => {
    await opened.fx?.store.close();
    await opened.embedder?.dispose();
  });
  return opened;
}

describe('a retry ("@agent Try Again") ranks after the request it answers again', () => {
  const embedded = embeddedFixture(RETRIED);
  const keysOf = (hits: ReadonlyArray<{ exchangeId: string }>) => hits.slice(0, 2).map((h) => embedded.fx.keys.get(h.exchangeId));

  test('words only: the request first, the retry right after it', async () => {
    const r = await createSearcher(embedded.fx.reads).search({ text: 'exit code 255 compose logs' });
    assert.deepEqual(keysOf(r.hits), ['request', 'retry']);
  });

  test('fused with the distilled layer\'s vectors, which put the retry first: the order stays', async () => {
    const searcher = createSearcher(embedded.fx.reads, embedded.embedder);
    const vectors = await searcher.search({ text: 'exit code 255 compose logs', mode: 'core/vector' });
    assert.equal(embedded.fx.keys.get(vectors.hits[0]!.exchangeId), 'retry', 'the vectors alone rank the retry first');
    const fused = await searcher.search({ text: 'exit code 255 compose logs', mode: 'bm25(v)+vec(d)', fusion: 'weighted:0.8' });
    assert.deepEqual(keysOf(fused.hits), ['request', 'retry']);
    assert.deepEqual(fused.hits[1]!.parts.map((p) => p.signal), ['bm25(verbatim)', 'vector(core)'], 'the retry keeps its score parts');
  });
});

describe('a continuation ranked first by the vectors stays after its request in a fused mode', () => {
  // the request's headline in other words than the query's, its continuation's in the query's own
  const CORES: Record<string, string> = { request: 'Asked for a scheduled publishing job for the site.', continuation: 'The nightly deploy workflow runs the deploy job.' };
  const distilled = CONVERSATIONS.map((c) => ({
    ...c,
    exchanges: c.exchanges.map((e) => ({
      ...e,
      distilled: { core: CORES[e.key] ?? `${e.text.split('\n')[0]!.replace('User: ', '')}.`, context: '', rooms: [] },
    })),
  }));
  const embedded = embeddedFixture(distilled);

  test('bm25(v)+vec(d): the request first, its continuation right after it', async () => {
    const searcher = createSearcher(embedded.fx.reads, embedded.embedder);
    const vectors = await searcher.search({ text: 'nightly deploy workflow', mode: 'core/vector' });
    assert.equal(embedded.fx.keys.get(vectors.hits[0]!.exchangeId), 'continuation', 'the vectors alone rank the continuation first');
    const fused = await searcher.search({ text: 'nightly deploy workflow', mode: 'bm25(v)+vec(d)', fusion: 'weighted:0.8' });
    assert.deepEqual(fused.hits.slice(0, 2).map((h) => embedded.fx.keys.get(h.exchangeId)), ['request', 'continuation']);
  });
});
