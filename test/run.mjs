#!/usr/bin/env node
// The one entry of `npm test`: build, then run each test layer, then print ONE closing line
// `N passed, N failed` over all layers. Exits non-zero when anything failed or could not run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function unitLayer() {
  const dir = join(root, 'out/test/unit');
  const files = readdirSync(dir).filter((f) => f.endsWith('.test.js')).map((f) => join(dir, f));
  const tmp = mkdtempSync(join(tmpdir(), 'recall-unit-'));
  const tap = join(tmp, 'unit.tap');
  const r = spawnSync(
    process.execPath,
    ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
    { cwd: root, stdio: 'inherit', env: { ...process.env, RECALL_TEST_TMP: tmp } },
  );
  const text = readFileSync(tap, 'utf8');
  const count = (k) => Number(/^# (\w+) (\d+)$/m.test(text) ? (text.match(new RegExp(`^# ${k} (\\d+)$`, 'm'))?.[1] ?? 0) : 0);
  rmSync(tmp, { recursive: true, force: true });
  return { passed: count('pass'), failed: count('fail') + count('cancelled') + (r.status !== 0 && count('fail') === 0 ? 1 : 0) };
}

const layers = [{ name: 'unit', run: unitLayer }];

let passed = 0;
let failed = 0;
try {
  sh(process.execPath, ['esbuild.mjs']);
  sh(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.']);
} catch (err) {
  console.error(`build failed: ${err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
for (const layer of layers) {
  if (only && layer.name !== only) continue;
  try {
    const r = layer.run();
    console.log(`[${layer.name}] ${r.passed} passed, ${r.failed} failed`);
    passed += r.passed;
    failed += r.failed;
  } catch (err) {
    console.error(`[${layer.name}] could not run: ${err.message}`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
