import assert from 'node:assert/strict';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LineTransport, MAX_LINE_BYTES } from '../../src/mcp/lineTransport';
import { ScopedMemory } from '../../src/mcp/scopedMemory';
import { createMcpServer } from '../../src/mcp/server';
import { openFixture } from './searchFixture';

/**
 * The MCP server reads and answers the client's handshake while its store opens (command.ts): the tools wait for
 * the store, and nothing is written to the client before the store is open, nor ever when it fails to open.
 */

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test('the handshake and the tools list are answered while the store opens; a tool call waits for it', async () => {
  const f = await openFixture();
  await f.store.close();
  const opening = deferred<ScopedMemory>();
  const server = createMcpServer(opening.promise, { redact: true }, '0.0.0');
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const agent = new Client({ name: 'opening-test', version: '1.0.0' });
  let memory: ScopedMemory | undefined;
  try {
    await agent.connect(client);
    assert.deepEqual((await agent.listTools()).tools.map((t) => t.name).sort(), ['file_history', 'read_exchange', 'recent', 'search']);
    let answered = false;
    const call = agent.callTool({ name: 'recent', arguments: {} }).finally(() => (answered = true));
    await turns();
    assert.equal(answered, false, 'the call waits for the store');
    memory = await ScopedMemory.open(path.join(f.dir, 'recall.sqlite'));
    opening.resolve(memory);
    const result = (await call) as { isError?: boolean; structuredContent?: { items?: unknown[] } };
    assert.ok(!result.isError);
    assert.ok((result.structuredContent?.items?.length ?? 0) > 0);
  } finally {
    await agent.close();
    await memory?.close();
  }
});

/** A transport over in-memory streams whose output may be written once `writable` settles; what it wrote, line by line. */
async function heldTransport(writable: Promise<unknown>): Promise<{ input: PassThrough; transport: LineTransport; lines: () => string[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString()));
  const transport = new LineTransport(input, output, MAX_LINE_BYTES, writable);
  transport.onmessage = () => undefined;
  await transport.start();
  return { input, transport, lines: () => written.split('\n').filter(Boolean) };
}

test('the transport writes nothing before its output may be written, then every line in order', async () => {
  const ready = deferred<void>();
  const { input, transport, lines } = await heldTransport(ready.promise);
  input.write('not json\n');
  const sent = transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  await turns();
  assert.deepEqual(lines(), [], 'held');
  ready.resolve();
  await sent;
  await turns();
  assert.deepEqual(
    lines().map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } }).map((m) => [m.id, m.error?.code ?? 'result']),
    [
      [null, -32700],
      [1, 'result'],
    ],
  );
});

test('the transport writes nothing at all when its output may never be written (a store that failed to open)', async () => {
  const ready = deferred<void>();
  const { input, transport, lines } = await heldTransport(ready.promise);
  input.write('not json\n');
  let settled = false;
  void transport.send({ jsonrpc: '2.0', id: 1, result: {} }).finally(() => (settled = true));
  ready.reject(new Error('no store'));
  await turns();
  assert.deepEqual(lines(), []);
  assert.equal(settled, false, 'a send never settles, so the SDK reports no failed write');
});
