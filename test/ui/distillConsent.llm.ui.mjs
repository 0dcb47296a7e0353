// The LLM distiller as a person meets it: the run is configured for Anthropic (against the local Messages API
// server, see run.mjs) but nothing is sent until a key is set, sending is confirmed in a dialog naming the
// destination, and the backlog's cost was shown and accepted.
import assert from 'node:assert/strict';
import { openContainer, openWorkbench, runCommand, screenshot, session, waitForTreeItem, waitForView } from './lib.mjs';

const KEY = 'sk-ant-ui-test-0123456789';

/** The modal dialog whose text contains `text`. */
function dialog(page, text) {
  return page.locator('.monaco-dialog-box', { hasText: text }).first();
}

async function press(box, label) {
  await box.locator('.monaco-button', { hasText: new RegExp(`^${label}$`) }).first().click();
}

describe('LLM distillation: key, consent and cost before anything is sent', function () {
  this.timeout(240_000);
  let page;

  before(async () => {
    page = await openWorkbench();
  });
  after(async () => {
    await page?.close();
  });

  it('indexes without sending anything while no key is set', async () => {
    await openContainer(page, 'Agent Recall');
    const index = await waitForView(page, 'Index');
    await waitForTreeItem(index, new RegExp(`^${session.fixture.expected.exchanges} exchanges`), 90_000);
    assert.equal(session.anthropic.received.length, 0);
  });

  it('asks once where the text goes, shows the cost of the backlog, then sends it', async () => {
    const host = new URL(session.anthropic.baseURL).host;
    await runCommand(page, 'Agent Recall: Set Anthropic API Key');
    await page.locator('.quick-input-widget', { hasText: 'Anthropic API Key' }).waitFor({ timeout: 10_000 });
    const input = page.locator('.quick-input-widget input.input');
    await input.fill(KEY);
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: 10_000 });

    await runCommand(page, 'Agent Recall: Index New Transcripts');
    const consent = dialog(page, `Send your agent exchanges to ${host}`);
    await consent.waitFor({ timeout: 60_000 }).catch(async (err) => {
      await screenshot(page, 'distill-consent-missing');
      throw err;
    });
    await screenshot(page, 'distill-consent');
    assert.match((await consent.textContent()) ?? '', /redacted first/);
    assert.equal(session.anthropic.received.length, 0, 'nothing sent before consent');
    await press(consent, 'Send');

    const { exchanges } = session.fixture.expected;
    const cost = dialog(page, `Distill ${exchanges} exchanges with ${host}?`);
    await cost.waitFor({ timeout: 60_000 });
    const text = (await cost.textContent()) ?? '';
    await screenshot(page, 'distill-cost');
    assert.match(text, new RegExp(`${exchanges} exchanges -> ${exchanges} requests to ${host.replace(/\./g, '\\.')}`));
    assert.match(text, /estimated cost: \$\d+\.\d\d/);
    assert.equal(session.anthropic.received.length, 0, 'nothing sent before the cost was accepted');

    await press(cost, 'Show What Is Sent');
    await page.locator('.monaco-editor .view-lines', { hasText: 'Distill this conversation exchange' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'distill-what-is-sent');
    await press(dialog(page, `Distill ${exchanges} exchanges`), 'Distill');

    const until = Date.now() + 60_000;
    while (session.anthropic.received.length < exchanges && Date.now() < until) await page.waitForTimeout(250);
    assert.equal(session.anthropic.received.length, exchanges);
    assert.ok(session.anthropic.received.every((r) => r.headers.authorization === `Bearer ${KEY}`));
  });

  it('does not ask again, and sends nothing twice', async () => {
    const sent = session.anthropic.received.length;
    await runCommand(page, 'Agent Recall: Index New Transcripts');
    await page.waitForTimeout(5_000);
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no dialog');
    assert.equal(session.anthropic.received.length, sent);
  });
});
