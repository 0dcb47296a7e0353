import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressPace } from '../../src/host/progressPace';

// A first index of 12,000 transcripts reported each one to the views (issue 41's 1 GB history): hundreds of Index
// view refreshes a second through the extension host's channel.

test("a phase's first and last progress are reported, and at most one per interval between, with what was done since", () => {
  const pace = new ProgressPace(100);
  const reported: Array<[number, number]> = [];
  // 12,000 sources parsed in 3 s: one every 0.25 ms
  for (let done = 1; done <= 12_000; done++) {
    const r = pace.next({ phase: 'parse', done, total: 12_000 }, done * 0.25);
    if (r) reported.push([done, r.increment]);
  }
  assert.ok(reported.length >= 30 && reported.length <= 32, `${reported.length} reports`);
  assert.deepEqual(reported[0], [1, 100 / 12_000], 'the first at once');
  assert.equal(reported.at(-1)![0], 12_000, 'the last one');
  const sum = reported.reduce((a, [, inc]) => a + inc, 0);
  assert.ok(Math.abs(sum - 100) < 1e-9, `the bar fills to 100 % (${sum})`);
  assert.ok(pace.next({ phase: 'distill', done: 0, total: 500 }, 3_000.1), 'a new phase is reported at once');
  assert.equal(pace.next({ phase: 'distill', done: 200, total: 500 }, 3_050), undefined);
});
