import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

/**
 * What the search's hot code makes keeps one kind whatever tier of V8 runs it (issue 42): TurboFan's inlined
 * `Array.prototype.map` makes holey arrays where the interpreter's makes packed ones, and code compiled for one kind
 * is thrown away at the other ("wrong map" deoptimisations, and compiles again). Run in a child process with V8's
 * natives syntax, to compile a function on demand and read its result's elements kind.
 */
function inV8(script: string): unknown {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test("fusion's one list comes back packed from optimised code as from the interpreter", () => {
  const fusion = require.resolve('../../src/core/search/fusion');
  const result = inV8(`
    const { fuse } = require(${JSON.stringify(fusion)});
    const list = { signal: 'bm25(verbatim)', mechanism: 'bm25', hits: [{ n: 1, score: 2.5 }, { n: 2, score: 1.5 }, { n: 3, score: 0.5 }] };
    const run = () => fuse([list], { kind: 'selective', weight: 0.8 });
    const interpreted = run();
    %PrepareFunctionForOptimization(fuse);
    run();
    %OptimizeFunctionOnNextCall(fuse);
    const optimised = run();
    console.log(JSON.stringify({
      optimised: (%GetOptimizationStatus(fuse) & 16) !== 0,
      holey: [%HasHoleyElements(interpreted), %HasHoleyElements(optimised)],
      sameMap: %HaveSameMap(interpreted, optimised),
    }));
  `);
  assert.deepEqual(result, { optimised: true, holey: [false, false], sameMap: true });
});
