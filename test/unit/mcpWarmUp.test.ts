import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { WARM_UP_QUERIES } from '../../src/core/search/warmUpQueries';
import { searchAsked } from '../../src/mcp/schemas';
import { WARM_UP_OWN_QUERIES } from '../../src/core/search/warmUp';
import { ScopedMemory } from '../../src/mcp/scopedMemory';
import { createMcpServer, IDLE_BEFORE_WARM_UP_MS } from '../../src/mcp/server';
import { MemoryTools, type ToolAnswer } from '../../src/mcp/tools';
import { CONVERSATIONS, openFixture, type FixtureConversation } from './searchFixture';

const QUERIES = ['login page null pointer', 'deploy', 'parser error', 'retry limit'];

async function fixtureFile(): Promise<string> {
  const f = await openFixture();
  await f.store.close();
  return path.join(f.dir, 'recall.sqlite');
}

/** A fresh server's memory and search tool over `file`, as `agent-recall mcp` makes them. */
async function served(file: string): Promise<{ memory: ScopedMemory; tools: MemoryTools }> {
  const memory = await ScopedMemory.open(file);
  return { memory, tools: new MemoryTools(memory, { redact: true }) };
}

const untilTrue = async (ok: () => boolean): Promise<void> => {
  while (!ok()) await new Promise((resolve) => setTimeout(resolve, 5));
};

test("the server's warm-up asks the search tool its warm-up queries and the starts of the newest prompts, and changes no answer", async () => {
  const file = await fixtureFile();
  const cold = await served(file);
  const warm = await served(file);
  try {
    const before: ToolAnswer[] = [];
    for (const q of QUERIES) before.push(await cold.tools.search(searchAsked(q)));
    await warm.tools.search(searchAsked(QUERIES[0]!));
    const warmedWith: string[] = [];
    await warm.tools.warmUp((a) => warmedWith.push(a.text));
    const newest = (await warm.memory.recent(16)).filter((e) => e.prompt.trim());
    assert.ok(newest.length > 3);
    assert.equal(warmedWith.length, WARM_UP_QUERIES.length + newest.length);
    const asked = newest[0]!.prompt.split(/\s+/u).filter(Boolean).slice(0, 8).join(' ');
    assert.ok(warmedWith.some((t) => t.includes(`"${asked}"`)), `the newest prompt's start (${asked}) was asked`);
    const after: ToolAnswer[] = [];
    for (const q of QUERIES) after.push(await warm.tools.search(searchAsked(q)));
    assert.deepEqual(after, before);
  } finally {
    await cold.memory.close();
    await warm.memory.close();
  }
});

test("the server's warm-up asks each of the newest prompts' starts once, far more of them than a handful", async () => {
  // 60 exchanges newer than the fixture's, every third one asking what the one before it asked
  const topics = ['cache', 'parser', 'deploy', 'router', 'schema', 'logger', 'worker', 'bundle', 'session', 'migration'];
  const busy: FixtureConversation = {
    file: 'busy-session.jsonl',
    agent: 'claude-code',
    project: '/p/busy',
    exchanges: Array.from({ length: 60 }, (_, i) => {
      const n = i % 3 === 2 ? i - 1 : i;
      return {
        key: `b${i}`,
        text: `User: look at the ${topics[n % topics.length]} step ${n} of the release\nAssistant: Looked at step ${n}.`,
        startedAt: new Date(Date.UTC(2025, 5, 1, 0, i)).toISOString(),
      };
    }),
  };
  const f = await openFixture([...CONVERSATIONS, busy]);
  await f.store.close();
  const { memory, tools } = await served(path.join(f.dir, 'recall.sqlite'));
  try {
    const asked: string[] = [];
    await tools.warmUp((a) => asked.push(/"([^"]*)"/.exec(a.text)![1]!));
    const newest = await memory.recent(WARM_UP_OWN_QUERIES);
    const starts = new Set(newest.map((e) => e.prompt.split(/\s+/u).filter(Boolean).slice(0, 8).join(' ')));
    assert.ok(newest.length > 16 && starts.size < newest.length);
    assert.equal(asked.length, new Set(asked).size, 'no query asked twice');
    assert.deepEqual(new Set(asked), new Set([...WARM_UP_QUERIES, ...starts]));
  } finally {
    await memory.close();
  }
});

test("the server's warm-up gives way to calls back to back, and stops once enough calls have ended", async () => {
  const { memory, tools } = await served(await fixtureFile());
  try {
    await tools.search(searchAsked(QUERIES[0]!));
    let warmed = 0;
    const warming = tools.warmUp(() => warmed++);
    await untilTrue(() => warmed >= 2); // under way when the calls come
    const atCalls = warmed;
    for (let i = 0; i < 8; i++) await tools.search(searchAsked(QUERIES[i % QUERIES.length]!));
    assert.ok(warmed - atCalls <= 1, `${warmed - atCalls} warm-up searches beside 8 calls (at most the one already running)`);
    const atEnd = warmed;
    await warming;
    assert.equal(warmed, atEnd, 'none after the ninth call');
    assert.ok(warmed < WARM_UP_QUERIES.length, 'the warm-up stopped before its end');
  } finally {
    await memory.close();
  }
});

/** A server over the fixture whose warm-up starts are counted, and a client connected to it (the handshake done). */
async function countingServer(): Promise<{ agent: Client; memory: ScopedMemory; started: () => number }> {
  const memory = await ScopedMemory.open(await fixtureFile());
  let started = 0;
  const warmUp = memory.warmUp.bind(memory);
  memory.warmUp = (search) => {
    started++;
    return warmUp(search);
  };
  const server = createMcpServer(memory, { redact: true }, '0.0.0');
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const agent = new Client({ name: 'warm-up-test', version: '1.0.0' });
  await agent.connect(client);
  return { agent, memory, started: () => started };
}

test("a server called at once starts its warm-up once, after the first tool's answer", async () => {
  const { agent, memory, started } = await countingServer();
  try {
    await agent.listTools();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(started(), 0, 'no warm-up before a tool has answered');
    await agent.callTool({ name: 'recent', arguments: {} });
    assert.equal(started(), 0, 'the first answer met no warm-up');
    await untilTrue(() => started() > 0);
    await agent.callTool({ name: 'search', arguments: { query: 'deploy' } });
    await new Promise((resolve) => setTimeout(resolve, IDLE_BEFORE_WARM_UP_MS + 50));
    assert.equal(started(), 1, 'once');
  } finally {
    await agent.close();
    await memory.close();
  }
});

test('a server left idle after its handshake warms itself up before any call, once', async () => {
  const { agent, memory, started } = await countingServer();
  try {
    const connected = performance.now();
    await untilTrue(() => started() > 0);
    assert.ok(performance.now() - connected >= IDLE_BEFORE_WARM_UP_MS / 2, 'not before the idle time');
    const first = await agent.callTool({ name: 'search', arguments: { query: 'login page null pointer' } });
    assert.ok(!first.isError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(started(), 1, 'the first answer starts no second warm-up');
  } finally {
    await agent.close();
    await memory.close();
  }
});
