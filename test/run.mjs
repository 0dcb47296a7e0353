#!/usr/bin/env node
// The one entry of `npm test`: build, then run each test layer, then print ONE closing line
// `N passed, N failed` over all layers. Exits non-zero when anything failed or a layer could not run.
//   lint     ESLint over src/ and webview/: the layer rules of eslint.config.mjs, at error level
//   unit     node --test over out/test/unit/*.test.js (plain Node, temp databases)
//   inhost   mocha suite out/test/inhost/ inside code-server's extension host (fixture workspace)
//   ui       Playwright + Chromium on the workbench, with the packaged .vsix installed
//   package  node --test over out/test/package/: the npm package packed, installed from its tarball into an
//            empty folder (@vscode/sqlite3 compiles there: minutes), its MCP server driven by the SDK's client
// Usage: node test/run.mjs [--only lint|unit|inhost|ui|package]
// Every code-server runs in its own process group and temp dirs; all are stopped on exit and on Ctrl-C.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureHost, ROOT } from './host/codeServer.mjs';
import { ensureDependencies } from './host/deps.mjs';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const VSIX = join(ROOT, '.cache/agent-recall-linux-x64.vsix');

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** One check: the whole tree lints clean. Each problem is printed with its file and line. */
async function lintLayer() {
  const { ESLint } = await import('eslint');
  const results = await new ESLint({ cwd: ROOT }).lintFiles(['.']);
  const formatter = await new ESLint({ cwd: ROOT }).loadFormatter('stylish');
  const problems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);
  if (problems > 0) console.log(await formatter.format(results));
  console.log(`${results.length} files linted, ${problems} problems`);
  return { passed: problems === 0 ? 1 : 0, failed: problems === 0 ? 0 : 1 };
}

/** node --test over the compiled test files of one folder, counted from its TAP report. */
function nodeTestLayer(folder) {
  const dir = join(ROOT, 'out/test', folder);
  const files = readdirSync(dir).filter((f) => f.endsWith('.test.js')).map((f) => join(dir, f));
  const tmp = mkdtempSync(join(tmpdir(), `agent-recall-${folder}-`));
  const tap = join(tmp, `${folder}.tap`);
  try {
    const r = spawnSync(
      process.execPath,
      ['--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
      // TMPDIR too: every temporary folder a test makes lands here and goes with it (they were left in /tmp)
      { cwd: ROOT, stdio: 'inherit', env: { ...process.env, RECALL_TEST_TMP: tmp, TMPDIR: tmp } },
    );
    if (!existsSync(tap)) throw new Error(`node --test wrote no report (exit ${r.status ?? r.signal})`);
    const text = readFileSync(tap, 'utf8');
    const count = (k) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const failed = count('fail') + count('cancelled');
    // a non-zero exit without a failed test (e.g. a crash outside any test) still counts as one failure
    return { passed: count('pass'), failed: failed + (r.status !== 0 && failed === 0 ? 1 : 0) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function inhostLayer() {
  ensureHost();
  const { runInHostTests } = await import('./host/inhost.mjs');
  return runInHostTests();
}

async function uiLayer() {
  ensureHost();
  sh('npm', ['run', '--silent', 'package'], { stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`packaged ${VSIX} (${(readFileSync(VSIX).length / 1024 / 1024).toFixed(1)} MB)`);
  const { checkPackagedCli } = await import('./ui/packaged.mjs');
  const packaged = checkPackagedCli(VSIX);
  const { runUiTests } = await import('./ui/run.mjs');
  const ui = await runUiTests({ vsix: VSIX });
  return { passed: ui.passed + packaged.passed, failed: ui.failed + packaged.failed };
}

const layers = [
  { name: 'lint', run: lintLayer },
  { name: 'unit', run: () => nodeTestLayer('unit') },
  { name: 'inhost', run: inhostLayer },
  { name: 'ui', run: uiLayer },
  { name: 'package', run: () => nodeTestLayer('package') },
];
if (only && !layers.some((l) => l.name === only)) {
  console.error(`unknown layer ${only}; one of ${layers.map((l) => l.name).join(', ')}`);
  process.exit(2);
}

ensureDependencies(ROOT);
const t0 = Date.now();
const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)}s`;
try {
  sh(process.execPath, ['esbuild.mjs']);
  // tsc never deletes: a test whose source was removed or renamed would still run from out/
  rmSync(join(ROOT, 'out'), { recursive: true, force: true });
  sh(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.']);
} catch (err) {
  console.error(`build failed: ${err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
console.log(`build ${secs(t0)}`);

let passed = 0;
let failed = 0;
const lines = [];
for (const layer of layers) {
  if (only && layer.name !== only) continue;
  console.log(`\n=== ${layer.name}`);
  const t = Date.now();
  try {
    const r = await layer.run();
    lines.push(`[${layer.name}] ${r.passed} passed, ${r.failed} failed (${secs(t)})`);
    passed += r.passed;
    failed += r.failed;
  } catch (err) {
    lines.push(`[${layer.name}] could not run (${secs(t)}): ${err.message}`);
    failed += 1;
  }
  console.log(lines.at(-1));
}
console.log(`\n${lines.join('\n')}\ntotal ${secs(t0)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
