// Runs the UI tests (test/ui/*.ui.mjs, mocha) against a throw-away code-server with the fixture workspace.
// The extension is either installed from a .vsix (what users get; `vsix` option) or loaded as a
// development extension from the repo (`--dev`). Screenshots go to test-results/screenshots/.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Mocha from 'mocha';
import { longTasksOfOpenPages } from './lib.mjs';
import { materializeFixture } from '../host/fixture.mjs';
import { installExtension, makeRunDir, ROOT, startCodeServer } from '../host/codeServer.mjs';
import { launchBrowser } from '../host/workbench.mjs';
import { SCREENSHOTS, session } from './lib.mjs';
import { createRequire } from 'node:module';

// The local Messages API server of the unit tests (compiled by tsc into out/): the LLM session runs with the
// Anthropic distiller configured against it, so the consent and cost dialogs can be driven and what was sent checked.
const { startFakeAnthropic, messageReply } = createRequire(import.meta.url)('../../out/test/unit/anthropicServer.js');
const DISTILLED = JSON.stringify({
  exchange_core: 'Distilled by the local test server.',
  specific_context: 'detail',
  room_assignments: [{ room_type: 'workflow', room_key: 'testing', room_label: 'Testing', relevance: 0.5 }],
});

const HERE = join(ROOT, 'test/ui');

/** After a test that failed (or is to be retried): whether the workbench's main thread was blocked meanwhile. */
async function sayLongTasks() {
  const test = this.currentTest;
  if (test && test.state !== 'passed' && !test.isPending()) console.log(`    (${test.title}: ${await longTasksOfOpenPages()})`);
}

/**
 * Returns { passed, failed }. `vsix`: install it; otherwise load the repo as development extension.
 * Two sessions, each with its own code-server and fixture: `*.ui.mjs` with the default (offline) distiller, as a
 * user first meets the extension, then `*.llm.ui.mjs` with the Anthropic distiller against the local server.
 */
export async function runUiTests({ vsix, grep = process.env.AGENT_RECALL_TEST_GREP, print = (l) => console.log(l) } = {}) {
  const files = readdirSync(HERE).filter((n) => n.endsWith('.ui.mjs')).sort();
  let passed = 0;
  let failed = 0;
  for (const llm of [false, true]) {
    const mine = files.filter((f) => f.endsWith('.llm.ui.mjs') === llm);
    if (mine.length === 0) continue;
    const r = await runSession({ vsix, grep, print, llm, files: mine });
    passed += r.passed;
    failed += r.failed;
  }
  print(`  screenshots: ${SCREENSHOTS}`);
  return { passed, failed };
}

async function runSession({ vsix, grep, print, llm, files }) {
  const run = makeRunDir(llm ? 'ui-llm' : 'ui');
  const fixture = materializeFixture(run.dir);
  let server;
  let ok = false;
  const anthropic = llm ? await startFakeAnthropic(() => messageReply(DISTILLED)) : undefined;
  try {
    if (vsix) print(`  ${installExtension(run.dir, vsix).split('\n').pop()}`);
    let settings = {};
    if (anthropic) {
      // allowRemote and baseUrl are machine-scoped: VS Code reads them from the (remote) machine's settings,
      // which for code-server are user/Machine/settings.json, not the user settings.
      // (merged into the fixture's machine settings)
      const machine = join(run.dir, 'user/Machine/settings.json');
      mkdirSync(dirname(machine), { recursive: true });
      const before = existsSync(machine) ? JSON.parse(readFileSync(machine, 'utf8')) : {};
      writeFileSync(
        machine,
        JSON.stringify({ ...before, 'agentRecall.distill.allowRemote': true, 'agentRecall.distill.anthropic.baseUrl': anthropic.baseURL }, null, 2),
      );
      settings = { 'agentRecall.distill.distiller': 'anthropic' };
    }
    server = await startCodeServer(run.dir, { workspace: fixture.workspace, env: fixture.env, settings });
    Object.assign(session, {
      browser: await launchBrowser(),
      url: server.url,
      workspace: fixture.workspace,
      fixture,
      anthropic,
      payload: vsix ? undefined : { extensionDevelopmentPath: ROOT, skipWelcome: true },
    });
    const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', timeout: 120_000, rootHooks: { afterEach: sayLongTasks }, ...(grep ? { grep } : {}) });
    for (const f of files) mocha.addFile(join(HERE, f));
    await mocha.loadFilesAsync();
    const stats = await new Promise((resolve) => {
      const runner = mocha.run(() => resolve(runner.stats));
    });
    ok = stats.failures === 0;
    return { passed: stats.passes, failed: stats.failures };
  } catch (err) {
    err.message += `\n(code-server log: ${join(run.dir, 'code-server.log')})`;
    throw err;
  } finally {
    await session.browser?.close().catch(() => {});
    await server?.stop();
    await anthropic?.close();
    if (ok) run.cleanup();
    else {
      run.keep();
      print(`  kept ${run.dir} (code-server.log, workspace)`);
    }
  }
}

// Standalone: node test/ui/run.mjs [--dev | path/to.vsix]
if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = process.argv[2];
  const r = await runUiTests(arg && arg !== '--dev' ? { vsix: arg } : {});
  console.log(`${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
