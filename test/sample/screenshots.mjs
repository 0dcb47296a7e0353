#!/usr/bin/env node
// Screenshots of what a person sees on the `npm start` sample (code-server + Chromium, the working tree's build):
// the Index view, the Rooms tree, the Explorer badges, File History, a CodeLens and a hover, the walkthrough.
// Usage: node esbuild.mjs && node test/sample/screenshots.mjs   -> test-results/screenshots/sample-*.png
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureHost, makeRunDir, ROOT, startCodeServer } from '../host/codeServer.mjs';
import { launchBrowser } from '../host/workbench.mjs';
import { openContainer, openWorkbench, runCommand, screenshot, session, waitForTreeItem, waitForView } from '../ui/lib.mjs';
import { generateSample, sampleEnv } from './generate.mjs';

async function quickOpen(page, name) {
  const input = page.locator('.quick-input-widget input.input');
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout: 5_000 });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 10_000 });
}

ensureHost();
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const run = makeRunDir('shots');
mkdirSync(join(run.dir, 'extensions'), { recursive: true });
symlinkSync(ROOT, join(run.dir, 'extensions', `${manifest.publisher}.${manifest.name}-${manifest.version}`));
const sample = generateSample();
const server = await startCodeServer(run.dir, {
  workspace: sample.workspace,
  env: sampleEnv(sample, run.dir),
});
Object.assign(session, { browser: await launchBrowser(), url: server.url, workspace: sample.workspace });
const shots = [];
const shot = async (page, name) => shots.push(await screenshot(page, `sample-${name}`));
try {
  const page = await openWorkbench();
  await openContainer(page, 'Agent Recall');
  const index = await waitForView(page, 'Index');
  await waitForTreeItem(index, /^\d+ exchanges/, 90_000);
  await waitForTreeItem(index, /Semantic search: (on|off)/, 30_000);
  await shot(page, 'index-view');

  const rooms = await waitForView(page, 'Rooms');
  await waitForTreeItem(rooms, /Files|Concepts|Workflows/, 30_000);
  // open the first file room (rooms show from 3 exchanges of 2 conversations), else the first room
  const room = rooms.locator('.monaco-list-row', { hasText: /src\// }).first();
  await (await room.isVisible() ? room : rooms.locator('.monaco-list-row[aria-level="2"]').first()).click().catch(() => {});
  await page.waitForTimeout(800);
  await shot(page, 'rooms');

  await quickOpen(page, 'session.ts');
  const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: /edited this/ }).first();
  await page.locator('.monaco-editor .codelens-decoration', { hasText: /touched this file/ }).first().waitFor({ timeout: 30_000 });
  await lens.waitFor({ timeout: 10_000 });
  await openContainer(page, 'Agent Recall');
  await waitForTreeItem(await waitForView(page, 'File History'), /· (Claude Code|Codex|Aider|SpecStory)/, 30_000);
  await shot(page, 'codelens-file-history');

  // the line under the "edited this" lens: its hover names the exchange that edited it
  const box = await lens.boundingBox();
  await page.mouse.move(box.x + 60, box.y + box.height + 9);
  await page.locator('.monaco-hover', { hasText: /was edited in/ }).first().waitFor({ timeout: 15_000 });
  await shot(page, 'hover-edited-line');
  await page.keyboard.press('Escape');

  await page.locator('.part.activitybar .action-item a[aria-label^="Explorer"]').first().click();
  const explorerRow = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'server.ts' }).first();
  await explorerRow.waitFor({ timeout: 15_000 }).catch(async () => {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^src$/ }).first().click();
    await explorerRow.waitFor({ timeout: 10_000 });
  });
  await explorerRow.hover();
  await page.waitForTimeout(1500);
  await shot(page, 'explorer-badges');

  await runCommand(page, 'Welcome: Open Walkthrough...');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Agent Recall' }).first().click();
  await page.locator('.gettingStartedContainer .getting-started-step', { hasText: 'Recall with Ctrl+Alt+R' }).first().waitFor({ timeout: 15_000 });
  await page.waitForTimeout(1000);
  await shot(page, 'walkthrough');
  await page.close();
} finally {
  await session.browser.close();
  await server.stop?.();
  for (const s of shots) console.log(s);
}
process.exit(0);
