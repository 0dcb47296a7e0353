import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSearcher } from '../../src/core/search/searcher';
import { WarmUpTurns } from '../../src/core/search/warmUpTurns';
import { type Fixture, openFixture } from './searchFixture';

/** Counts the searches the searcher starts (each asks for its excluded rows once), its own warm-up's included. */
function countSearches(fx: Fixture): { readonly started: number } {
  const counter = { started: 0 };
  const rowNumbersOf = fx.reads.rowNumbersOf.bind(fx.reads);
  fx.reads.rowNumbersOf = (ids) => {
    counter.started++;
    return rowNumbersOf(ids);
  };
  return counter;
}

async function untilStarted(counter: { readonly started: number }, n: number): Promise<void> {
  while (counter.started < n) await new Promise((resolve) => setImmediate(resolve));
}

test('a warm-up with turns starts no search while real ones run back to back: each meets at most the one already running', async () => {
  const fx = await openFixture();
  try {
    const searcher = createSearcher(fx.reads);
    const counter = countSearches(fx);
    const turns = new WarmUpTurns(100, 0);
    const warming = searcher.warm(turns);
    await untilStarted(counter, 1); // the first warm-up search is under way as the first call arrives
    const before = counter.started;
    const calls = 9;
    for (let i = 0; i < calls; i++) await turns.during(() => searcher.search({ text: 'login error' }));
    assert.equal(counter.started - before - calls, 0, 'warm-up searches started beside the calls');
    await warming;
    assert.equal(counter.started, calls + 9, 'the warm-up ran all its searches once the calls had ended');
  } finally {
    await fx.store.close();
  }
});

test('a warm-up stops once enough real calls have ended, and waits for the quiet time after one', async () => {
  const fx = await openFixture();
  try {
    const searcher = createSearcher(fx.reads);
    const counter = countSearches(fx);
    const turns = new WarmUpTurns(2, 40);
    await turns.during(() => searcher.search({ text: 'login error' }));
    const ended = performance.now();
    const warming = searcher.warm(turns);
    await untilStarted(counter, 2);
    assert.ok(performance.now() - ended >= 39, 'no warm-up search within the quiet time after a call');
    await turns.during(() => searcher.search({ text: 'parser' }));
    const afterCalls = counter.started;
    await warming;
    assert.equal(counter.started, afterCalls, 'no warm-up search after the second call');
  } finally {
    await fx.store.close();
  }
});
