import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ScopedMemory } from '../../src/mcp/scopedMemory';
import { createMcpServer } from '../../src/mcp/server';
import { openFixture } from './searchFixture';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test("the server's after-first-answer hook (where the launcher keeps V8's code) runs once, after the first tool's answer", async () => {
  const f = await openFixture();
  await f.store.close();
  const memory = await ScopedMemory.open(path.join(f.dir, 'recall.sqlite'));
  let runs = 0;
  const server = createMcpServer(memory, { redact: true }, '0.0.0', () => runs++);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const agent = new Client({ name: 'first-answer-test', version: '1.0.0' });
  try {
    await agent.connect(client);
    await agent.listTools();
    await turn();
    assert.equal(runs, 0, 'the handshake and the tools list are no answer of a tool');
    const first = await agent.callTool({ name: 'search', arguments: { query: 'login page null pointer' } });
    assert.ok(!first.isError);
    await turn();
    assert.equal(runs, 1);
    await agent.callTool({ name: 'recent', arguments: {} });
    await agent.callTool({ name: 'search', arguments: { query: 'deploy' } });
    await turn();
    assert.equal(runs, 1, 'once');
  } finally {
    await agent.close();
    await memory.close();
  }
});

test("the MCP server's modules load neither node:worker_threads nor node:v8 (it starts no worker and sets no flag: ~8 ms of a start)", () => {
  // in a fresh process: what requiring the server's command (and every module it imports) loaded of Node's own modules
  const loaded = (extra: string): string[] =>
    (
      JSON.parse(
        execFileSync(process.execPath, ['-e', `require(${JSON.stringify(path.resolve(__dirname, '../../src/mcp/command.js'))}); ${extra}; process.stdout.write(JSON.stringify(process.moduleLoadList))`], { encoding: 'utf8' }),
      ) as string[]
    ).filter((m) => /^NativeModule (worker_threads|v8)$/.test(m));
  assert.deepEqual(loaded(''), []);
  // the list does name them once they are loaded
  assert.deepEqual(loaded("require('node:worker_threads'); require('node:v8')").sort(), ['NativeModule v8', 'NativeModule worker_threads']);
});
