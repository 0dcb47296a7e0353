// First run and everyday use (issue 15) as a person meets it: the status item and what its click shows, the
// command palette, the walkthrough, File History rows in a narrow side bar, and the CodeLens.
import assert from 'node:assert/strict';
import { openContainer, openWorkbench, paletteEntries, runCommand, screenshot, waitForTreeItem, waitForView } from './lib.mjs';
import { quickOpen, recallFrame, waitForIndexed } from './recall.ui.mjs';

describe('First run and everyday use in the workbench', function () {
  this.timeout(180_000);
  let page;

  before(async () => {
    page = await openWorkbench();
    await waitForIndexed(page);
  });
  after(async () => {
    await page?.close();
  });

  it('gives the status item a label a screen reader reads as words (issue 39: it read Agent&nbsp;Recall… \\(built-in…\\))', async () => {
    const item = page.locator('.part.statusbar .statusbar-item', { hasText: /Recall: \d+ exchanges/ }).first();
    await item.waitFor({ timeout: 30_000 });
    const labelled = item.locator('[aria-label]').first();
    const label = (await item.getAttribute('aria-label')) ?? (await labelled.getAttribute('aria-label')) ?? '';
    assert.match(label, /^Agent Recall: \d+ past agent exchanges in \d+ conversations of this workspace; semantic search (on \(the built-in model\)|off)\./, label);
    assert.doesNotMatch(label, /&nbsp;|\\/, label);
  });

  it('names itself in the status bar; a click shows the summary in the Index view', async () => {
    const item = page.locator('.part.statusbar .statusbar-item', { hasText: /Recall: \d+ exchanges/ }).first();
    await item.waitFor({ timeout: 30_000 });
    // another side bar showing: the click must bring the summary forward, not a notification VS Code cuts short
    await page.locator('.part.activitybar .action-item a[aria-label^="Explorer"]').first().click();
    await page.locator('.part.sidebar .composite.title', { hasText: /Explorer/i }).waitFor({ timeout: 10_000 });
    await item.click();
    const index = await waitForView(page, 'Index', 15_000);
    await waitForTreeItem(index, /Semantic search: (off|on|loading)/, 15_000);
    await waitForTreeItem(index, /Recall a past conversation/, 5_000);
    await waitForTreeItem(index, /\d+ distilled/, 5_000);
    await screenshot(page, 'status-click-index-view');
  });

  it('the recall panel says whether semantic search is on, and its example fits this workspace', async () => {
    await runCommand(page, 'Agent Recall: Recall Past Conversation');
    const frame = await recallFrame(page);
    const input = frame.locator('#query');
    await input.waitFor({ timeout: 30_000 });
    const banner = frame.locator('.banner', { hasText: /Semantic search (off|on)/ });
    await banner.waitFor({ timeout: 15_000 });
    assert.doesNotMatch((await banner.textContent()) ?? '', /Semantic search[^]*Semantic search/, 'the banner says it once');
    // the default model, named as people read it (not its stored id, built-in:word-vectors-100d-200k@1)
    const on = frame.locator('.banner', { hasText: /Semantic search on/ });
    await on.waitFor({ timeout: 15_000 });
    assert.match((await on.textContent()) ?? '', /Semantic search on \(the built-in model\)/);
    // the example comes from the workspace's own rooms (the fixture has no "coupon rounding")
    const placeholder = await input.evaluate(async (el) => {
      for (let i = 0; i < 50 && !/e\.g\./.test(el.placeholder); i++) await new Promise((r) => setTimeout(r, 100));
      return el.placeholder;
    });
    assert.match(placeholder, /^Describe what you remember… \(e\.g\. "what did we decide about [^"]+"\)$/);
    // a room of the fixture named by an identifier keeps its case (not "carttotalcents")
    assert.doesNotMatch(placeholder, /carttotalcents|checkoutsummary/, placeholder);
    await screenshot(page, 'recall-empty-semantic');
    await page.keyboard.press('Escape');
  });

  it('keeps view-only commands out of the palette, and "Clear Anthropic API Key" while there is no key', async () => {
    const shown = await paletteEntries(page, 'Agent Recall: ', 'palette-first-run');
    for (const hidden of ['Sort Rooms by Recency', 'Sort Rooms by Size', 'Filter Rooms', 'Clear Anthropic API Key', 'Open Agent Exchanges']) {
      assert.ok(!shown.some((s) => s.includes(`Agent Recall: ${hidden}`)), `"${hidden}" is in the palette: ${shown.join(' | ')}`);
    }
    assert.ok(shown.some((s) => s.includes('Agent Recall: Choose Semantic Search Model')), shown.join(' | '));
  });

  it('"Choose Semantic Search Model" offers the built-in model first, a download and a local folder, and fetches nothing unasked', async () => {
    await runCommand(page, 'Agent Recall: Choose Semantic Search Model');
    const box = page.locator('.monaco-dialog-box', { hasText: 'Which model should semantic search use?' }).first();
    await box.waitFor({ timeout: 10_000 });
    const buttons = (await box.locator('.monaco-button').allTextContents()).map((t) => t.trim()).filter(Boolean);
    for (const b of ['Use Built-in Model', 'Download Model', 'Choose Local Folder…']) assert.ok(buttons.includes(b), buttons.join(' | '));
    assert.match((await box.textContent()) ?? '', /built-in model .* needs no download/);
    await screenshot(page, 'choose-semantic-model');
    await box.locator('.monaco-button', { hasText: /^Use Built-in Model$/ }).first().click();
    await box.waitFor({ state: 'hidden', timeout: 10_000 });
    const index = await waitForView(page, 'Index');
    assert.match(await waitForTreeItem(index, /Semantic search: on/, 15_000), /built-in \(100-d\)/);
  });

  it('offers a walkthrough: where memories come from, the recall key, semantic search, LLM distillation', async () => {
    await runCommand(page, 'Welcome: Open Walkthrough...');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Agent Recall' }).first();
    await pick.waitFor({ timeout: 15_000 });
    await pick.click();
    const steps = page.locator('.gettingStartedContainer');
    for (const title of ['Where your memories come from', 'Recall with Ctrl+Alt+R', 'Semantic search', 'Distill with an LLM']) {
      await steps.locator('.getting-started-step', { hasText: title }).first().waitFor({ timeout: 15_000 });
    }
    await screenshot(page, 'walkthrough');
  });

  it('shows date and agent of every File History row whole in a narrow side bar', async () => {
    await quickOpen(page, 'cart.js');
    await openContainer(page, 'Agent Recall');
    const view = await waitForView(page, 'File History');
    await waitForTreeItem(view, /· Claude Code|· Codex|· Aider|· SpecStory/, 30_000);
    await screenshot(page, 'file-history');
    const cut = await view.locator('.monaco-list-row .label-name').evaluateAll((els) =>
      els.filter((el) => el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().right > el.closest('.monaco-list-row').getBoundingClientRect().right).map((el) => el.textContent),
    );
    assert.deepEqual(cut, []);
  });

  it('shows a CodeLens above a file with history and above the lines an agent edited', async () => {
    await quickOpen(page, 'checkout.js');
    const lenses = page.locator('.monaco-editor .codelens-decoration');
    await lenses.filter({ hasText: /agent exchanges touched this file/ }).first().waitFor({ timeout: 30_000 });
    await lenses.filter({ hasText: /agent exchange edited this/ }).first().waitFor({ timeout: 10_000 });
    await screenshot(page, 'codelens');
  });
});
