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

/** Callers of one slice at once (as mapLimited's are): the steps each turn of the event loop runs between two timers. */
async function stepsBetweenTimers(slice: TimeSlice, callers: number, steps: number, stepMs: number): Promise<number> {
  let sinceTick = 0;
  let most = 0;
  const ticker = setInterval(() => (sinceTick = 0), 1);
  const caller = async (): Promise<void> => {
    for (let i = 0; i < steps; i++) {
      await slice.yieldIfDue();
      const until = performance.now() + stepMs;
      while (performance.now() < until); // a step's work
      most = Math.max(most, ++sinceTick);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  clearInterval(ticker);
  return most;
}

test('callers sharing a time slice share its turns: one slice of work between two timers, not one each', async () => {
  // 10 ms slices of 3 ms steps: 4 steps a slice (the fourth starts at 9 ms). A yield lets timers run only from the
  // next turn on (the check phase comes before them), so two slices may run between two timers: 8 steps (a busy
  // machine: a few more); 8 callers each with a turn of their own ran 20-32
  const most = await stepsBetweenTimers(new TimeSlice(10), 8, 12, 3);
  assert.ok(most <= 12, `${most} steps ran between two timers`);
  assert.ok(most >= 2, `${most}: the steps of one slice run together`);
});

test('a slice of 0 ms shared by callers lets one step through a turn', async () => {
  assert.equal(await stepsBetweenTimers(new TimeSlice(0), 3, 3, 2), 1);
});
