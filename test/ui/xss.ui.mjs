// Transcript text is untrusted: a transcript carrying command: links, <script>, <img onerror>, javascript:
// links, Markdown HTML and escaping bypasses must render inert in the recall panel, the exchange viewer, the
// File History and Rooms trees, the CodeLens and the file-path hover; a click or Ctrl+click on any link of it runs nothing. Asserted in the browser: no
// frame's window saw the payloads run, no such element exists, no terminal or editor appeared, and the
// local logger that every payload URL points at received nothing. The Rooms tree and the CodeLens (the lens
// above lines the hostile exchange alone edited carries its headline) are covered the same way.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeEditResult, claudeProjectDir, claudeSession } from '../host/transcripts.mjs';
import { openContainer, openWorkbench, runCommand, screenshot, session, waitForTreeItem, waitForView } from './lib.mjs';
import { hostileExchange, startLogger } from './hostile.mjs';
import { quickOpen, recallFrame, viewerFrame, waitForIndexed } from './recall.ui.mjs';

/** Every frame of the page (workbench, webviews, their inner frames): did any payload run? */
async function payloadsThatRan(page) {
  const ran = [];
  for (const f of page.frames()) {
    const v = await f.evaluate(() => window.__xss).catch(() => undefined);
    if (v !== undefined) ran.push(`${f.url().slice(0, 80)}: ${v}`);
  }
  return ran;
}

/** What a hostile link could have done that a person would see: terminals, new editors. */
async function sideEffects(page) {
  return {
    terminals: await page.locator('.xterm').count(),
    untitled: await page.locator('.tabs-container .tab', { hasText: /^Untitled/ }).count(),
  };
}

/**
 * Clicks, then Ctrl+clicks, every link and inert link (with its shown target) in the viewer; dismisses any dialog a click raised and returns what was clicked and the dialogs' texts.
 * Links to the logger are left alone: they are http links whose text is their URL, and following one is
 * what a person clicking it asks for (the test asserts they show their target).
 */
async function clickEveryLink(page, viewer, logger) {
  const targets = viewer.locator('#app a, #app .inert-link, #app .link-target');
  const clicked = [];
  const dialogs = [];
  const n = await targets.count();
  for (let i = 0; i < n; i++) {
    const t = targets.nth(i);
    if ((await t.getAttribute('data-target'))?.startsWith(logger.url)) continue;
    clicked.push(((await t.textContent()) ?? '').trim().slice(0, 60));
    for (const modifiers of [[], ['Control']]) {
      await t.click({ modifiers, timeout: 5_000 }).catch(() => {});
      await page.waitForTimeout(250);
      const dialog = page.locator('.monaco-dialog-box');
      if (await dialog.isVisible()) {
        dialogs.push(((await dialog.textContent()) ?? '').slice(0, 200));
        await page.keyboard.press('Escape');
      }
    }
  }
  return { clicked, dialogs };
}

