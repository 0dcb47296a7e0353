// Transcript text is untrusted: a transcript carrying command: links, <script>, <img onerror>, javascript:
// links, Markdown HTML, escaping bypasses, links to this computer, words that look like domains and hidden
// characters (a right-to-left override in a file name, zero-width and control characters) must render inert
// and visible in the recall panel, the exchange viewer, the File History and Rooms trees, the CodeLens, its
// quick pick and the file-path hover; a click or Ctrl+click on any link of it runs nothing, and a link to this
// computer opens only after a dialog showing where it goes. Asserted in the browser: no frame's window saw the
// payloads run, no such element exists, no terminal, editor or page appeared, no hidden character is left to
// draw, and the local logger that every payload URL points at received nothing. The raw view, the Index view
// and the status bar are covered by xssRaw.ui.mjs.
import assert from 'node:assert/strict';
import { openContainer, openWorkbench, runCommand, screenshot, waitForView } from './lib.mjs';
import {
  dismissDialog, hostileTranscripts, LINK_LOOKALIKES, localLinks, payloadsThatRan, RAW_HIDDEN, sideEffects, SPOOFED_SHOWN,
} from './hostile.mjs';
import { quickOpen, recallFrame, viewerFrame } from './recall.ui.mjs';

/** Shown text that must carry the spoofed name as its characters and no hidden character left to draw. */
function assertVisible(text, where) {
  assert.ok(!RAW_HIDDEN.test(text), `${where} draws a hidden character: ${JSON.stringify(text.slice(0, 300))}`);
  assert.ok(text.includes('⟨U+202E⟩'), `${where} shows the right-to-left override: ${JSON.stringify(text.slice(0, 300))}`);
}

/** Whether a link's target is this computer (those are clicked by their own test, which expects a dialog). */
function isLocal(href) {
  try {
    return ['127.0.0.1', 'localhost'].includes(new URL(href).hostname);
  } catch {
    return false;
  }
}

/**
 * Clicks, then Ctrl+clicks, every link and inert link (with its shown target) in the viewer but those to this
 * computer; dismisses any dialog a click raised and returns what was clicked and the dialogs' texts.
 */
async function clickEveryLink(page, viewer) {
  const targets = viewer.locator('#app a, #app .inert-link, #app .link-target');
  const clicked = [];
  const dialogs = [];
  const n = await targets.count();
  for (let i = 0; i < n; i++) {
    const t = targets.nth(i);
    if (isLocal((await t.getAttribute('data-target')) ?? '')) continue;
    clicked.push(((await t.textContent()) ?? '').trim().slice(0, 60));
    for (const modifiers of [[], ['Control']]) {
      await t.click({ modifiers, timeout: 5_000 }).catch(() => {});
      const dialog = await dismissDialog(page, 250);
      if (dialog !== undefined) dialogs.push(dialog.slice(0, 200));
    }
  }
  return { clicked, dialogs };
}

