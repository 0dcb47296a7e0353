import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TimeSlice } from '../../src/core/timeSlice';

/** Whether a callback queued with setImmediate ran while `fn` awaited. */
async function letsTheLoopRun(fn: () => Promise<void>): Promise<boolean> {
  let ran = false;
  setImmediate(() => (ran = true));
  await fn();
  return ran;
}

test('a time slice gives the event loop back once it has run its time, and not before', async () => {
  assert.equal(await letsTheLoopRun(() => new TimeSlice(60_000).yieldIfDue()), false, 'a minute has not passed');
  assert.equal(await letsTheLoopRun(() => new TimeSlice(0).yieldIfDue()), true, 'a slice of 0 ms is always due');
  const slice = new TimeSlice(50);
  const until = performance.now() + 55;
  while (performance.now() < until); // 55 ms of work
  assert.equal(await letsTheLoopRun(() => slice.yieldIfDue()), true, 'due after 50 ms');
  assert.equal(await letsTheLoopRun(() => slice.yieldIfDue()), false, 'a new slice starts after the yield');
});

test('a time slice says it is due exactly when yieldIfDue would yield', async () => {
  assert.equal(new TimeSlice(60_000).due(), false);
  assert.equal(new TimeSlice(0).due(), true);
  const slice = new TimeSlice(50);
  assert.equal(slice.due(), false);
  const until = performance.now() + 55;
  while (performance.now() < until); // 55 ms of work
  assert.equal(slice.due(), true);
  await slice.yieldIfDue();
  assert.equal(slice.due(), false, 'a new slice starts after the yield');
});
