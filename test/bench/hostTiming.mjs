#!/usr/bin/env node
// Activation and first-recall time of the built extension (dist/, production bundle) in a real VS Code:
// code-server with the UI tests' fixture workspace, driven by Chromium through the UI tests' harness.
//
//   node test/bench/hostTiming.mjs [--runs 5] [--json FILE] [--no-build] [--extension DIR]
//
// Every run starts code-server anew (a fresh extension host) on the same user data; the first start indexes
// the fixture into a new store and is reported on its own, the next `runs` starts find the store up to date
// and give the medians. Per run:
//   - VS Code's activation times, as "Developer: Startup Performance" lists them (Load Code = requiring
//     dist/extension.js, Call Activate = the synchronous activate() call, Finish Activate = until the
//     returned value settles; Load Code + Call Activate is what "Show Running Extensions" shows). The extension
//     host starts the Load Code clock of every extension activated by one event at once, then awaits, then
//     requires them one by one: the figure includes the loading of those required before this one (their
//     Load Code is recorded too, as sameEventLoadCodeMs; Load Code minus the largest of them that is not larger
//     is this extension's share, vscodeLoadCodeAfterOthersMs);
//   - the extension's own figure from its log ("Activated in N ms"): from the bundle's first module being
//     evaluated to activate() returning, i.e. without reading and compiling the file;
//   - index idle: from activation to the end of the start-up index run (log timestamps);
//   - first recall, measured in the browser: Ctrl+Alt+R to the recall panel's first paint, then the query
//     typed in one go to the animation frame that paints the first candidates (includes the panel's 80 ms
//     debounce; the host's search time is taken from its answer). The query is typed after the start-up index
//     run finished, as a user would.
// --extension: another build to measure (a folder with package.json, dist/, media/, prompts/ and node_modules/),
// e.g. an older commit's, to compare with this one on the same machine; --no-build then leaves dist/ alone.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureHost, freePort, HOST_DIR, makeRunDir, ROOT, startCodeServer } from '../host/codeServer.mjs';
import { materializeFixture } from '../host/fixture.mjs';
import { launchBrowser } from '../host/workbench.mjs';
import { activityItem, openWorkbench, runCommand, session } from '../ui/lib.mjs';
import { machineFacts, median, table } from './lib.mjs';

const EXTENSION_ID = 'agent-recall.agent-recall';
const QUERY = 'coupon lower case with spaces';
const MODEL = join(ROOT, '.cache/models/wink-static-100d');
const TARGET_ACTIVATION_MS = 50;

/** Builds what the measurement loads: the production bundles and the local embedding model. */
export function build() {
  for (const args of [['esbuild.mjs', '--production'], ['test/model/buildStaticModel.mjs']]) {
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`build step ${args.join(' ')} failed`);
  }
}

/** Returns { machine, extension, firstStart, runs: [per restart], medians }; `print` gets progress lines. */
export async function measureHostTiming({ runs = 5, extensionPath = ROOT, print = (l) => console.error(l) } = {}) {
  ensureHost();
  const loadBefore = loadavg()[0];
  const run = makeRunDir('host-timing');
  const fixture = materializeFixture(run.dir);
  // the local model, so semantic search is on as with a configured model (no hub download here)
  const settings = existsSync(MODEL) ? { 'agentRecall.embed.model': MODEL } : {};
  const browser = await launchBrowser();
  Object.assign(session, { browser, workspace: fixture.workspace, fixture, payload: { extensionDevelopmentPath: extensionPath, skipWelcome: true } });
  // one port for every start: the workspace's storage (and so the store) is keyed by the remote authority
  const port = await freePort();
  const starts = [];
  let ok = false;
  try {
    for (let i = 0; i <= runs; i++) {
      const before = new Set(logDirs(run.dir));
      const server = await startCodeServer(run.dir, { workspace: fixture.workspace, env: fixture.env, settings, port });
      session.url = server.url;
      try {
        const r = await oneStart(() => logDirs(run.dir).filter((d) => !before.has(d)));
        starts.push(r);
        print(
          `host ${i === 0 ? 'first start' : `run ${i}/${runs}`}: VS Code ${r.vscodeActivationMs} ms (load ${r.vscodeLoadCodeMs} + activate ${r.vscodeCallActivateMs}), ` +
            `own ${r.ownActivatedMs} ms, index idle ${r.indexIdleMs} ms, first recall ${r.firstRecallMs} ms`,
        );
      } finally {
        await server.stop();
      }
    }
    ok = true;
  } finally {
    await browser.close().catch(() => {});
    if (ok) run.cleanup();
    else {
      run.keep();
      print(`kept ${run.dir} (code-server.log, user/logs)`);
    }
  }
  const [firstStart, ...rest] = starts;
  const keys = Object.keys(firstStart).filter((k) => typeof firstStart[k] === 'number');
  return {
    // the 1-minute load average before and after: other work on the machine shows in these timings
    machine: { ...machineFacts(), hostNode: nodeVersion(), vscode: vscodeVersion(), loadAverage: [loadBefore, loadavg()[0]].map((x) => +x.toFixed(2)) },
    extension: extensionPath,
    query: QUERY,
    embedModel: settings['agentRecall.embed.model'] ?? 'the default setting',
    targetActivationMs: TARGET_ACTIVATION_MS,
    firstStart,
    runs: rest,
    medians: Object.fromEntries(keys.map((k) => [k, median(rest.map((r) => r[k]))])),
  };
}