describe('Hostile transcripts render inert', function () {
  this.timeout(180_000);
  let page;
  let logger;

  before(async () => {
    page = await openWorkbench();
    ({ logger } = await hostileTranscripts(page));
  });
  after(async () => {
    await page?.close();
  });

  it('shows the hostile exchange in the recall panel as text, hidden characters written out, and nothing runs', async () => {
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
    const results = frame.locator('#results');
    try {
      const text = (await hit.textContent()) ?? '';
      const all = (await results.textContent()) ?? '';
      assert.match(all, /\[LINK-terminal\]\(command:workbench\.action\.terminal\.new\)/, 'the link is shown as text');
      assertVisible(text, 'the candidate');
      assert.ok(!RAW_HIDDEN.test(all), 'no candidate draws a hidden character');
      assertVisible((await hit.locator('.headline').textContent()) ?? '', 'its headline');
      const files = await hit.locator('.files .file').allTextContents();
      assert.ok(files.some((f) => f.includes(SPOOFED_SHOWN)), `the file chip names the file as it is stored: ${files.join(' | ')}`);
      assert.equal(await results.locator('img, script, iframe, svg, a, details').count(), 0, 'no element was created from transcript text');
      // the markup lies beyond the first snippet's window (the hidden characters come first): words of it move the window there
      await input.fill('');
      await input.pressSequentially('xylophone img onerror', { delay: 20 });
      await results.locator('.candidate', { hasText: 'onerror=' }).first().waitFor({ timeout: 15_000 });
      const markup = (await results.textContent()) ?? '';
      assert.ok(markup.includes(`<img src="${logger.url}/img" onerror=`), `the markup is shown as text: ${markup.slice(0, 600)}`);
      assert.equal(await results.locator('img, script, iframe, svg, a, details').count(), 0, 'no element was created from the markup');
      assert.deepEqual(await payloadsThatRan(page), []);
    } finally {
      // the viewer the next tests read opens whatever this one found
      await input.press('Enter');
    }
  });

  it('shows it in the exchange viewer as text: only explicit http(s) links, saying where they go; hidden characters written out; nothing loads', async () => {
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
    // issue 44 item 3: a word that looks like a domain, an e-mail address or an IP address is not a link
    const fuzzy = links.filter(([h, text]) => LINK_LOOKALIKES.some((w) => text.includes(w) || h.includes(w)));
    assert.deepEqual(fuzzy, [], 'no link was guessed from words');
    for (const w of LINK_LOOKALIKES) assert.ok((await app.locator('main.conversation', { hasText: w }).count()) > 0, `${w} is shown as text`);
    const inert = await app.locator('.inert-link').allTextContents();
    assert.ok(inert.some((t) => /LINK-terminal/.test(t)) && inert.some((t) => /LINK-vscode/.test(t)), `command: and vscode: links are inert text: ${inert.join(' | ')}`);
    assert.ok((await app.locator('.link-target.inert', { hasText: 'command:workbench.action.terminal.new' }).count()) > 0, 'an inert link shows its target');
    // issue 44 item 4: the file chip, the title and the conversation show hidden characters as characters
    const chips = await app.locator('.files .file').allTextContents();
    assert.ok(chips.some((c) => c.includes(SPOOFED_SHOWN)), `the file chip names the file as stored: ${chips.join(' | ')}`);
    assertVisible((await app.textContent()) ?? '', 'the viewer');
    const title = (await app.locator('h1').textContent()) ?? '';
    assertVisible(title, "the viewer's title");
    // its tab title is the same headline, cut shorter
    const tabs = (await page.locator('.tabs-container .tab').allTextContents()).join(' | ');
    assert.ok(tabs.includes(title.slice(0, 20)) && !RAW_HIDDEN.test(tabs), `the viewer's tab title draws no hidden character: ${JSON.stringify(tabs)}`);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, [], 'nothing was loaded from the payloads\' URLs');
  });

  it('runs nothing on a click or Ctrl+click on any link of the exchange viewer', async () => {
    const viewer = await viewerFrame(page);
    const before = await sideEffects(page);
    const { clicked, dialogs } = await clickEveryLink(page, viewer);
    await page.waitForTimeout(1500);
    await screenshot(page, 'xss-viewer-after-clicks');
    assert.deepEqual(await sideEffects(page), before, `no terminal, no new editor or page after clicking ${clicked.join(' | ')}`);
    // an http(s) link may only ask, naming its target
    assert.ok(dialogs.length > 0 && dialogs.every((d) => /https:\/\/example\.invalid\/where-it-goes/.test(d)), `only an http(s) link asks, naming its whole URL: ${dialogs.join(' | ')}`);
    assert.deepEqual(logger.hits, []);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.ok(clicked.length >= 9, `the payload links were there to click: ${clicked.join(' | ')}`);
  });

  it('opens a link to this computer only after a dialog showing its whole URL, however its host is written (issue 44 item 2)', async () => {
    const viewer = await viewerFrame(page);
    const port = new URL(logger.url).port;
    const expected = localLinks(logger.url).map((l) => /\((http[^)]+)\)|^(http\S+)/.exec(l)).map((m) => m[1] ?? m[2]);
    const before = await sideEffects(page);
    let shot = false;
    for (const href of expected) {
      const link = viewer.locator(`#app a[data-target="${href}"]`).first();
      await link.click({ timeout: 5_000 });
      const dialog = await dismissDialog(page, 5_000);
      if (!shot && dialog !== undefined) {
        shot = true;
        await link.click();
        await page.locator('.monaco-dialog-box').waitFor();
        await screenshot(page, 'xss-local-link-dialog');
        await dismissDialog(page);
      }
      // the URL that would open: a host written as a number is the address it stands for
      const shown = new URL(href).href;
      assert.ok(dialog?.includes(shown), `a dialog shows ${shown} before ${href} opens: ${dialog}`);
      assert.match(dialog ?? '', new RegExp(`this computer \\((127\\.0\\.0\\.1|localhost)\\)`), `it says the link points to this computer: ${dialog}`);
      assert.ok(dialog?.includes(`:${port}/`));
    }
    await page.waitForTimeout(1000);
    assert.deepEqual(await sideEffects(page), before, 'no page opened');
    assert.deepEqual(logger.hits, [], 'nothing reached this computer\'s server');
  });

  it('shows its headline as text, hidden characters written out, in the File History tree and in the file-path hover', async () => {
    await quickOpen(page, 'cart.js');
    // the Agent Recall side bar is still open from before (its activity-bar item would toggle it closed)
    const history = await waitForView(page, 'File History');
    const row = history.locator('.monaco-list-row', { hasText: 'xylophone' }).first();
    await row.waitFor({ timeout: 30_000 });
    await screenshot(page, 'xss-file-history');
    assert.equal(await history.locator('.monaco-list-row').locator('img, script, iframe, a[href]').count(), 0, 'tree rows are text');
    assertVisible((await row.textContent()) ?? '', 'the File History row');
    // its tooltip holds the distilled core, transcript text: the characters it is, and no link made of it
    const tooltip = page.locator('.workbench-hover', { hasText: 'xylophone' }).first();
    for (let i = 0; i < 5 && !(await tooltip.isVisible()); i++) {
      await page.mouse.move(0, 0);
      await row.hover();
      await tooltip.waitFor({ timeout: 4_000 }).catch(() => {});
    }
    assertVisible((await tooltip.textContent()) ?? '', 'the File History tooltip');
    assert.equal(await tooltip.locator('img, script, iframe, svg, a').count(), 0, 'no element was made from it');
    await page.mouse.move(0, 0);
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
    assertVisible((await hover.textContent()) ?? '', 'the hover');
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, []);
  });

  it('shows its headline as text in the Rooms tree, hidden characters written out, where a click opens the exchange and runs nothing else', async () => {
    await openContainer(page, 'Agent Recall').catch(() => {});
    const rooms = await waitForView(page, 'Rooms');
    const room = rooms.locator('.monaco-list-row[aria-level="2"]', { hasText: 'cart.js' }).first();
    await room.waitFor({ timeout: 30_000 });
    if ((await room.getAttribute('aria-expanded')) !== 'true') await room.click();
    const row = rooms.locator('.monaco-list-row[aria-level="3"]', { hasText: 'xylophone' }).first();
    await row.waitFor({ timeout: 15_000 });
    assert.equal(await rooms.locator('.monaco-list-row').locator('img, script, iframe, svg, a[href]').count(), 0, 'tree rows are text');
    assertVisible((await row.textContent()) ?? '', 'the Rooms row');
    const all = (await rooms.locator('.monaco-list-row').allTextContents()).join(' | ');
    assert.ok(!RAW_HIDDEN.test(all), `no room or exchange row draws a hidden character: ${JSON.stringify(all)}`);
    // its tooltip holds the distilled core and detail, transcript text: shown as the characters it is
    const tooltip = page.locator('.workbench-hover', { hasText: 'xylophone' }).first();
    for (let i = 0; i < 5 && !(await tooltip.isVisible()); i++) {
      await page.mouse.move(0, 0);
      await row.hover();
      await tooltip.waitFor({ timeout: 4_000 }).catch(() => {});
    }
    await screenshot(page, 'xss-rooms');
    assertVisible((await tooltip.textContent()) ?? '', 'the Rooms tooltip');
    assert.equal(await tooltip.locator('img, script, iframe, svg, a').count(), 0, 'no element was made from it');
    const before = await sideEffects(page);
    await row.click();
    const viewer = await viewerFrame(page);
    await viewer.locator('main.conversation', { hasText: 'xylophone' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await sideEffects(page), before);
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, []);
  });

  it('shows its headline as text in the CodeLens above the lines it edited and in the lens\'s quick pick; a click opens the exchange, nothing else', async () => {
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
    assert.match(text, /xylophone \$\(alert\) at src\/evil⟨U\+202E⟩sts/, text);
    assertVisible(text, 'the CodeLens');
    // a lens is the extension's own command link: one per lens, none made from transcript text
    assert.equal(await lenses.locator('a').count(), await lenses.count(), `no links but the lenses themselves: ${text}`);
    const before = await sideEffects(page);
    await edited.locator('a').first().click();
    const viewer = await viewerFrame(page);
    await viewer.locator('main.conversation', { hasText: 'xylophone' }).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1000);
    // the viewer's own tab is the one editor the click may add (none when the viewer was already open)
    const after = await sideEffects(page);
    assert.ok(after.editors - before.editors <= 1, `at most the viewer's tab is new: ${JSON.stringify({ before, after })}`);
    assert.deepEqual({ ...after, editors: before.editors }, before, 'no terminal, no untitled editor, no page');
    // cart.js was touched by several exchanges: its lens offers them in a quick pick, headlines as text
    await quickOpen(page, 'cart.js');
    const touched = lenses.filter({ hasText: /agent exchanges touched this file/ }).first();
    await touched.waitFor({ timeout: 30_000 });
    await touched.locator('a').first().click();
    const picks = page.locator('.quick-input-list .monaco-list-row');
    const pick = picks.filter({ hasText: 'xylophone' }).first();
    await pick.waitFor({ timeout: 10_000 });
    await screenshot(page, 'xss-quick-pick');
    assertVisible((await pick.textContent()) ?? '', 'the quick pick');
    assert.match((await pick.textContent()) ?? '', /\$\(alert\)/);
    assert.equal(await page.locator('.quick-input-list .codicon-alert').count(), 0, 'transcript text draws no icon in the quick pick');
    await page.keyboard.press('Escape');
    assert.deepEqual(await payloadsThatRan(page), []);
    assert.deepEqual(logger.hits, []);
  });

  it('raises no errors in the page', () => {
    assert.deepEqual(page.pageErrors.filter((e) => !/ResizeObserver/.test(e)), []);
  });
});
