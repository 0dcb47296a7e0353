// Runs the UI tests (test/ui/*.ui.mjs, mocha) against a throw-away code-server with the fixture workspace.
// The extension is either installed from a .vsix (what users get; `vsix` option) or loaded as a
// development extension from the repo (`--dev`). Screenshots go to test-results/screenshots/.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import { materializeFixture } from '../host/fixture.mjs';
import { installExtension, makeRunDir, ROOT, startCodeServer } from '../host/codeServer.mjs';
import { launchBrowser } from '../host/workbench.mjs';
import { SCREENSHOTS, session } from './lib.mjs';

const HERE = join(ROOT, 'test/ui');

/** Returns { passed, failed }. `vsix`: install it; otherwise load the repo as development extension. */
export async function runUiTests({ vsix, grep = process.env.AGENT_RECALL_TEST_GREP, print = (l) => console.log(l) } = {}) {
  const run = makeRunDir('ui');
  const fixture = materializeFixture(run.dir);
  let server;
  let ok = false;
  try {
    if (vsix) print(`  ${installExtension(run.dir, vsix).split('\n').pop()}`);
    server = await startCodeServer(run.dir, { workspace: fixture.workspace, env: fixture.env });
    Object.assign(session, {
      browser: await launchBrowser(),
      url: server.url,
      workspace: fixture.workspace,
      fixture,
      payload: vsix ? undefined : { extensionDevelopmentPath: ROOT, skipWelcome: true },
    });
    const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', timeout: 120_000, ...(grep ? { grep } : {}) });
    for (const f of readdirSync(HERE).filter((n) => n.endsWith('.ui.mjs')).sort()) mocha.addFile(join(HERE, f));
    await mocha.loadFilesAsync();
    const stats = await new Promise((resolve) => {
      const runner = mocha.run(() => resolve(runner.stats));
    });
    print(`  screenshots: ${SCREENSHOTS}`);
    ok = stats.failures === 0;
    return { passed: stats.passes, failed: stats.failures };
  } catch (err) {
    err.message += `\n(code-server log: ${join(run.dir, 'code-server.log')})`;
    throw err;
  } finally {
    await session.browser?.close().catch(() => {});
    await server?.stop();
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
