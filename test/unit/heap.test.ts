import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { collectGarbage } from '../../src/core/heap';

test('collectGarbage frees what nothing holds, and gives no other context gc()', () => {
  let garbage: Array<{ n: number; text: string }> | undefined = Array.from({ length: 200_000 }, (_, n) => ({ n, text: `row ${n}` }));
  const held = getHeapStatistics().used_heap_size;
  assert.equal(garbage.length, 200_000);
  garbage = undefined;
  collectGarbage();
  const freed = (held - getHeapStatistics().used_heap_size) / 2 ** 20;
  assert.ok(freed > 5, `${freed.toFixed(1)} MB freed`);
  assert.equal(runInNewContext('typeof gc'), 'undefined');
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
