#!/usr/bin/env node
// `npm run test:desktop`: the in-host suite (out/test/inhost) in desktop VS Code via @vscode/test-electron.
// It needs to download VS Code; where that is impossible (no network) it says so and exits 0.
// Not part of `npm test` or CI, which run the same suite in code-server (test/host/inhost.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { makeRunDir, ROOT } from './host/codeServer.mjs';
import { materializeFixture } from './host/fixture.mjs';

for (const argv of [['esbuild.mjs'], [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.']]) {
  const r = spawnSync(process.execPath, argv, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(1);
}

let vscodeExecutablePath;
try {
  vscodeExecutablePath = await Promise.race([
    downloadAndUnzipVSCode({ cachePath: join(ROOT, '.vscode-test'), timeout: 20_000 }),
    new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 90 s')), 90_000).unref()),
  ]);
} catch (err) {
  console.log(`test:desktop skipped: cannot download VS Code (${String(err.message ?? err).split('\n')[0]}).`);
  console.log('The same suite runs in code-server with `npm test`; run this where update.code.visualstudio.com is reachable.');
  process.exit(0);
}
if (process.platform === 'linux' && !process.env.DISPLAY) console.log('note: no $DISPLAY; on a headless Linux machine run it under xvfb-run');

const run = makeRunDir('desktop');
const fixture = materializeFixture(run.dir);
const results = join(run.dir, 'results.jsonl');
writeFileSync(results, '');
let code;
try {
  code = await runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: join(ROOT, 'out/test/inhost/index.js'),
    launchArgs: [fixture.workspace, '--disable-extensions', '--disable-workspace-trust', '--user-data-dir', join(run.dir, 'user')],
    extensionTestsEnv: { ...fixture.env, AGENT_RECALL_TEST_RESULTS: results },
  });
} catch (err) {
  console.error(`VS Code exited with an error: ${err.message ?? err}`);
  code = 1;
}
const recs = existsSync(results) ? readFileSync(results, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
for (const r of recs) if (r.type !== 'end') console.log(`  ${r.type === 'pass' ? '✓' : r.type === 'fail' ? '✗' : '-'} ${r.title}${r.error ? `\n${r.error}` : ''}`);
const passed = recs.filter((r) => r.type === 'pass').length;
const failed = recs.filter((r) => r.type === 'fail').length + (code !== 0 && !recs.some((r) => r.type === 'fail') ? 1 : 0);
run.cleanup();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
