import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { WARM_UP_OWN_QUERIES, WARM_UP_QUIET_MS, warmUpTexts } from '../../src/core/search/warmUp';
import type { SearchQuery } from '../../src/core/search/types';
import { searchForAgent } from '../../src/host/agentAnswers';
import { type MemorySource, ToolWarmUp } from '../../src/host/toolWarmUp';
import { openFixture } from './searchFixture';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const untilTrue = async (ok: () => boolean): Promise<void> => {
  while (!ok()) await sleep(5);
};

/** The fixture's store opened as the extension host opens its own, every search's text recorded in `asked`. */
async function hostMemory(): Promise<{ memory: Memory; source: MemorySource; asked: string[] }> {
  const f = await openFixture();
  await f.store.close();
  const memory = await Memory.open(path.join(f.dir, 'recall.sqlite'), { check: 'background' });
  const asked: string[] = [];
  const search = memory.search.bind(memory);
  memory.search = (query: SearchQuery, embedding) => {
    asked.push(query.text ?? '');
    return search(query, embedding);
  };
  return { memory, source: { memory: async () => memory, embedding: async () => ({}) }, asked };
}

test("the host tools' warm-up waits for the index run under way, asks the tool's path every warm-up text once, and runs do not end it", async () => {
  const { memory, source, asked } = await hostMemory();
  try {
    const warmUp = new ToolWarmUp(source);
    // runs that ended before it: more than enough calls would be, had they counted as calls
    for (let i = 0; i < 12; i++) await warmUp.indexing(() => sleep(1));
    let endRun!: () => void;
    const run = warmUp.indexing(() => new Promise<void>((resolve) => (endRun = resolve)));
    const warming = warmUp.afterRun();
    await sleep(WARM_UP_QUIET_MS + 150);
    assert.deepEqual(asked, [], 'no warm-up search while an index run is under way');
    endRun();
    await run;
    await warming;
    const searches = await warmUp.start();
    const expected = warmUpTexts((await memory.recent(WARM_UP_OWN_QUERIES)).map((e) => e.prompt));
    assert.ok(expected.length > 9, 'the newest prompts too');
    assert.equal(searches, expected.length);
    assert.deepEqual(asked, expected, 'each once, in order, through the search tool (a query asked as the tool asks it)');
  } finally {
    await memory.close();
  }
});

test("the host tools' warm-up gives way to the user's searches back to back, and stops cleanly when told", async () => {
  const { memory, source, asked } = await hostMemory();
  try {
    const warmUp = new ToolWarmUp(source);
    const warming = warmUp.start();
    await untilTrue(() => asked.length >= 2); // under way when the calls come
    const atCalls = asked.length;
    const calls = 5;
    for (let i = 0; i < calls; i++) await warmUp.searching(() => searchForAgent(memory, {}, { query: `login page null pointer ${i}` }));
    assert.ok(asked.length - atCalls - calls <= 1, `${asked.length - atCalls - calls} warm-up searches beside ${calls} calls (at most the one already running)`);
    await untilTrue(() => asked.length > atCalls + calls + 1); // the warm-up goes on once the calls have stopped
    await warmUp.stop();
    const atStop = asked.length;
    const searches = await warming;
    await sleep(WARM_UP_QUIET_MS + 100);
    assert.equal(asked.length, atStop, 'no search after the stop');
    assert.equal(searches, atStop - calls, 'the search under way at the stop ended before stop resolved');
    assert.ok(searches < warmUpTexts((await memory.recent(WARM_UP_OWN_QUERIES)).map((e) => e.prompt)).length, 'stopped before its end');
  } finally {
    await memory.close();
  }
});

test("after a change of scope the host tools' warm-up starts again on the next run's end, on the store then open, its calls counted afresh; after dispose, never", async () => {
  const first = await hostMemory();
  const second = await hostMemory();
  let open = first;
  const source: MemorySource = { memory: async () => open.memory, embedding: async () => ({}) };
  try {
    const warmUp = new ToolWarmUp(source);
    await warmUp.afterRun();
    // enough calls of the user's that the first store's warm-up ends by itself
    for (let i = 0; i < 12; i++) await warmUp.searching(() => searchForAgent(open.memory, {}, { query: `login page null pointer ${i}` }));
    await warmUp.start();
    // the scope changes: IndexService.openScope stops the warm-up, opens the other store, and its first run ends
    await warmUp.stop();
    open = second;
    const runEnded = warmUp.indexing(() => sleep(1));
    await runEnded;
    await warmUp.afterRun();
    const searches = await warmUp.start();
    const expected = warmUpTexts((await second.memory.recent(WARM_UP_OWN_QUERIES)).map((e) => e.prompt));
    assert.equal(searches, expected.length, 'the warm-up ran again, whole, on the new scope');
    assert.deepEqual(second.asked, expected, "the new store's own newest prompts");
    // the extension ends: no warm-up after that, whatever run ends later
    await warmUp.dispose();
    const asked = second.asked.length;
    await warmUp.afterRun();
    assert.equal(await warmUp.start(), 0);
    await sleep(WARM_UP_QUIET_MS + 100);
    assert.equal(second.asked.length, asked, 'no search after dispose');
  } finally {
    await first.memory.close();
    await second.memory.close();
  }
});
