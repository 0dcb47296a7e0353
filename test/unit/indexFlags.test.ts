import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { mock, test } from 'node:test';
import { main } from '../../src/cli';
import * as heap from '../../src/core/heap';
import { INDEX_COMPILE_FLAGS } from '../../src/indexFlags';
import { FIXTURES, tempDir } from './helpers';

test("the command line's index sets V8's compiler flags for its process, before its run compiles", async () => {
  const set = mock.method(heap, 'setFlagsFromString', () => undefined);
  try {
    const out: string[] = [];
    const code = await main(['index', '--root', FIXTURES, '--db', path.join(tempDir(), 'flags.sqlite'), '--quiet'], { out: (s) => out.push(s), err: (s) => out.push(s) });
    assert.equal(code, 0, out.join('\n'));
    assert.deepEqual(
      set.mock.calls.map((c) => c.arguments[0]),
      [INDEX_COMPILE_FLAGS],
    );
  } finally {
    set.mock.restore();
  }
});

test("the index run's compiler flags are V8's own (V8 ignores a flag it does not know, silently)", () => {
  const known = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  for (const flag of INDEX_COMPILE_FLAGS.split(' ')) assert.ok(known.includes(`  ${flag.replace(/=.*$/, '')} `), flag);
});
