// Transcript text is untrusted: a transcript carrying command: links, <script>, <img onerror>, javascript:
// links, Markdown HTML and escaping bypasses must render inert in the recall panel and in the exchange viewer
// (and its Markdown preview); a Ctrl+click on any link of it runs nothing. Asserted in the browser: no
// frame's window saw the payloads run, no such element exists, no terminal or editor appeared, and the
// local logger that every payload URL points at received nothing.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeProjectDir, claudeSession } from '../host/transcripts.mjs';
import { openContainer, openWorkbench, runCommand, screenshot, session, waitForTreeItem, waitForView } from './lib.mjs';
import { hostileExchange, startLogger } from './hostile.mjs';
import { recallFrame, waitForIndexed } from './recall.ui.mjs';

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
 * Ctrl+clicks every link the editor detected in the visible viewer and every LINK- text of the payloads;
 * dismisses any dialog a click raised and returns the links clicked and the dialogs' texts. Bare http(s)
 * and file URLs are left alone: the editor's own link detector finds them in any text document, and their
 * text is their target.
 */
async function ctrlClickEveryLink(page, editor) {
  const detected = editor.locator('.view-lines .detected-link');
  const anchors = editor.locator('.view-lines span', { hasText: /^[^ ]*LINK-/ });
  const clicked = [];
  const dialogs = [];
  for (const target of [detected, anchors]) {
    for (let i = 0; i < (await target.count()); i++) {
      const link = target.nth(i);
      const text = ((await link.textContent()) ?? '').trim();
      if (target === detected && /^(https?|file):\/\//.test(text) && !text.includes('LINK-')) continue;
      clicked.push(text.slice(0, 80));
      await link.click({ modifiers: ['Control'] });
      await page.waitForTimeout(300);
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
    // tall, so the whole viewer document is rendered at once and every link can be clicked
    page = await openWorkbench({ height: 2400 });
    await waitForIndexed(page);
    const { workspace, claudeConfigDir } = session.fixture;
    const dir = join(claudeConfigDir, 'projects', claudeProjectDir(workspace));
    mkdirSync(dir, { recursive: true });
    const sessionId = '7e57c0de-0000-4000-8000-00000000a55a';
    writeFileSync(join(dir, `${sessionId}.jsonl`), claudeSession({
      cwd: workspace, sessionId, start: new Date(Date.now() - 3_600_000).toISOString(),
      turns: [{ prompt: PROMPT, steps: [{ text: REPLY }] }],
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
    const frame = recallFrame(page);
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
    await page.locator('.editor-instance .view-lines', { hasText: 'xylophone' }).first().waitFor({ timeout: 15_000 });
  });

  it('runs nothing on a Ctrl+click on any link of the exchange viewer', async () => {
    const editor = page.locator('.editor-instance', { has: page.locator('.view-lines', { hasText: 'xylophone' }) }).first();
    await editor.locator('.view-lines', { hasText: 'LINK-send' }).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1500); // link providers run after the document renders
    const before = await sideEffects(page);
    const { clicked, dialogs } = await ctrlClickEveryLink(page, editor);
    await page.waitForTimeout(1500);
    await screenshot(page, 'xss-viewer-ctrl-click');
    assert.deepEqual(await sideEffects(page), before, `no terminal, no new editor after clicking ${clicked.join(' | ')}`);
    // an http(s) link may ask, naming its target; a file URL (found by the editor's own link detector, as in
    // any text document) may try to open that file read-only
    assert.ok(dialogs.every((d) => /example\.invalid|Unable to open 'passwd'/.test(d)), `only an http(s) link may ask, naming its target: ${dialogs.join(' | ')}`);
    assert.deepEqual(logger.hits, []);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.ok(clicked.length >= 9, `the payload links were there to click: ${clicked.join(' | ')}`);
  });

  it('shows it inert in the exchange viewer and its Markdown preview', async () => {
    // focus the viewer and open the palette by key (a click elsewhere would focus the recall panel, and the
    // Markdown commands apply to the active Markdown editor only)
    await page.locator('.editor-instance .view-lines', { hasText: 'xylophone' }).first().click();
    await page.keyboard.press('F1');
    const palette = page.locator('.quick-input-widget input.input');
    await palette.waitFor({ state: 'visible' });
    await palette.fill('>Markdown: Open Preview to the Side');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Open Preview to the Side' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    const preview = page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
    await preview.locator('body', { hasText: 'xylophone' }).waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    await screenshot(page, 'xss-viewer-preview');
    assert.deepEqual(await payloadsThatRan(page), []);
    const dangerous = await preview.locator('script:not([nonce]):not(#_vscodeApiScript), img[onerror], iframe[srcdoc], svg[onload], a[href^="javascript"], details[ontoggle]')
      .evaluateAll((els) => els.map((e) => e.outerHTML.slice(0, 120)));
    assert.deepEqual(dangerous, []);
    assert.equal(await preview.locator('a[href^="command:"], a[href^="vscode:"], a[href^="file:"]').count(), 0, 'no link to a command, URI handler or file');
    assert.deepEqual(logger.hits, [], 'nothing was loaded from the payloads\' URLs');
  });

  it('raises no errors in the page', () => {
    assert.deepEqual(page.pageErrors.filter((e) => !/ResizeObserver/.test(e)), []);
  });
});
