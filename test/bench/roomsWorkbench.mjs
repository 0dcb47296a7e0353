#!/usr/bin/env node
// The Rooms view on real transcripts, as a person sees it in the real workbench (code-server + Chromium, the
// working tree's build): an empty workspace whose `agentRecall.sources.extraRoots` (user settings) names a
// folder of transcripts, indexed by the extension itself; once the index is settled, screenshots of the Rooms
// view (as it opens, and with its first folded tail unfolded) and the rows the tree shows at its first two levels.
//   node esbuild.mjs && node test/bench/roomsWorkbench.mjs --corpus ../shared/corpus [--name corpus-rooms] [--scope allHistory]
//   -> test-results/screenshots/<name>*.png and the rows on stdout
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureHost, makeRunDir, ROOT, startCodeServer } from '../host/codeServer.mjs';
import { launchBrowser } from '../host/workbench.mjs';
import { openContainer, openWorkbench, screenshot, session, waitForTreeItem, waitForView } from '../ui/lib.mjs';

const { values } = parseArgs({ options: { corpus: { type: 'string' }, name: { type: 'string' }, scope: { type: 'string' } } });
if (!values.corpus) throw new Error('usage: node test/bench/roomsWorkbench.mjs --corpus DIR [--name NAME] [--scope workspace|allHistory]');
const name = values.name ?? 'corpus-rooms';

ensureHost();
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const run = makeRunDir('rooms-corpus');
mkdirSync(join(run.dir, 'extensions'), { recursive: true });
symlinkSync(ROOT, join(run.dir, 'extensions', `${manifest.publisher}.${manifest.name}-${manifest.version}`));
const workspace = join(run.dir, 'workspace');
const agents = join(run.dir, 'agents');
for (const d of [workspace, join(agents, 'claude'), join(agents, 'codex'), join(agents, 'gemini'), join(agents, 'continue')]) mkdirSync(d, { recursive: true });
const server = await startCodeServer(run.dir, {
  workspace,
  // extraRoots is application-scoped: the user's settings, as a person sets it (remote windows read it there too)
  settings: { 'agentRecall.sources.extraRoots': [resolve(values.corpus)], 'agentRecall.scope': values.scope ?? 'workspace' },
  // the agents' own folders are empty: the transcripts come from the named root alone
  env: { CLAUDE_CONFIG_DIR: join(agents, 'claude'), CODEX_HOME: join(agents, 'codex'), GEMINI_CLI_HOME: join(agents, 'gemini'), CONTINUE_GLOBAL_DIR: join(agents, 'continue') },
});
Object.assign(session, { browser: await launchBrowser(), url: server.url, workspace });
const shots = [];
try {
  const page = await openWorkbench({ width: 1400, height: 1000 });
  await openContainer(page, 'Agent Recall');
  const index = await waitForView(page, 'Index');
  // the Rooms view refreshes when the run is idle: wait for its rows to stop changing
  const rooms = await waitForView(page, 'Rooms');
  await waitForTreeItem(rooms, /Files|Concepts|Workflows|rooms?$/, 600_000);
  let last = '';
  for (let same = 0; same < 3; ) {
    await page.waitForTimeout(5_000);
    const now = (await rooms.locator('.monaco-list-row').allTextContents()).join('\n');
    same = now === last ? same + 1 : 0;
    last = now;
  }
  // no tooltip over the rows
  await page.mouse.move(900, 500);
  await page.waitForTimeout(1_000);
  shots.push(await screenshot(page, name));
  console.log((await index.locator('.monaco-list-row').first().textContent()) ?? '');
  console.log(`\nRooms view as it opens:\n${last}`);
  const more = rooms.locator('.monaco-list-row', { hasText: /more…$/ }).first();
  if (await more.isVisible().catch(() => false)) {
    await more.click();
    await page.mouse.move(900, 500);
    await page.waitForTimeout(1_500);
    shots.push(await screenshot(page, `${name}-more`));
  }
  await page.close();
} finally {
  await session.browser.close();
  await server.stop?.();
  run.cleanup();
  for (const s of shots) console.log(s);
}
process.exit(0);
