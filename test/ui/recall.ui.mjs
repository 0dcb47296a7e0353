// The editor experience in the real browser: the recall panel, the exchange viewer, the rooms tree and the
// file-path hover, each with a screenshot.
import assert from 'node:assert/strict';
import { openContainer, openWorkbench, runCommand, screenshot, session, waitForTreeItem, waitForView } from './lib.mjs';

/**
 * The document of the webview that holds `selector` (webviews live in nested iframes, several at once: the
 * recall panel and the exchange viewer), waiting for it to appear.
 */
export async function webviewFrame(page, selector, timeout = 30_000) {
  const until = Date.now() + timeout;
  for (;;) {
    for (const f of page.frames()) {
      if (f.name() === 'active-frame' || /fake\.html|index\.html/.test(f.url())) {
        if (await f.locator(selector).count().catch(() => 0)) return f;
      }
    }
    if (Date.now() > until) throw new Error(`no webview shows ${selector}`);
    await page.waitForTimeout(200);
  }
}

/** The recall panel's document. */
export function recallFrame(page) {
  return webviewFrame(page, '#query');
}

/** The exchange viewer's document once it shows an exchange. */
export function viewerFrame(page) {
  return webviewFrame(page, 'main.conversation');
}

/** Waits until the Index view shows the fixture's count, so searches see every exchange. */
export async function waitForIndexed(page) {
  await openContainer(page, 'Agent Recall');
  const index = await waitForView(page, 'Index');
  await waitForTreeItem(index, new RegExp(`^${session.fixture.expected.exchanges} exchanges`), 90_000);
}

/** Opens a workspace file through Quick Open. */
export async function quickOpen(page, name, attempts = 3) {
  // F1 opens the palette in commands mode; without the leading '>' it searches files (Ctrl+P is the browser's)
  const input = page.locator('.quick-input-widget input.input');
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 5_000 });
      await input.fill(name, { timeout: 5_000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 10_000 });
      return;
    } catch (err) {
      if (attempt >= attempts) throw err;
      console.log(`    (quick open attempt ${attempt} for ${name} failed: ${err.message.split('\n')[0]})`);
    }
  }
}

/**
 * The codicon font in a webview's document once its fonts settled: the face's status ('loaded', 'error' when
 * blocked or missing, or no face at all: `document.fonts.check` alone answers true for a family nobody declared),
 * the family the first icon is drawn in, and whether every icon is aria-hidden.
 */
