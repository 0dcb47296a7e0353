import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { segmentConversation } from '../../src/core/segment';
import { conversation, msg, resetLines } from './helpers';

const opts = { minChars: 100, maxPlies: 20 };
const long = (s: string): string => `${s} ${'because the cart total was computed before the discount was applied '.repeat(2)}`;

beforeEach(resetLines);

test('a prompt after a substantive reply starts a new exchange; tool round-trips never split', () => {
  const conv = conversation([
    msg('prompt', long('Fix the cart total')),
    msg('reply', '', { toolCalls: [{ id: 't1', name: 'Read', input: { file_path: '/home/dev/shop/src/cart.ts' } }] }),
    msg('tool-results', '', { toolResults: [{ toolUseId: 't1', text: 'export function total() {}', isError: false }] }),
    msg('reply', 'Fixed: the discount is now applied before the total.'),
    msg('prompt', long('Now add a test for it')),
    msg('reply', 'Added tests/cart.test.ts covering the discount.'),
  ]);
  const { exchanges, dropped } = segmentConversation(conv, opts);
  assert.equal(exchanges.length, 2);
  assert.equal(dropped.length, 0);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd]),
    [
      [1, 4],
      [5, 6],
    ],
  );
  assert.match(exchanges[0]!.verbatim, /^User: Fix the cart total/);
  assert.match(exchanges[0]!.verbatim, /\[tool\] Read \/home\/dev\/shop\/src\/cart.ts/);
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/cart.ts', how: 'read' }]);
});

test('a prompt while the reply so far is tool calls only stays in the same exchange', () => {
  const conv = conversation([
    msg('prompt', long('Run the migrations')),
    msg('reply', '', { toolCalls: [{ id: 't1', name: 'Bash', input: { command: 'npm run migrate' } }] }),
    msg('prompt', 'also seed the database please'),
    msg('reply', 'Migrations ran and the seed data is loaded.'),
  ]);
  const { exchanges } = segmentConversation(conv, opts);
  assert.equal(exchanges.length, 1);
  assert.equal(exchanges[0]!.prompt, `${long('Run the migrations').trim()}\n\nalso seed the database please`);
});

test('exchanges under minChars are dropped and account for their prompt lines', () => {
  const conv = conversation([msg('prompt', 'hi'), msg('reply', 'Hello!'), msg('prompt', long('Explain the cache')), msg('reply', 'It is an LRU.')]);
  const { exchanges, dropped } = segmentConversation(conv, opts);
  assert.equal(exchanges.length, 1);
  assert.deepEqual(dropped, [{ lineStart: 1, lineEnd: 2, byteStart: 0, promptLines: [1] }]);
});

test('exchanges over maxPlies replies are split at fixed intervals after complete round-trips', () => {
  const messages = [msg('prompt', long('Refactor every module'))];
  for (let i = 0; i < 45; i++) {
    messages.push(msg('reply', `Step ${i}: editing module ${i} to use the new logger interface consistently.`, {
      toolCalls: [{ id: `t${i}`, name: 'Edit', input: { file_path: `src/m${i}.ts` } }],
    }));
    messages.push(msg('tool-results', '', { toolResults: [{ toolUseId: `t${i}`, text: 'ok', isError: false }] }));
  }
  const { exchanges } = segmentConversation(conversation(messages), opts);
  assert.deepEqual(exchanges.map((e) => e.part), [0, 1, 2]);
  assert.deepEqual(exchanges.map((e) => [e.plyStart, e.plyEnd]), [[0, 19], [20, 39], [40, 44]]);
  // each piece ends with the tool result of its last reply; pieces tile the lines without overlap
  assert.equal(exchanges[0]!.lineEnd + 1, exchanges[1]!.lineStart);
  assert.equal(exchanges[1]!.lineEnd + 1, exchanges[2]!.lineStart);
  assert.equal(exchanges[1]!.prompt, '');
  assert.equal(new Set(exchanges.map((e) => e.id)).size, 3);
});

test('ids are stable for the same input and come from message uuids when present', () => {
  const make = (): ReturnType<typeof conversation> => {
    resetLines();
    return conversation([msg('prompt', long('Why is login slow'), { uuid: 'u-1' }), msg('reply', 'The bcrypt cost was 14.')]);
  };
  const a = segmentConversation(make(), opts).exchanges[0]!;
  const b = segmentConversation({ ...make(), sourceFile: '/elsewhere/replay.jsonl' }, opts).exchanges[0]!;
  assert.equal(a.id, b.id, 'a replay of the same uuid in another file maps to the same exchange');
  resetLines();
  const c = segmentConversation(conversation([msg('prompt', long('Why is login slow')), msg('reply', 'The bcrypt cost was 14.')]), opts);
  assert.notEqual(c.exchanges[0]!.id, a.id);
});

test('tool output is truncated with a visible marker, prompts never are', () => {
  const huge = 'x'.repeat(5000);
  const conv = conversation([
    msg('prompt', long(`Look at this log ${huge}`)),
    msg('reply', '', { toolCalls: [{ id: 't', name: 'Bash', input: { command: 'cat big.log' } }] }),
    msg('tool-results', '', { toolResults: [{ toolUseId: 't', text: huge, isError: false }] }),
    msg('reply', 'The log shows a timeout.'),
  ]);
  const v = segmentConversation(conv, opts).exchanges[0]!.verbatim;
  assert.ok(v.includes(huge), 'prompt kept whole');
  assert.match(v, /\[result\] x{600}… \[4400 more chars\]/);
});
