// The extension's first start in a browser profile it never ran in (issue 39): its walkthrough opens by itself,
// once. Every other UI test starts from the state this first start leaves (lib.mjs openWorkbench), so the
// walkthrough does not take the editor area from the recall panel there.
import assert from 'node:assert/strict';
import { storedExtensionState, WALKTHROUGH_SHOWN } from '../host/workbench.mjs';
import { openWorkbench, screenshot } from './lib.mjs';

const WALKTHROUGH = '.gettingStartedContainer';

describe('First start in a new profile', function () {
  this.timeout(240_000);
  let page;

  after(async () => {
    await page?.close();
  });

  it('opens the walkthrough once, on the first start, and not on the next one (issue 39)', async () => {
    page = await openWorkbench({ firstStart: true });
    const walkthrough = page.locator(WALKTHROUGH, { hasText: 'Get started with Agent Recall' }).first();
    await walkthrough.waitFor({ timeout: 90_000 });
    const first = walkthrough.locator('.getting-started-step', { hasText: 'Where your memories come from' }).first();
    await first.waitFor({ timeout: 30_000 }); // visible: the walkthrough itself, not the Welcome page's list
    const text = (await first.textContent()) ?? '';
    for (const agent of ['Claude Code', 'Codex CLI', 'Gemini CLI', 'Copilot Chat', 'Cursor', 'Zed', 'Factory Droid', 'SpecStory', 'Aider']) {
      assert.ok(text.includes(agent), `step 1 does not name ${agent}: ${text}`);
    }
    assert.doesNotMatch(text, /`/, 'no literal backticks');
    await screenshot(page, 'walkthrough-first-start');

    // what the first start left in the profile is what the other tests start from (seedShownWalkthrough)
    const until = Date.now() + 30_000;
    while ((await storedExtensionState(page)) === undefined && Date.now() < until) await page.waitForTimeout(250);
    const stored = JSON.parse((await storedExtensionState(page)) ?? '{}');
    assert.equal(stored['agentRecall.walkthroughShown'], true, `the extension's global state: ${JSON.stringify(stored)}`);
    assert.deepEqual(Object.keys(JSON.parse(WALKTHROUGH_SHOWN.value)).filter((k) => stored[k] === undefined), []);

    // the next start of this profile: what the workbench keeps for the user (application and profile state, the
    // extension's global state among it), not this window's open editors, which a start would restore
    const { origins } = await page.context().storageState({ indexedDB: true });
    const profile = { cookies: [], origins: origins.map((o) => ({ ...o, indexedDB: (o.indexedDB ?? []).filter((db) => db.name.startsWith(WALKTHROUGH_SHOWN.db)) })) };
    await page.close();
    page = await openWorkbench({ profile });
    await page.locator('.part.statusbar .statusbar-item', { hasText: /Recall: \d+ exchanges/ }).first().waitFor({ timeout: 90_000 });
    await page.waitForTimeout(3_000);
    const steps = page.locator('.getting-started-step', { hasText: 'Where your memories come from' });
    const shown = await steps.evaluateAll((els) => els.filter((e) => e.checkVisibility()).length);
    if (shown) await screenshot(page, 'walkthrough-second-start');
    assert.equal(shown, 0, 'the walkthrough opened again on the second start');
    assert.deepEqual(await page.locator('.part.editor .tab').allTextContents(), [], 'no editor opened on the second start');
  });
});