describe('Hostile transcripts render inert', function () {
  this.timeout(180_000);
  let page;
  let logger;

  before(async () => {
    logger = await startLogger();
    const { prompt: PROMPT, reply: REPLY } = hostileExchange(logger.url, 'xylophone');
    page = await openWorkbench();
    await waitForIndexed(page);
    const { workspace, claudeConfigDir } = session.fixture;
    const dir = join(claudeConfigDir, 'projects', claudeProjectDir(workspace));
    mkdirSync(dir, { recursive: true });
    const sessionId = '7e57c0de-0000-4000-8000-00000000a55a';
    const xylophone = join(workspace, 'src', 'xylophone.js');
    writeFileSync(xylophone, 'export const note = 1;\nexport const y = 2;\nexport const z = 3;\n');
    writeFileSync(join(dir, `${sessionId}.jsonl`), claudeSession({
      cwd: workspace, sessionId, start: new Date(Date.now() - 3_600_000).toISOString(),
      // it read src/cart.js, so it shows in that file's history, hover and room too; it alone edited
      // src/xylophone.js, so the lens above the edited lines carries its headline
      turns: [{ prompt: PROMPT, steps: [
        { tool: 'Read', input: { file_path: join(workspace, 'src/cart.js') }, result: 'export function cartTotalCents() {}' },
        { tool: 'Edit', input: { file_path: xylophone, old_string: 'x', new_string: 'y' }, result: 'ok', toolUseResult: claudeEditResult(xylophone, 'x', 'y', 2) },
        { text: REPLY },
      ] }],
    }));
    // live indexing picks the new session up
    await openContainer(page, 'Agent Recall');
    const index = await waitForView(page, 'Index');
    await waitForTreeItem(index, new RegExp(`^${session.fixture.expected.exchanges + 1} exchanges`), 30_000);
  });
  after(async () => {
    await page?.close();
    await logger?.close();
  });

  it('shows the hostile exchange in the recall panel as text, and nothing runs', async () => {
    await runCommand(page, 'Agent Recall: Recall Past Conversation');
    const frame = await recallFrame(page);
    const input = frame.locator('#query');
    await input.waitFor({ timeout: 30_000 });
    await input.fill('');
    await input.pressSequentially('xylophone widget', { delay: 20 });
    const hit = frame.locator('.candidate', { hasText: 'xylophone' }).first();
    await hit.waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    await screenshot(page, 'xss-recall-panel');
    const text = (await hit.textContent()) ?? '';
    assert.match(text, /\[LINK-terminal\]\(command:workbench\.action\.terminal\.new\)/, 'the link is shown as text');
    assert.match(text, /onerror="window\.__xss='img'">/, 'the markup is shown as text');
    const results = frame.locator('#results');
    assert.equal(await results.locator('img, script, iframe, svg, a, details').count(), 0, 'no element was created from transcript text');
    assert.deepEqual(await payloadsThatRan(page), []);
    await input.press('Enter');
  });

  it('shows it in the exchange viewer as text: only http(s) links, saying where they go; nothing loads', async () => {
    const viewer = await viewerFrame(page);
    await viewer.locator('main.conversation', { hasText: 'LINK-send' }).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1000);
    await screenshot(page, 'xss-viewer');
    const app = viewer.locator('#app');
    const made = await app.locator('img, script, iframe, svg, meta, style, link, details:not(.tools), object, embed, form')
      .evaluateAll((els) => els.map((e) => e.outerHTML.slice(0, 120)));
    assert.deepEqual(made, [], 'no element was created from transcript text');
    const links = await app.locator('a').evaluateAll((els) => els.map((e) => [e.getAttribute('data-target') ?? '', e.textContent ?? '', e.nextElementSibling?.textContent ?? '']));
    assert.ok(links.length > 0 && links.every(([h]) => /^https?:\/\//.test(h)), `only http(s) links: ${links.join(' | ')}`);
    // each says where it goes: its text is its URL, or the host follows it
    assert.ok(links.every(([h, text, next]) => text === h || next.includes(new URL(h).host)), `links say where they go: ${links.join(' | ')}`);
    assert.ok((await app.locator('a + .link-target', { hasText: 'example.invalid' }).count()) > 0, 'a link says where it goes');
    const inert = await app.locator('.inert-link').allTextContents();
    assert.ok(inert.some((t) => /LINK-terminal/.test(t)) && inert.some((t) => /LINK-vscode/.test(t)), `command: and vscode: links are inert text: ${inert.join(' | ')}`);
    assert.ok((await app.locator('.link-target.inert', { hasText: 'command:workbench.action.terminal.new' }).count()) > 0, 'an inert link shows its target');
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, [], 'nothing was loaded from the payloads\' URLs');
  });

  it('runs nothing on a click or Ctrl+click on any link of the exchange viewer', async () => {
    const viewer = await viewerFrame(page);
    const before = await sideEffects(page);
    const { clicked, dialogs } = await clickEveryLink(page, viewer, logger);
    await page.waitForTimeout(1500);
    await screenshot(page, 'xss-viewer-after-clicks');
    assert.deepEqual(await sideEffects(page), before, `no terminal, no new editor after clicking ${clicked.join(' | ')}`);
    // an http(s) link may only ask, naming its target (VS Code's "open external website?" dialog)
    assert.ok(dialogs.every((d) => /example\.invalid/.test(d)), `only an http(s) link may ask, naming its target: ${dialogs.join(' | ')}`);
    assert.deepEqual(logger.hits, []);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.ok(clicked.length >= 9, `the payload links were there to click: ${clicked.join(' | ')}`);
  });

  it('shows its headline as text in the File History tree and in the file-path hover', async () => {
    await quickOpen(page, 'cart.js');
    // the Agent Recall side bar is still open from before (its activity-bar item would toggle it closed)
    const history = await waitForView(page, 'File History');
    const row = history.locator('.monaco-list-row', { hasText: 'xylophone' }).first();
    await row.waitFor({ timeout: 30_000 });
    await screenshot(page, 'xss-file-history');
    assert.equal(await history.locator('.monaco-list-row').locator('img, script, iframe, a[href]').count(), 0, 'tree rows are text');
    // the hover on './cart.js' lists the exchanges that touched it, the hostile one among them
    await quickOpen(page, 'checkout.js');
    const path = page.locator('.editor-instance .view-lines .view-line span span', { hasText: /^'\.\/cart\.js'$/ }).first();
    const hover = page.locator('.monaco-hover-content', { hasText: 'xylophone' }).first();
    for (let i = 0; i < 5 && !(await hover.isVisible()); i++) {
      await page.mouse.move(0, 0);
      await path.hover();
      await hover.waitFor({ timeout: 4_000 }).catch(() => {});
    }
    await screenshot(page, 'xss-hover');
    const anchors = await hover.locator('a').evaluateAll((els) => els.map((e) => e.getAttribute('data-href') ?? e.getAttribute('href') ?? ''));
    assert.ok(anchors.length > 0 && anchors.every((h) => h.startsWith('command:agentRecall.openExchange')), `only the extension's own links: ${anchors.join(' | ')}`);
    assert.equal(await hover.locator('img, script, iframe, svg').count(), 0);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, []);
  });

  it('shows its headline as text in the Rooms tree, where a click opens the exchange and runs nothing else', async () => {
    await openContainer(page, 'Agent Recall').catch(() => {});
    const rooms = await waitForView(page, 'Rooms');
    const room = rooms.locator('.monaco-list-row[aria-level="2"]', { hasText: 'cart.js' }).first();
    await room.waitFor({ timeout: 30_000 });
    if ((await room.getAttribute('aria-expanded')) !== 'true') await room.click();
    const row = rooms.locator('.monaco-list-row[aria-level="3"]', { hasText: 'xylophone' }).first();
    await row.waitFor({ timeout: 15_000 });
    assert.equal(await rooms.locator('.monaco-list-row').locator('img, script, iframe, svg, a[href]').count(), 0, 'tree rows are text');
    // its tooltip holds the distilled detail, which here is transcript markup: shown as the characters it is
    const tooltip = page.locator('.monaco-hover, .workbench-hover', { hasText: '__xss' }).first();
    for (let i = 0; i < 5 && !(await tooltip.isVisible()); i++) {
      await page.mouse.move(0, 0);
      await row.hover();
      await tooltip.waitFor({ timeout: 4_000 }).catch(() => {});
    }
    await screenshot(page, 'xss-rooms');
    assert.match((await tooltip.textContent()) ?? '', /onerror="window\.__xss='img'">/, 'the markup is shown as text');
    assert.equal(await tooltip.locator('img, script, iframe, svg, a').count(), 0, 'no element was made from it');
    const before = await sideEffects(page);
    await row.click();
    const viewer = await viewerFrame(page);
    await viewer.locator('main.conversation', { hasText: 'xylophone' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await sideEffects(page), before);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, []);
  });

  it('shows its headline as text in the CodeLens above the lines it edited; a click opens the exchange, nothing else', async () => {
    const lenses = page.locator('.monaco-editor .codelens-decoration');
    const edited = lenses.filter({ hasText: /agent exchange edited this: .*xylophone/ }).first();
    // Once in three full runs the lens never drew in 30 s (cause not found); opened again, the editor asks again
    for (let attempt = 1; ; attempt++) {
      await quickOpen(page, 'xylophone.js');
      try {
        await edited.waitFor({ timeout: 15_000 });
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
        console.log(`    (CodeLens not drawn on attempt ${attempt}: the editor is closed and opened again)`);
        await runCommand(page, 'View: Close Editor');
      }
    }
    await screenshot(page, 'xss-codelens');
    const text = (await lenses.allTextContents()).join(' | ');
    assert.equal(await lenses.locator('img, script, iframe, svg, object, embed').count(), 0, `lenses are text: ${text}`);
    assert.equal(await lenses.locator('.codicon-alert').count(), 0, `transcript text draws no icon: ${text}`);
    assert.match(text, /widget \$\u200b?\(alert\) broke/, text);
    // a lens is the extension's own command link: one per lens, none made from transcript text
    assert.equal(await lenses.locator('a').count(), await lenses.count(), `no links but the lenses themselves: ${text}`);
    const before = await sideEffects(page);
    await edited.locator('a').first().click();
    const viewer = await viewerFrame(page);
    await viewer.locator('main.conversation', { hasText: 'xylophone' }).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1000);
    assert.deepEqual(await sideEffects(page), before, 'no terminal, no new editor');
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, []);
  });

  it('raises no errors in the page', () => {
    assert.deepEqual(page.pageErrors.filter((e) => !/ResizeObserver/.test(e)), []);
  });
});
