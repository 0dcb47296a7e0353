import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

// The offline distiller's hot per-exchange scans keep their optimised code in a thread (issue 41). V8 keeps a
// function's optimised code only while something that uses it lives: closures made at each exchange, and the objects
// they made, were gone at most of an index worker's full collections, and V8 compiled them again after each (5-7
// times a worker on the corpus: a fifth of its optimising compiler's time). A child Node, with V8's trace of its
// optimising compiler, distills varied exchanges with a full collection after every 300.

const CORE = path.join(__dirname, '../../src/core');

const CHILD = `
const { distillOffline } = require(${JSON.stringify(path.join(CORE, 'distill/offline.js'))});
const { englishRarity } = require(${JSON.stringify(path.join(CORE, 'distill/wordRarity.js'))});
const stats = englishRarity();
const topics = ['Session Middleware', 'rate limiting', 'Docker Desktop', 'retry_timeout', 'sessionStore', 'Nuxt config', 'cache eviction', 'Redis cluster'];
for (let round = 0; round < 12; round++) {
  for (let i = 0; i < 300; i++) {
    const a = topics[i % topics.length], b = topics[(i * 3 + round) % topics.length];
    const prompt = 'Why does the ' + a + ' fail when ' + b + ' is on? The ' + a + ' and ' + b + ' worked in v' + i + '.';
    const verbatim = 'User: ' + prompt + '\\nAssistant: The ' + a + ' reads the ' + b + ' before the ' + a + ' starts; moving the ' + b + ' check after it fixes item ' + i + ' of round ' + round + '. The ' + a + ' now waits for ' + b + '.';
    distillOffline({ n: i, exchangeId: 'x' + i, prompt, verbatim, filesTouched: [] }, stats);
  }
  global.gc();
}
`;

/** Optimising compilations by function (name and its SharedFunctionInfo: two functions may share a name). */
function compilations(trace: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of trace.matchAll(/\[completed compiling \S+ <JSFunction (\w+) \(sfi = (\w+)\)> \(target TURBOFAN\)/g)) {
    const key = `${m[1]} ${m[2]}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

test('the concept scan, the topic words and the search terms are optimised once a thread, not again after each full collection', () => {
  const run = spawnSync(process.execPath, ['--trace-opt', '--expose-gc', '-e', CHILD], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, run.stderr);
  const compiled = compilations(run.stdout);
  const scans = [...compiled].filter(([key]) => /^(?:count|countTopicWords|countTerms|keysOf|plainUses) /.test(key));
  // the scan is hot: V8 optimises it (else this test could not fail)
  assert.ok(scans.some(([key]) => key.startsWith('count ')), `no concept scan optimised: ${JSON.stringify([...compiled])}`);
  // before: each closure 9-12 times over the 12 collections
  for (const [key, times] of scans) assert.ok(times <= 2, `${key} optimised ${times} times: ${JSON.stringify(scans)}`);
});
