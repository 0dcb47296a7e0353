import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_LINE_BYTES } from '../../src/mcp/lineTransport';
import { RawSession, type Reply } from './mcpClient';
import { openFixture } from './searchFixture';

/**
 * The MCP server's JSON-RPC framing under what no well-behaved client sends, written line by line to a real
 * `agent-recall mcp` process: every line gets its answer (JSON-RPC 2.0 error codes), and the server goes on
 * serving the lines after it.
 */

const MiB = 1024 * 1024;

const call = (id: string | number, args: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search', arguments: args } });

/** Serves after whatever came before: a ping gets its empty result. */
async function stillServes(s: RawSession, id: string): Promise<void> {
  s.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
  assert.deepEqual((await s.reply(id)).result, {});
}

function errorOf(r: Reply): { code: number; message: string } {
  assert.ok(r.error, `expected an error reply, got ${JSON.stringify(r).slice(0, 300)}`);
  return r.error;
}

describe('agent-recall mcp answers every line', () => {
  let db: string;
  let s: RawSession;

  before(async () => {
    const f = await openFixture();
    await f.store.close();
    db = path.join(f.dir, 'recall.sqlite');
    s = await RawSession.start(['--db', db]);
  });
  after(() => s.kill());

  test('a line that is not JSON gets -32700 (Parse error) with a null id', async () => {
    s.write('{"jsonrpc":"2.0","id":1,"method":"ping"');
    const r = await s.reply(null);
    assert.equal(errorOf(r).code, -32700);
    assert.match(errorOf(r).message, /not JSON/);
    await stillServes(s, 'after-parse-error');
  });

  test('a line with an id that is no valid request gets -32600 (Invalid Request) to that id', async () => {
    const cases: Array<[string, string | number, RegExp]> = [
      ['{"jsonrpc":"2.0","id":11}', 11, /needs a "method"/],
      ['{"jsonrpc":"2.0","id":12,"method":5}', 12, /"method" must be a string/],
      ['{"jsonrpc":"1.0","id":"v1","method":"ping"}', 'v1', /"jsonrpc" must be "2.0"/],
      ['{"jsonrpc":"2.0","id":14,"method":"tools/call","params":[]}', 14, /"params" must be an object, not an array/],
      ['{"jsonrpc":"2.0","id":15,"method":"ping","extra":true}', 15, /unexpected member "extra"/],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 1.5, /"id" must be a string or an integer/],
    ];
    for (const [line, id, message] of cases) {
      s.write(line);
      const e = errorOf(await s.reply(id));
      assert.equal(e.code, -32600, line);
      assert.match(e.message, message, line);
    }
    await stillServes(s, 'after-invalid');
  });

  test('an invalid line without a usable id gets -32600 with a null id', async () => {
    const before = s.replies.filter((r) => r.id === null).length;
    for (const line of ['[]', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '42', '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}']) s.write(line);
    const replies = await Promise.all([0, 1, 2, 3].map((i) => s.reply(null, before + i)));
    assert.deepEqual(replies.map((r) => errorOf(r).code), [-32600, -32600, -32600, -32600]);
    assert.match(errorOf(replies[0]!).message, /batches are not supported/);
    await stillServes(s, 'after-null-ids');
  });

  test('tools/call with arguments that are no object gets -32602 (Invalid params) in words, not a zod dump', async () => {
    for (const [id, args, kind] of [['args-array', [], 'an array'], ['args-null', null, 'null'], ['args-string', 'login', 'a string']] as const) {
      s.write(call(id, args));
      const e = errorOf(await s.reply(id));
      assert.equal(e.code, -32602);
      assert.equal(e.message, `Invalid params for tools/call: arguments must be an object, not ${kind}.`);
    }
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 'list-cursor', method: 'tools/list', params: { cursor: 5 } }));
    assert.equal(errorOf(await s.reply('list-cursor')).message, 'Invalid params for tools/list: cursor must be a string, not a number.');
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 'no-name', method: 'tools/call', params: { arguments: {} } }));
    assert.equal(errorOf(await s.reply('no-name')).message, 'Invalid params for tools/call: name is missing (a string).');
    // arguments that are an object reach the tool, whose own checks answer as before
    s.write(call('good', { query: 'login' }));
    assert.ok((await s.reply('good')).result?.['content']);
  });

  test(`a line over the limit (${MAX_LINE_BYTES / MiB} MiB) gets -32600 to its id, and the server goes on with the requests around it`, async () => {
    // a search in flight when the long line comes, and a request right behind it in the same write
    s.write(call('before-long', { query: 'login page' }));
    // the SDK's client writes the id last ({method, params, jsonrpc, id}); keys named id inside params are not it
    const long = `{"method":"tools/call","params":{"name":"search","arguments":{"query":"${'x'.repeat(12 * MiB)}","id":"inner"}},"jsonrpc":"2.0","id":"long"}`;
    s.write(`${long}\n${JSON.stringify({ jsonrpc: '2.0', id: 'after-long', method: 'ping' })}`);
    const e = errorOf(await s.reply('long'));
    assert.equal(e.code, -32600);
    assert.match(e.message, new RegExp(`^Request too large: ${Buffer.byteLength(long)} bytes on one line, more than the ${MAX_LINE_BYTES} bytes`));
    assert.ok((await s.reply('before-long')).result?.['content'], 'the request in flight is answered');
    assert.deepEqual((await s.reply('after-long')).result, {});
    assert.equal(s.replies.filter((r) => r.id === 'inner').length, 0);
    assert.match(s.stderr, /Request too large/);
    // the id first (a hand-written client), a string id with escapes, and a long line that is no object
    s.write(`{"jsonrpc":"2.0","id":"a\\"b","method":"ping","params":{"pad":"${'y'.repeat(2 * MiB)}"}}`);
    assert.equal(errorOf(await s.reply('a"b')).code, -32600);
    const nulls = s.replies.filter((r) => r.id === null).length;
    s.write(`"${'z'.repeat(2 * MiB)}"`);
    assert.match(errorOf(await s.reply(null, nulls)).message, /^Request too large/);
    await stillServes(s, 'after-long-lines');
  });

  test('a line just within the limit is served', async () => {
    const head = '{"jsonrpc":"2.0","id":"edge","method":"ping","params":{"_meta":{"pad":"';
    const tail = '"}}}';
    s.write(head + 'p'.repeat(MAX_LINE_BYTES - head.length - tail.length) + tail);
    assert.deepEqual((await s.reply('edge')).result, {});
  });
});

describe('agent-recall mcp at the end of its input', () => {
  test('answers the requests it has read, then exits 0', async () => {
    const f = await openFixture();
    await f.store.close();
    const s = await RawSession.start(['--db', path.join(f.dir, 'recall.sqlite')]);
    // a client that writes its calls and closes its end at once (a shell pipe, a script)
    s.write(call('q1', { query: 'login' }));
    s.write(call('q2', { query: 'database migration' }));
    s.write('{"jsonrpc":"2.0","id":"q3"');
    s.end();
    assert.equal(await s.exited, 0);
    assert.ok(s.replies.find((r) => r.id === 'q1')?.result?.['content'], JSON.stringify(s.replies).slice(0, 500));
    assert.ok(s.replies.find((r) => r.id === 'q2')?.result?.['content']);
    assert.equal(s.replies.find((r) => r.id === null)?.error?.code, -32700);
  });
});
