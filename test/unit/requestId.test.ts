import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestIdScanner } from '../../src/mcp/requestId';

/** The id the scanner finds in `json`, fed in pieces of `piece` bytes (a pipe delivers any cut). */
function idOf(json: string, piece = 7): string | number | null {
  const bytes = Buffer.from(json);
  const s = new RequestIdScanner();
  for (let i = 0; i < bytes.length; i += piece) s.push(bytes.subarray(i, i + piece));
  return s.id;
}

test('finds the top-level id wherever it stands, as JSON.parse reads it', () => {
  const messages = [
    { jsonrpc: '2.0', id: 7, method: 'ping' },
    { method: 'tools/call', params: { name: 'search', arguments: { query: 'q', id: 'inner' } }, jsonrpc: '2.0', id: 'last' },
    { id: 'first', params: { nested: [{ id: 1 }, '"id":2', { deeper: { id: 3 } }] } },
    { 'id\u00e9': 1, params: { text: 'a "quoted" \\ backslash, {braces} [brackets], ids: "id":9, ünïcödé ✓' }, id: -12.5e3 },
    { id: 'a"b\\c\u2028' },
  ];
  for (const m of messages) {
    const json = JSON.stringify(m);
    for (const piece of [1, 3, 64, json.length]) assert.deepEqual(idOf(json, piece), JSON.parse(json).id, `${json} in pieces of ${piece}`);
  }
  // written with spaces and escapes, and given twice (the last one counts, as in JSON.parse)
  assert.equal(idOf(' { "\\u0069d" : "escaped" , "x" : { } } '), 'escaped');
  assert.equal(idOf('{"id":1,"id":"two"}'), 'two');
});

test('no id a client could match: null', () => {
  for (const json of [
    '{"jsonrpc":"2.0","method":"notify"}',
    '{"id":null}',
    '{"id":{"x":1}}',
    '{"id":[1]}',
    '{"id":true}',
    `{"id":"${'x'.repeat(100)}"}`,
    '[{"id":1}]',
    '"id"',
    'not json {"id":1}',
    '{"params":{"id":5}}',
  ]) {
    assert.equal(idOf(json), null, json);
  }
});

test('reads a long line in constant memory: a 12 MiB string value, then the id', () => {
  const big = Buffer.from(`{"params":{"q":"${'x'.repeat(12 * 1024 * 1024)}"},"id":"after-12MiB"}`);
  const s = new RequestIdScanner();
  for (let i = 0; i < big.length; i += 65536) s.push(big.subarray(i, i + 65536));
  assert.equal(s.id, 'after-12MiB');
});
