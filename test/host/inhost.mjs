// Runs the compiled in-host mocha suite INSIDE code-server's extension host: opens the workbench with a
// payload (extensionDevelopmentPath + extensionTestsPath), like @vscode/test-electron does for desktop VS Code.
// The suite writes one JSON line per test to AGENT_RECALL_TEST_RESULTS; the workbench calls
// window.codeAutomationExit(code) when run() settles.
import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { materializeFixture } from './fixture.mjs';
import { makeRunDir, ROOT, startCodeServer } from './codeServer.mjs';
import { enableSmokeTestDriver, launchBrowser, seedShownWalkthrough, workbenchUrl } from './workbench.mjs';

/**
 * Returns { passed, failed, tests: [{ type, title, error? }] }. Throws when the suite could not run at all.
 * Options: testsIndex (compiled index.js), extensionPath, timeoutMs, env (extra env for code-server).
 */
export async function runInHostTests({
  testsIndex = join(ROOT, 'out/test/inhost/index.js'),
  extensionPath = ROOT,
  // the suite's whole run; ~2-4 min alone, more than 240 s beside four benches at load 10-14 (2026-12-02)
  timeoutMs = +(process.env.AGENT_RECALL_INHOST_TIMEOUT_MS || 420_000),
  env = {},
  print = (line) => console.log(line),
} = {}) {
  if (!existsSync(testsIndex)) throw new Error(`${testsIndex} does not exist (run tsc first)`);
  const run = makeRunDir('inhost');
  const results = join(run.dir, 'results.jsonl');
  const consoleLog = join(run.dir, 'workbench-console.log');
  writeFileSync(results, '');
  const fx = materializeFixture(run.dir);
  let server;
  let browser;
  const tests = [];
  let ended;
  let seen = 0;
  const drain = () => {
    const lines = readFileSync(results, 'utf8').split('\n');
    for (; seen < lines.length - 1; seen++) {
      const rec = JSON.parse(lines[seen]);
      if (rec.type === 'end') ended = rec;
      else {
        tests.push(rec);
        print(rec.type === 'pass' ? `  ✓ ${rec.title} (${rec.ms} ms)` : rec.type === 'fail' ? `  ✗ ${rec.title}\n${indent(rec.error)}` : `  - ${rec.title} (pending)`);
      }
    }
  };
  let ok = false;
  try {
    server = await startCodeServer(run.dir, { workspace: fx.workspace, env: { ...fx.env, ...env, AGENT_RECALL_TEST_RESULTS: results } });
    browser = await launchBrowser();
    const page = await browser.newPage();
    page.on('console', (m) => appendFileSync(consoleLog, `[${m.type()}] ${m.text().replace(/%c/g, '')}\n`));
    page.on('pageerror', (e) => appendFileSync(consoleLog, `[pageerror] ${e.stack ?? e}\n`));
    await enableSmokeTestDriver(page);
    let exit;
    const exited = new Promise((r) => (exit = r));
    // a profile whose first start is over: the walkthrough it opened would take the editor area from the tests
    await seedShownWalkthrough(page, server.url);
    await page.exposeFunction('codeAutomationExit', (code) => exit(code));
    await page.exposeFunction('codeAutomationLog', (type, args) => appendFileSync(consoleLog, `[automation:${type}] ${JSON.stringify(args)}\n`));
    const poll = setInterval(drain, 300);
    await page.goto(workbenchUrl(server.url, fx.workspace, { extensionDevelopmentPath: extensionPath, extensionTestsPath: testsIndex, skipWelcome: true }));
    let timer;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)))]);
    clearTimeout(timer);
    clearInterval(poll);
    drain();
    const passed = tests.filter((t) => t.type === 'pass').length;
    let failed = tests.filter((t) => t.type === 'fail').length;
    if (!ended) {
      if (tests.length === 0) throw new Error(`the in-host suite did not run (${code === 'timeout' ? `no result after ${timeoutMs / 1000}s` : `exit code ${code}`})`);
      print(`  ✗ the in-host suite did not finish (${code === 'timeout' ? 'timeout' : `exit code ${code}`})`);
      failed++;
    } else if (code !== 0 && failed === 0) {
      print(`  ✗ the workbench reported exit code ${code} although no test failed`);
      failed++;
    }
    ok = failed === 0;
    return { passed, failed, tests };
  } catch (err) {
    err.message += `\n(logs: ${server?.log ?? join(run.dir, 'code-server.log')}, ${consoleLog}; kept: ${run.dir})`;
    throw err;
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop();
    if (ok) run.cleanup();
    else {
      run.keep();
      printTail(consoleLog, print);
    }
  }
}

function indent(text = '') {
  return text.split('\n').slice(0, 24).map((l) => `      ${l}`).join('\n');
}

function printTail(file, print) {
  if (!existsSync(file)) return;
  // what the test results above do not already say: activation errors, extension host crashes
  const interesting = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /error|Error|Extension Host|activat/.test(l) && !/\[in-host\]|^\[automation:info\]|in-host test\(s\) failed/.test(l));
  if (interesting.length) print(`  workbench console (${file}), last lines:\n${interesting.slice(-15).map((l) => `    ${l.slice(0, 300)}`).join('\n')}`);
}

// Standalone: node test/host/inhost.mjs (after npm run build && tsc)
if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runInHostTests();
  console.log(`${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
