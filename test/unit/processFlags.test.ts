import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { mock, test } from 'node:test';
import { main } from '../../src/cli';
import * as heap from '../../src/core/heap';
import { COMPILE_FLAGS } from '../../src/processFlags';
import { FIXTURES, tempDir } from './helpers';

const CODE_CACHE = path.join(__dirname, '../../src/codeCache.js');
const FLAGS = path.join(__dirname, '../../src/processFlags.js');

/** How a fresh process, with the server's flags set first or not, used the code kept for `file` in `cache`. */
function start(file: string, cache: string, withFlags: boolean): string {
  const script = `${withFlags ? `require(${JSON.stringify(FLAGS)}).setServerFlags();` : ''}
    const loaded = require(${JSON.stringify(CODE_CACHE)}).requireWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cache)});
    loaded.exports.run(); loaded.keep(); process.stdout.write(loaded.use);`;
  return execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
}

test("the MCP server's V8 flags, set before its bundle loads, leave its kept code readable at the next start", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'server-flags-'));
  try {
    const file = path.join(dir, 'bundle.js');
    writeFileSync(file, '"use strict";\nexports.run = () => [1, 2, 3].map((x) => x * 2).join();\n');
    const cache = path.join(dir, 'cache');
    assert.equal(start(file, cache, true), 'none');
    assert.equal(start(file, cache, true), 'read');
    // V8 checks kept code against the flags it was made under: a start that did not set them first would not read it
    assert.equal(start(file, cache, false), 'rejected');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the processes' compiler flags are V8's own (V8 ignores a flag it does not know, silently)", () => {
  const known = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  for (const flag of COMPILE_FLAGS.split(' ')) assert.ok(known.includes(`  ${flag.replace(/=.*$/, '')} `), flag);
});

test("the command line's index sets V8's compiler flags for its process, before its run compiles", async () => {
  const set = mock.method(heap, 'setFlagsFromString', () => undefined);
  try {
    const out: string[] = [];
    const code = await main(['index', '--root', FIXTURES, '--db', path.join(tempDir(), 'flags.sqlite'), '--quiet'], { out: (s) => out.push(s), err: (s) => out.push(s) });
    assert.equal(code, 0, out.join('\n'));
    assert.deepEqual(
      set.mock.calls.map((c) => c.arguments[0]),
      [COMPILE_FLAGS],
    );
  } finally {
    set.mock.restore();
  }
});
