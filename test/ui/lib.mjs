// Small helpers for UI tests on the real workbench (code-server + Chromium). test/ui/run.mjs starts the
// server and sets `session` before the test files load; a test only opens a page and uses the helpers:
//
//   const page = await openWorkbench();
//   await openContainer(page, 'Agent Recall');
//   await waitForTreeItem(page, /\d+ exchanges/);
//   await runCommand(page, 'Agent Recall: Show Index Summary');
//   await screenshot(page, 'index-summary');
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../host/codeServer.mjs';
import { enableSmokeTestDriver, seedShownWalkthrough, workbenchUrl } from '../host/workbench.mjs';

export const SCREENSHOTS = join(ROOT, 'test-results/screenshots');

/** Set by the runner: { browser, url, workspace, fixture, anthropic, payload } (payload: dev extension, if any; anthropic: the local Messages API server). */
export const session = {};

const WORKBENCH_TIMEOUT = 90_000;

/**
 * A new page with the workbench of the fixture workspace (or `folder`), rendered (activity bar and status bar).
 * Each page is a new browser profile; it starts as after the extension's first start (its walkthrough shown),
 * unless `firstStart` (the extension meets a profile it never ran in) or `profile` (a Playwright storage state to
 * start from, e.g. what a first start left).
 */
export async function openWorkbench({ width = 1400, height = 900, folder = session.workspace, firstStart = false, profile = undefined } = {}) {
  const page = await session.browser.newPage({ viewport: { width, height }, ...(profile ? { storageState: profile } : {}) });
  openPages.add(page);
  page.on('close', () => openPages.delete(page));
  await page.addInitScript(recordLongTasks);
  if (!firstStart && !profile) await seedShownWalkthrough(page, session.url);
  page.pageErrors = [];
  page.on('pageerror', (e) => page.pageErrors.push(String(e)));
  // Chromium reports what a Content Security Policy blocked on the console of the frame it happened in, so
  // this one listener hears every frame's, the webviews' included
  page.cspViolations = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) page.cspViolations.push(m.text());
  });
  if (session.payload) await enableSmokeTestDriver(page);
  await page.goto(workbenchUrl(session.url, folder, session.payload));
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: WORKBENCH_TIMEOUT });
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: WORKBENCH_TIMEOUT });
  return page;
}

const openPages = new Set();

/** In the page: keeps the main thread's tasks over 200 ms (the workbench, not its webviews' frames). */
function recordLongTasks() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration > 200) window.__longTasks.push({ at: Math.round(e.startTime), ms: Math.round(e.duration) });
  }).observe({ type: 'longtask', buffered: true });
}

/**
 * The open workbench pages' long tasks of the last minute, for a failed test's report: an unexplained ~20 s in which
 * the workbench took no click or key (workbench.ui.mjs) is told apart from a blocked main thread here.
 */
export async function longTasksOfOpenPages() {
  const report = () => {
    const since = performance.now() - 60_000;
    const tasks = (window.__longTasks ?? []).filter((t) => t.at >= since);
    const listed = tasks.map((t) => `${t.ms} ms at -${Math.round((performance.now() - t.at) / 1000)} s`).join(', ');
    return `${tasks.length} main-thread tasks over 200 ms in the last minute${listed ? `: ${listed}` : ''}`;
  };
  // a blocked page does not answer: say so after 5 s rather than wait for it
  const ask = (page) =>
    Promise.race([
      page.evaluate(report).catch((err) => `page not answering (${err.message.split('\n')[0]})`),
      new Promise((resolve) => setTimeout(() => resolve('page not answering within 5 s'), 5_000).unref()),
    ]);
  return (await Promise.all([...openPages].map(ask))).join('; ') || 'no page open';
}

/** The activity-bar entry of a view container (appears once the extension's contributions are registered). */
export function activityItem(page, title) {
  return page.locator(`.part.activitybar .action-item a[aria-label^="${title}"]`).first();
}

/** Opens a view container from the activity bar (unless its side bar is already showing). */
export async function openContainer(page, title, timeout = 60_000) {
  const item = activityItem(page, title);
  await item.waitFor({ timeout });
  const sidebarTitle = page.locator('.part.sidebar .composite.title h2');
  if (!((await sidebarTitle.textContent({ timeout: 1000 }).catch(() => '')) ?? '').toUpperCase().includes(title.toUpperCase())) {
    await item.click();
  }
  await page.locator('.part.sidebar .composite.title', { hasText: new RegExp(title, 'i') }).waitFor({ timeout });
}

/** Waits for a view pane (by its name) in the open side bar, expands it if collapsed, returns its locator. */
export async function waitForView(page, name, timeout = 30_000) {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header h3.title', { hasText: new RegExp(`^${name}$`, 'i') }) }).first();
  await pane.waitFor({ timeout });
  const header = pane.locator('.pane-header').first();
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  return pane;
}

/**
 * Waits for a tree row whose text matches; returns its text. A list draws only the rows in sight: while the row
 * is not there, the focus walks the list a page at a time from its top (the focused row is always drawn; the
 * mouse wheel missed rows when the list sat under another pane), and starts at the top again.
 */
