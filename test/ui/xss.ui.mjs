// Transcript text is untrusted: a transcript carrying <script>, <img onerror>, javascript: links and
// Markdown HTML must render inert in the recall panel and in the exchange viewer (and its Markdown
// preview). Asserted in the browser: no frame's window saw the payloads run, and no such element exists.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeProjectDir, claudeSession } from '../host/transcripts.mjs';
import { openContainer, openWorkbench, runCommand, screenshot, session, waitForTreeItem, waitForView } from './lib.mjs';
import { recallFrame, waitForIndexed } from './recall.ui.mjs';

const PROMPT =
  'Why does the xylophone widget break? <script>window.__xss="script"</script> ' +
  '<img src=x onerror="window.__xss=\'img\'"> [click me](javascript:window.__xss=\'link\') ' +
  '<iframe srcdoc="<script>parent.__xss=\'iframe\'</script>"></iframe>';
const REPLY =
  'The xylophone widget broke because of this:\n```\n<script>window.__xss="fence"</script>\n```\n' +
  '<a href="javascript:window.__xss=\'a\'">details</a> <svg onload="window.__xss=\'svg\'"></svg> ' +
  '<details open ontoggle="window.__xss=\'toggle\'">x</details>';

/** Every frame of the page (workbench, webviews, their inner frames): did any payload run? */
async function payloadsThatRan(page) {
  const ran = [];
  for (const f of page.frames()) {
    const v = await f.evaluate(() => window.__xss).catch(() => undefined);
    if (v !== undefined) ran.push(`${f.url().slice(0, 80)}: ${v}`);
  }
  return ran;
}

describe('Hostile transcripts render inert', function () {
  this.timeout(180_000);
  let page;

  before(async () => {
    page = await openWorkbench();
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
    assert.match(text, /<script>window\.__xss="script"<\/script>|<img src=x onerror=/, 'the markup is shown as text');
    const results = frame.locator('#results');
    assert.equal(await results.locator('img, script, iframe, svg, a, details').count(), 0, 'no element was created from transcript text');
    assert.deepEqual(await payloadsThatRan(page), []);
    await input.press('Enter');
    await page.locator('.editor-instance .view-lines', { hasText: 'xylophone' }).first().waitFor({ timeout: 15_000 });
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
  });

  it('raises no errors in the page', () => {
    assert.deepEqual(page.pageErrors.filter((e) => !/ResizeObserver/.test(e)), []);
  });
});