/** One fresh window: waits for activation and the start-up index run, recalls once, reads VS Code's activation times. */
async function oneStart(newLogDirs) {
  const page = await openWorkbench();
  try {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.url });
    await activityItem(page, 'Agent Recall').waitFor({ timeout: 90_000 });
    const own = await waitForLog(newLogDirs);
    const recall = await firstRecall(page);
    const vscode = await vscodeActivationTimes(page);
    return { ...vscode, ...own, ...recall };
  } finally {
    await page.close();
  }
}

/** The extension's own figures and the index-idle time, from its log (LogOutputChannel file of this start). */
async function waitForLog(newLogDirs, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const file = newLogDirs().map((d) => join(d, `exthost1/${EXTENSION_ID}/Agent Recall.log`)).find(existsSync);
    const text = file ? readFileSync(file, 'utf8') : '';
    const activated = /^(\S+ \S+) \[info\] Activated in (\d+) ms \(bundle evaluation (\d+) ms \+ activate\(\) (\d+) ms\)/m.exec(text);
    const indexed = /^(\S+ \S+) \[info\] Indexed /m.exec(text);
    if (activated && indexed) {
      return {
        ownActivatedMs: Number(activated[2]),
        ownBundleEvalMs: Number(activated[3]),
        ownActivateMs: Number(activated[4]),
        indexIdleMs: logTime(indexed[1]) - logTime(activated[1]),
      };
    }
    const error = /^.*\[error\].*$/m.exec(text);
    if (error) throw new Error(`the extension logged an error: ${error[0]}`);
    if (Date.now() > deadline) throw new Error(`no "Activated" and "Indexed" lines in ${file ?? 'the extension log'} after ${timeoutMs / 1000}s:\n${text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Ctrl+Alt+R, the panel's first paint, the query typed, the paint of the first candidates; browser clock. */
async function firstRecall(page) {
  await page.locator('.monaco-workbench').click({ position: { x: 700, y: 450 } });
  await page.evaluate(() => {
    window.addEventListener('keydown', (e) => {
      if (e.ctrlKey && e.altKey && e.code === 'KeyR') window.recallKeyAt ??= Date.now();
    }, { capture: true });
  });
  await page.keyboard.press('Control+Alt+KeyR');
  const keyAt = await page.evaluate(() => window.recallKeyAt);
  const input = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame').locator('#query');
  await input.waitFor({ timeout: 30_000 });
  const paintedAt = await input.evaluate(() => {
    const fcp = performance.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint');
    if (!fcp) throw new Error('the recall panel has no first-contentful-paint entry');
    return performance.timeOrigin + fcp.startTime;
  });
  await input.evaluate((el) => {
    el.addEventListener('input', () => (window.recallTypedAt ??= Date.now()));
    window.addEventListener('message', ({ data }) => {
      if (data?.type === 'results' && data.candidates.length) window.recallSearchMs ??= data.tookMs;
    });
    const list = document.getElementById('results');
    window.recallRendered = new Promise((resolve) => {
      const mo = new MutationObserver(() => {
        if (!list.querySelector('.candidate')) return;
        mo.disconnect();
        requestAnimationFrame(() => resolve(Date.now()));
      });
      mo.observe(list, { childList: true, subtree: true });
    });
  });
  await input.fill(QUERY);
  const { typedAt, renderedAt, searchMs } = await input.evaluate(async () => ({
    renderedAt: await window.recallRendered,
    typedAt: window.recallTypedAt,
    searchMs: window.recallSearchMs,
  }));
  const panelOpenMs = Math.round(paintedAt - keyAt);
  return { panelOpenMs, firstCandidatesMs: renderedAt - typedAt, firstSearchMs: searchMs, firstRecallMs: panelOpenMs + renderedAt - typedAt };
}

/** Our row of "Extension Activation Stats" in Developer: Startup Performance (read through the clipboard). */
async function vscodeActivationTimes(page) {
  await runCommand(page, 'Developer: Startup Performance');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  for (let attempt = 1; ; attempt++) {
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    const text = await page.evaluate(() => navigator.clipboard.readText());
    // | Extension | Eager | Load Code | Call Activate | Finish Activate | Event | By |
    const rows = text.split('\n').filter((l) => /^\| \S+\.\S+ +\| (true|false) /.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    const ours = rows.find((r) => r[0] === EXTENSION_ID);
    if (ours) {
      const [, , load, call, finish, event] = ours;
      const sameEvent = rows.filter((r) => r[5] === event && r[0] !== EXTENSION_ID);
      return {
        vscodeLoadCodeMs: +load,
        vscodeLoadCodeAfterOthersMs: +load - Math.max(0, ...sameEvent.map((r) => +r[2]).filter((ms) => ms <= +load)),
        vscodeCallActivateMs: +call,
        vscodeFinishActivateMs: +finish,
        vscodeActivationMs: +load + +call,
        activationEvent: event,
        sameEventLoadCodeMs: Object.fromEntries(sameEvent.map((r) => [r[0], +r[2]])),
      };
    }
    if (attempt >= 10) throw new Error(`no row for ${EXTENSION_ID} in Developer: Startup Performance:\n${text.slice(0, 3000)}`);
    await page.waitForTimeout(1000); // the view fills in once the workbench is restored
  }
}

function logDirs(runDir) {
  const dir = join(runDir, 'user/logs');
  return existsSync(dir) ? readdirSync(dir).map((d) => join(dir, d)) : [];
}

/** "2026-11-23 06:32:40.354" (local time, as VS Code writes log lines) -> epoch ms. */
function logTime(stamp) {
  return new Date(stamp.replace(' ', 'T')).getTime();
}

function nodeVersion() {
  return spawnSync(join(HOST_DIR, 'node/bin/node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
}

function vscodeVersion() {
  const cs = JSON.parse(readFileSync(join(HOST_DIR, 'cs/node_modules/code-server/package.json'), 'utf8')).version;
  const vs = JSON.parse(readFileSync(join(HOST_DIR, 'cs/node_modules/code-server/lib/vscode/package.json'), 'utf8')).version;
  return `code-server ${cs} (VS Code ${vs})`;
}

/** The markdown lines: machine, then one row per figure (median, min-max over the runs, first start). */
export function report(r) {
  const m = r.machine;
  const rows = [
    ['VS Code: Load Code + Call Activate', 'vscodeActivationMs', `≤ ${r.targetActivationMs}`],
    ['VS Code: Load Code (require of dist/extension.js)', 'vscodeLoadCodeMs'],
    ['VS Code: Load Code after the same-event extensions', 'vscodeLoadCodeAfterOthersMs'],
    ['VS Code: Call Activate', 'vscodeCallActivateMs'],
    ['VS Code: Finish Activate', 'vscodeFinishActivateMs'],
    ['own: bundle evaluation + activate()', 'ownActivatedMs'],
    ['own: bundle evaluation', 'ownBundleEvalMs'],
    ['own: activate()', 'ownActivateMs'],
    ['index idle after activation', 'indexIdleMs'],
    ['Ctrl+Alt+R → panel painted', 'panelOpenMs'],
    ['query typed → first candidates painted', 'firstCandidatesMs'],
    ['… of which the search in the extension host', 'firstSearchMs'],
    ['first recall (both)', 'firstRecallMs'],
  ];
  const others = Object.keys(r.firstStart.sameEventLoadCodeMs);
  return [
    `${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, node ${m.node} (bench), ${m.hostNode} (extension host), ${m.vscode}, ` +
      `load average ${m.loadAverage.join(' → ')}, ${m.date}`,
    `${r.extension === ROOT ? 'This build' : `The build in ${r.extension}`} on the UI tests' fixture workspace (9 exchanges), embedding model ${r.embedModel}, query "${r.query}"; medians of ${r.runs.length} restarts ` +
      `with the store up to date, and the first start that built it. VS Code's Load Code also counts the extensions activated by the same ` +
      `event (${r.firstStart.activationEvent}: ${others.join(', ') || 'none'}; built-in ones load first); "own" is measured by the extension.`,
    '',
    table(
      ['figure (ms)', 'median', 'min–max', 'first start (new store)', 'target'],
      rows.map(([label, key, target]) => {
        const xs = r.runs.map((x) => x[key]);
        return { 'figure (ms)': label, median: r.medians[key], 'min–max': `${Math.min(...xs)}–${Math.max(...xs)}`, 'first start (new store)': r.firstStart?.[key], target: target ?? '' };
      }),
    ),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' }, json: { type: 'string' }, 'no-build': { type: 'boolean', default: false }, extension: { type: 'string', default: ROOT } },
  });
  if (!values['no-build']) build();
  const r = await measureHostTiming({ runs: Math.max(1, Number(values.runs)), extensionPath: resolve(values.extension) });
  console.log(['## Activation and first recall in the real host', '', ...report(r)].join('\n'));
  if (values.json) writeFileSync(values.json, JSON.stringify(r, null, 2));
  process.exit(0);
}