export async function waitForTreeItem(scope, text, timeout = 60_000) {
  const row = scope.locator('.monaco-list-row', { hasText: text }).first();
  const until = Date.now() + timeout;
  for (let tries = 1; ; tries++) {
    try {
      await row.waitFor({ timeout: Math.max(1, Math.min(tries === 1 ? 2_000 : 500, until - Date.now())) });
      return (await row.textContent()) ?? '';
    } catch (err) {
      if (Date.now() >= until) throw err;
      const list = scope.locator('.monaco-list').first();
      if (await list.isVisible().catch(() => false)) {
        await list.focus().catch(() => undefined);
        await scope.page().keyboard.press(tries % 10 === 1 ? 'Home' : 'PageDown');
      }
    }
  }
}

/**
 * Opens a tree row (by its text) and waits until it shows as open; retried, as a refresh can redraw it closed.
 * Keys only: the focus walks the list from its top to the row, then Right opens it. Arrows move the focus and run
 * nothing, where a click that lands while the view redraws (the Index view does while indexing) can hit the row
 * below and run its command (the Scope row opens the Settings editor, which then takes every click).
 */
export async function expandTreeItem(scope, text, timeout = 15_000) {
  const row = scope.locator('.monaco-list-row', { hasText: text }).first();
  const list = scope.locator('.monaco-list').first();
  const focused = scope.locator('.monaco-list-row.focused').first();
  const page = scope.page();
  const isRow = (label) => (text instanceof RegExp ? text.test(label) : label.includes(text));
  const until = Date.now() + timeout;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`the tree row ${text} did not open`);
    if ((await row.getAttribute('aria-expanded', { timeout: left }).catch(() => undefined)) === 'true') return;
    await list.focus().catch(() => undefined);
    await page.keyboard.press('Home');
    const rows = await scope.locator('.monaco-list-row').count();
    for (let step = 0; step <= rows; step++) {
      if (isRow(((await focused.textContent({ timeout: 1_000 }).catch(() => '')) ?? '').trim())) break;
      await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(300);
  }
}

/** Opens the command palette with `>` + query; returns the labels of the rows shown (optionally screenshots them). */
export async function paletteEntries(page, query, shot, attempts = 3) {
  const rows = page.locator('.quick-input-list .monaco-list-row');
  for (let attempt = 1; ; attempt++) {
    try {
      await openPalette(page, query);
      await rows.first().waitFor({ timeout: 10_000 });
      break;
    } catch (err) {
      // as runCommand: a busy workbench can miss F1 (seen once in a full run, under load)
      console.log(`    (palette attempt ${attempt} for "${query}" failed: ${err.message.split('\n')[0]})`);
      await closePalette(page).catch(() => {});
      if (attempt >= attempts) throw err;
      await page.waitForTimeout(1000 * attempt);
    }
  }
  if (shot) await screenshot(page, shot);
  const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  await closePalette(page);
  return labels;
}

/** Runs a command through the command palette by its title, retrying (commands register late on slow machines). */
export async function runCommand(page, title, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    try {
      await openPalette(page, title);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      await row.waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      return;
    } catch (err) {
      console.log(`    (palette attempt ${attempt} for "${title}" failed: ${err.message.split('\n')[0]})`);
      await closePalette(page).catch(() => {});
      if (attempt >= attempts) {
        await screenshot(page, `palette-failed-${title.replace(/\W+/g, '-')}`).catch(() => {});
        throw new Error(`could not run "${title}" from the command palette: ${err.message.split('\n')[0]}`);
      }
      await page.waitForTimeout(1000 * attempt);
    }
  }
}

async function openPalette(page, query) {
  const input = page.locator('.quick-input-widget input.input');
  if (!(await input.isVisible())) {
    await page.locator('.monaco-workbench').click({ position: { x: 700, y: 450 } }).catch(() => {});
    await page.keyboard.press('F1');
  }
  await input.waitFor({ state: 'visible', timeout: 5_000 });
  await input.fill(`>${query}`, { timeout: 5_000 });
}

async function closePalette(page) {
  await page.keyboard.press('Escape');
  await page.locator('.quick-input-widget input.input').waitFor({ state: 'hidden', timeout: 5_000 });
}

/**
 * A notification containing `text`; returns its text. Looks at the toasts and, when none shows it, in the
 * notification center (the workbench shows no toasts while the smoke-test driver is on, i.e. with `--dev`).
 */
export async function waitForNotification(page, text, timeout = 30_000) {
  const found = page.locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item', { hasText: text }).first();
  try {
    await found.waitFor({ timeout: session.payload ? 2_000 : timeout });
  } catch (err) {
    if (!session.payload) throw err;
    await runCommand(page, 'Notifications: Show Notifications');
    await found.waitFor({ timeout });
  }
  return (await found.textContent()) ?? '';
}

/** Saves a screenshot of what a person would see to test-results/screenshots/<name>.png; returns the path. */
export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, animations: 'disabled' });
  return file;
}
