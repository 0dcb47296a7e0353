import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MadeInSteps, TimeSlice } from '../../src/core/timeSlice';

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

/** Three steps making [1, 2, 3]; `fail` makes the second step throw (once). */
function* counted(log: number[], fail: { once: boolean }): Generator<void, number[]> {
  log.push(1);
  yield;
  if (fail.once) {
    fail.once = false;
    throw new Error('step failed');
  }
  log.push(2);
  yield;
  log.push(3);
  return [...log];
}

test('MadeInSteps: made ahead with turns between steps, or the rest at once when asked meanwhile; one value', async () => {
  const log: number[] = [];
  const made = new MadeInSteps(() => counted(log, { once: false }), 0);
  const ahead = made.ahead();
  await new Promise<void>((resolve) => setImmediate(resolve)); // a step or two made ahead, then the rest at once
  const now = made.now();
  assert.deepEqual(now, [1, 2, 3], 'the steps were run once, not again from the start');
  assert.equal(await ahead, now, 'ahead gives the value now made');
  assert.equal(made.give([9]), false, 'a value made is not replaced');
});

test('MadeInSteps: a step that throws fails that call, and the next starts again', async () => {
  const log: number[] = [];
  const fail = { once: true };
  const made = new MadeInSteps(() => counted(log.splice(0), fail), 0);
  await assert.rejects(made.ahead(), /step failed/);
  assert.deepEqual(await made.ahead(), [1, 2, 3]);
  const given = new MadeInSteps(() => counted([], { once: false }));
  assert.equal(given.give([7]), true);
  assert.deepEqual(given.now(), [7], 'a value given is not made');
});