async function codiconFont(frame) {
  await frame.waitForFunction(() => {
    const face = [...document.fonts].find((f) => f.family.replace(/["']/g, '') === 'codicon');
    return !face || face.status === 'loaded' || face.status === 'error';
  }, undefined, { timeout: 15_000 });
  return frame.evaluate(() => {
    const icons = [...document.querySelectorAll('.codicon')];
    const face = [...document.fonts].find((f) => f.family.replace(/["']/g, '') === 'codicon');
    return {
      icons: icons.length,
      status: face?.status ?? 'no @font-face for codicon',
      family: icons[0] ? getComputedStyle(icons[0]).fontFamily : '',
      hidden: icons.length > 0 && icons.every((i) => i.getAttribute('aria-hidden') === 'true'),
    };
  });
}

describe('Recall panel, viewer, rooms and hovers in the workbench', function () {
  this.timeout(180_000);
  let page;

  before(async () => {
    page = await openWorkbench();
    await waitForIndexed(page);
  });
  after(async () => {
    await page?.close();
  });

  it('opens the panel from the palette, shows candidates for a vague query, and Enter opens the exchange', async () => {
    await runCommand(page, 'Agent Recall: Recall Past Conversation');
    const frame = await recallFrame(page);
    const input = frame.locator('#query');
    await input.waitFor({ timeout: 30_000 });
    // before typing: the workspace's most recent exchanges, with their dates
    await frame.locator('.candidate').first().waitFor({ timeout: 15_000 });
    await frame.locator('.banner', { hasText: 'Most recent exchanges' }).waitFor();
    assert.match((await frame.locator('.candidate .meta').first().textContent()) ?? '', /\d{4}-\d\d-\d\d \(.*(ago|just now)\)/);
    await screenshot(page, 'recall-empty');
    await input.click();
    await input.pressSequentially('coupon lower case with spaces', { delay: 30 });
    const typed = Date.now();
    const first = frame.locator('.candidate').first();
    await frame.locator('#results[data-seq]').filter({ has: frame.locator('.candidate', { hasText: /spaces/ }) }).first().waitFor({ timeout: 15_000 });
    console.log(`    (candidates for the last keystroke visible ${Date.now() - typed} ms after typing stopped)`);
    await screenshot(page, 'recall-candidates');
    const headline = (await first.locator('.headline').textContent()) ?? '';
    assert.ok(headline.length > 10, `a headline: ${headline}`);
    assert.ok((await frame.locator('.candidate mark').count()) > 0, 'matched terms are marked');
    const why = (await first.locator('.why').textContent()) ?? '';
    assert.match(why, /^Your words “/, 'why it matched, in the user\'s words');
    assert.doesNotMatch(why, /bm25|vec\(|#\d/, 'no signal names or ranks');
    assert.match((await first.locator('.meta').textContent()) ?? '', /ago|just now/);
    // keyboard: down then up keeps the first selected, Enter opens it
    await input.press('ArrowDown');
    await input.press('ArrowUp');
    assert.equal(await first.getAttribute('aria-selected'), 'true');
    const groups = await page.locator('.editor-group-container').count();
    await input.press('Enter');
    const viewer = await viewerFrame(page);
    await viewer.locator('.turn.user').first().waitFor({ timeout: 15_000 });
    assert.ok(((await viewer.locator('h1').textContent()) ?? '').length > 5, 'a readable title');
    assert.match((await viewer.locator('.meta .date').textContent()) ?? '', /\d{4}, \d\d:\d\d UTC/);
    await screenshot(page, 'recall-exchange-open');
    // a second exchange opens in the same viewer, in the same group: no third group. Which one is second depends
    // on whether the vectors were ready when the query ran (fused or words only): it is followed by its id.
    const second = await frame.locator('.candidate').nth(1).getAttribute('data-id');
    assert.ok(second && second !== (await first.getAttribute('data-id')), 'two candidates');
    await input.press('ArrowDown');
    await input.press('Enter');
    await viewer.locator('footer', { hasText: second }).waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('.editor-group-container').count(), Math.max(groups, 2), 'the viewer beside the panel, reused');
    // Ctrl+Enter: the touched file opens beside the panel, which stays in view
    await input.press('Control+Enter');
    // 30 s: under load 10-14 (CI beside four benches) the file's tab once showed after more than 15
    await page.locator('.tabs-container .tab.active', { hasText: /\.js/ }).first().waitFor({ timeout: 30_000 }).catch(async (err) => {
      await screenshot(page, 'recall-ctrl-enter-failed');
      throw err;
    });
    assert.equal(await page.locator('.tabs-container .tab.active', { hasText: /^Recall/ }).count(), 1, 'the recall panel is still showing');
  });

  it('refines without retyping: an agent chip, "Not these" and "More like this"', async () => {
    const frame = await recallFrame(page);
    const candidates = frame.locator('.candidate');
    const unfiltered = await frame.locator('#results').getAttribute('data-seq');
    await frame.locator('button.chip', { hasText: /^SpecStory$/ }).click();
    await frame.locator('button.chip[aria-pressed="true"]', { hasText: /^SpecStory$/ }).waitFor();
    await frame.locator(`#results[data-seq]:not([data-seq="${unfiltered}"])`).waitFor({ state: 'attached', timeout: 10_000 }); // the filtered answer
    await frame.locator('.candidate .meta', { hasText: 'SpecStory' }).first().waitFor();
    const metas = await frame.locator('.candidate .meta').allTextContents();
    assert.ok((await frame.locator('.candidate .meta .title').count()) > 0, `SpecStory conversations show their title: ${metas.join(' | ')}`);
    assert.ok(metas.length > 0 && metas.every((m) => m.includes('SpecStory')), metas.join(' | '));
    await screenshot(page, 'recall-agent-chip');
    const shown = await candidates.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    const seq = await frame.locator('#results').getAttribute('data-seq');
    await frame.locator('button.chip', { hasText: 'Not these' }).click();
    await frame.locator('button.chip', { hasText: /hidden/ }).waitFor();
    await frame.locator(`#results[data-seq]:not([data-seq="${seq}"])`).waitFor({ state: 'attached', timeout: 10_000 }); // the answer to the new query (may be empty)
    const after = await candidates.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    assert.deepEqual(after.filter((id) => shown.includes(id)), [], 'hidden candidates do not come back');
    // one step at a time, each answer awaited: the hidden ones back (still SpecStory only), then every agent
    const hiddenSeq = await frame.locator('#results').getAttribute('data-seq');
    await frame.locator('button.chip', { hasText: /hidden/ }).click();
    await frame.locator(`#results[data-seq]:not([data-seq="${hiddenSeq}"])`).waitFor({ state: 'attached', timeout: 10_000 });
    await frame.locator('button.chip[aria-pressed="true"]', { hasText: /^SpecStory$/ }).click();
    await frame.locator('button.chip[aria-pressed="false"]', { hasText: /^SpecStory$/ }).waitFor({ timeout: 10_000 });
    await frame.locator('.candidate .meta', { hasText: 'Claude Code' }).first().waitFor().catch(async (err) => {
      await screenshot(page, 'recall-chip-off-failed');
      throw new Error(`${err.message}\ncandidates: ${(await frame.locator('.candidate .meta').allTextContents()).join(' | ')}`);
    });
    const before = await frame.locator('#query').inputValue();
    const seed = await frame.locator('.candidate').first().getAttribute('data-id');
    await frame.locator('.candidate').first().locator('button', { hasText: 'More like this' }).click();
    await frame.locator('button.chip[aria-pressed="true"]', { hasText: /^like: / }).waitFor();
    await frame.locator('#results[data-seq]').filter({ hasNot: frame.locator(`.candidate[data-id="${seed}"]`) }).waitFor({ timeout: 10_000 });
    await frame.locator('.candidate').first().waitFor();
    assert.equal(await frame.locator('#query').inputValue(), before, 'the query box keeps the user\'s words');
    const ids = await candidates.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    assert.ok(ids.length > 0 && !ids.includes(seed), 'the seed is not among its own "more like this"');
    await screenshot(page, 'recall-more-like-this');
  });

  it('"N more in this conversation" shows the matches the per-conversation cap left out, keeping the query', async () => {
    await runCommand(page, 'Agent Recall: Recall Past Conversation');
    const frame = await recallFrame(page);
    // a clean slate: no room, like or hidden chip left from an earlier test
    const removable = frame.locator('button.chip.active:has(.codicon-close)');
    while (await removable.count()) await removable.first().click();
    const input = frame.locator('#query');
    const before = await input.inputValue();
    // the Claude Code session's three exchanges match these six words: two per conversation are shown, one is left out
    // (a query of five words or fewer sees up to six of a conversation: searcher.ts, SHORT_QUERY_TERMS)
    const words = 'coupon check case insensitive unit tests';
    await input.fill(words);
    const candidate = frame.locator('.candidate:has(mark):has(button.more)').first();
    const link = candidate.locator('button.more');
    await link.waitFor({ timeout: 15_000 });
    const n = Number(/^(\d+) more in this conversation$/.exec((await link.textContent()) ?? '')?.[1]);
    assert.ok(n > 0, await link.textContent());
    const agent = /· ([^·]+?)(?: · not distilled yet)?$/.exec((await candidate.locator('.meta').textContent()) ?? '')?.[1];
    const shown = await frame.locator('.candidate').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    const seq = await frame.locator('#results').getAttribute('data-seq');
    await screenshot(page, 'recall-more-link');
    // keyboard-reachable: a button in the candidate, focused and pressed
    await link.focus();
    await link.press('Enter');
    await frame.locator('button.chip[aria-pressed="true"]:has(.codicon-close)', { hasText: /^conversation: .+$/ }).waitFor({ timeout: 10_000 });
    await frame.locator(`#results[data-seq]:not([data-seq="${seq}"])`).waitFor({ state: 'attached', timeout: 10_000 });
    await frame.locator('.banner', { hasText: 'Every match in the conversation' }).waitFor();
    assert.equal(await input.inputValue(), words, 'the query box keeps the user\'s words');
    const ids = await frame.locator('.candidate').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    assert.equal(ids.filter((id) => !shown.includes(id)).length, n, `the ${n} left out are shown now: ${ids.join(', ')}`);
    const metas = await frame.locator('.candidate .meta').allTextContents();
    assert.ok(agent && metas.every((m) => m.includes(agent)), `all of one conversation (${agent}): ${metas.join(' | ')}`);
    assert.equal(await frame.locator('.candidate button.more').count(), 0, 'nothing is left out within the conversation');
    await screenshot(page, 'recall-more-in-conversation');
    // without text the chip lists the whole conversation, first exchange to last
    await input.fill('');
    await frame.locator('.banner', { hasText: 'first exchange to last' }).waitFor({ timeout: 10_000 });
    await frame.locator('button.chip', { hasText: /^conversation: / }).click();
    await frame.locator('button.chip', { hasText: /^conversation: / }).waitFor({ state: 'detached', timeout: 10_000 });
    await frame.locator('.banner', { hasText: 'Most recent exchanges' }).waitFor({ timeout: 10_000 });
    // leave the query as it was found: code-server saves a webview's state on its own schedule, so a query
    // changed just before the reload test could come back as an older one there (it did once in CI)
    const listed = await frame.locator('#results').getAttribute('data-seq');
    await input.fill(before);
    if (before.trim()) await frame.locator(`#results[data-seq]:not([data-seq="${listed}"])`).waitFor({ state: 'attached', timeout: 10_000 });
  });

  it('high contrast: a pressed chip and the matched words stand out by their border, as the workbench draws toggles and find matches', async () => {
    await runCommand(page, 'Agent Recall: Recall Past Conversation');
    const frame = await recallFrame(page);
    const input = frame.locator('#query');
    const before = await input.inputValue();
    await input.fill('coupon');
    await frame.locator('.candidate .snippet mark').first().waitFor({ timeout: 15_000 });
    await frame.locator('button.chip', { hasText: /^Claude Code$/ }).click();
    await frame.locator('button.chip[aria-pressed="true"]', { hasText: /^Claude Code$/ }).waitFor();
    await frame.locator('.candidate .snippet mark').first().waitFor({ timeout: 10_000 });
    // the theme picker's own rows, clicked: Enter would take whichever row the palette puts first
    const theme = async (name) => {
      const palette = page.locator('.quick-input-widget input.input');
      await page.keyboard.press('F1');
      await palette.fill('>Preferences: Color Theme');
      await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Preferences: Color Theme' }).filter({ hasNotText: 'Browse' }).first().click();
      await palette.fill(name);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click();
    };
    const was = (await page.locator('.monaco-workbench').getAttribute('class'))?.includes('vs-dark') ? 'Dark Modern' : 'Light Modern';
    await theme('Dark High Contrast');
    try {
      await page.locator('.monaco-workbench.hc-black').waitFor({ timeout: 20_000 });
      // the webview gets the theme's colours as CSS variables, a moment after the workbench
      const drawn = await frame
        .waitForFunction(() => {
          const style = (selector) => getComputedStyle(document.querySelector(selector));
          const on = style('button.chip[aria-pressed="true"]').borderTopColor;
          const off = style('button.chip[aria-pressed="false"]').borderTopColor;
          const mark = style('.candidate .snippet mark');
          const seen = (colour) => colour && colour !== 'rgba(0, 0, 0, 0)' && colour !== 'transparent';
          return on !== off && seen(on) && mark.outlineStyle === 'dotted' && seen(mark.outlineColor) ? { on, off, mark: mark.outlineColor } : false;
        }, undefined, { timeout: 15_000 })
        .then((h) => h.jsonValue());
      assert.ok(drawn, 'a pressed chip and a mark have borders of their own');
      await screenshot(page, 'recall-high-contrast');
    } finally {
      await theme(was);
      await page.locator('.monaco-workbench.hc-black').waitFor({ state: 'detached', timeout: 20_000 });
    }
    await frame.locator('button.chip[aria-pressed="true"]', { hasText: /^Claude Code$/ }).click();
    await frame.locator('button.chip[aria-pressed="false"]', { hasText: /^Claude Code$/ }).waitFor({ timeout: 10_000 });
    // leave the query as it was found (see the test above)
    const seq = await frame.locator('#results').getAttribute('data-seq');
    await input.fill(before);
    if (before.trim() && before !== 'coupon') await frame.locator(`#results[data-seq]:not([data-seq="${seq}"])`).waitFor({ state: 'attached', timeout: 10_000 });
  });

  it('expands the rooms tree to an exchange and opens it', async () => {
    await openContainer(page, 'Agent Recall');
    const rooms = await waitForView(page, 'Rooms');
    const typeRow = rooms.locator('.monaco-list-row[aria-level="1"]').first();
    await typeRow.waitFor({ timeout: 30_000 });
    const room = rooms.locator('.monaco-list-row[aria-level="2"]').first();
    await room.waitFor({ timeout: 10_000 });
    await room.click();
    const exchange = rooms.locator('.monaco-list-row[aria-level="3"]').first();
    await exchange.waitFor({ timeout: 10_000 });
    await screenshot(page, 'rooms-tree');
    assert.match((await room.textContent()) ?? '', /\d+ · /);
    await exchange.click();
    await (await viewerFrame(page)).locator('.turn.user').first().waitFor({ timeout: 15_000 });
  });

  it('lists the exchanges that touched a file when hovering its path', async () => {
    await quickOpen(page, 'checkout.js');
    // the string token './cart.js' on line 1 (an innermost span, not the whole line)
    const path = page.locator('.editor-instance .view-lines .view-line span span', { hasText: /^'\.\/cart\.js'$/ }).first();
    await path.waitFor();
    const hover = page.locator('.monaco-hover-content', { hasText: /Touched in \d+ agent exchange/ }).first();
    for (let i = 0; i < 5 && !(await hover.isVisible()); i++) {
      await page.mouse.move(0, 0);
      await path.hover();
      await hover.waitFor({ timeout: 4_000 }).catch(() => {});
    }
    await hover.waitFor({ timeout: 5_000 }).catch(async (err) => {
      await screenshot(page, 'file-path-hover-failed');
      throw err;
    });
    await screenshot(page, 'file-path-hover');
    const text = (await hover.textContent()) ?? '';
    const n = Number(/src\/cart\.js — Touched in (\d+) agent exchanges/.exec(text)?.[1]);
    assert.ok(n > 0, text);
    // one line per exchange (at most 8), each with its date, agent and how (headlines depend on the distiller)
    const lines = await hover.locator('li').allTextContents();
    assert.equal(lines.length, Math.min(n, 8), lines.join(' | '));
    assert.ok(lines.every((l) => / · \p{Lu}[\p{L} ]* · (read|edit|write|mention)/u.test(l)), lines.join(' | '));
  });

  it('brings the panel (with its query) and the viewer back after a window reload', async () => {
    const query = await (await recallFrame(page)).locator('#query').inputValue();
    const title = ((await (await viewerFrame(page)).locator('h1').textContent()) ?? '').slice(0, 20);
    // VS Code's own reload: it saves the workbench's state (the panel's query with it) before it reloads; a browser
    // refresh leaves that to an asynchronous storage write, which a fast reload can beat (seen once in CI)
    const reloaded = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 90_000 });
    await runCommand(page, 'Developer: Reload Window');
    await reloaded;
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
    // the panel is restored with the extension, which a loaded machine starts late (30 s was too short at load 15)
    const frame = await webviewFrame(page, '#query', 90_000);
    await frame.locator('.candidate').first().waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('#query').inputValue(), query);
    // The viewer's tab is back (behind the file Ctrl+Enter opened); a webview restores when it is shown.
    // Its label is the one the workbench saved last: a title set just before the reload may not be saved
    // yet (the browser's storage is written asynchronously), so try its tab first, then the others.
    const tabs = page.locator('.tabs-container .tab');
    await tabs.first().waitFor({ timeout: 30_000 });
    const labels = await tabs.allTextContents();
    const order = labels.map((_, i) => i).sort((a, b) => Number(!labels[b].includes(title)) - Number(!labels[a].includes(title)));
    let viewer;
    for (const i of order) {
      await tabs.nth(i).click();
      viewer = await webviewFrame(page, 'main.conversation .turn', 5_000).catch(() => undefined);
      if (viewer) break;
    }
    assert.ok(viewer, `no tab brings the exchange viewer back; tabs: ${labels.join(' | ')}`);
    assert.ok(((await viewer.locator('h1').textContent()) ?? '').trim().length > 0, 'the restored viewer shows an exchange');
    await screenshot(page, 'recall-after-reload');
  });

  it('draws codicons in the panel and the viewer: the icon font loads inside each webview and no CSP blocks it', async () => {
    await runCommand(page, 'Agent Recall: Recall Past Conversation');
    const frame = await recallFrame(page);
    await frame.locator('#query').fill('coupon');
    await frame.locator('.candidate .files .codicon-file').first().waitFor({ timeout: 15_000 });
    await frame.locator('.chips .codicon-eye-closed').waitFor();
    await frame.locator('.candidate .actions .codicon-open-preview').first().waitFor();
    await frame.locator('#query').press('Enter');
    const viewer = await viewerFrame(page);
    await viewer.locator('.nav .codicon-go-to-file').waitFor({ timeout: 15_000 });
    for (const [name, f] of [['recall panel', frame], ['exchange viewer', viewer]]) {
      const font = await codiconFont(f);
      assert.equal(font.status, 'loaded', `${name}: the codicon font face (${JSON.stringify(font)})`);
      assert.match(font.family, /codicon/, `${name}: icons are drawn in the codicon font`);
      assert.ok(font.hidden, `${name}: every icon is hidden from screen readers (its label is text)`);
    }
    // every icon button keeps a text name for screen readers
    for (const f of [frame, viewer]) {
      const unnamed = await f.locator('button:has(.codicon)').evaluateAll((els) => els.filter((b) => !(b.getAttribute('aria-label') || b.textContent || '').trim()).length);
      assert.equal(unnamed, 0, 'an icon button without a text name');
    }
    await screenshot(page, 'codicons-panel-and-viewer');
    assert.deepEqual(page.cspViolations, []);
  });

  it('raises no errors in the page', () => {
    assert.deepEqual(page.pageErrors.filter((e) => !/ResizeObserver/.test(e)), []);
  });
});
