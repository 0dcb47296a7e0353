// What a person sees in the workbench: the activity-bar container, the Index view, the commands.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../host/codeServer.mjs';
import { expandTreeItem, openContainer, openWorkbench, paletteEntries, runCommand, screenshot, session, waitForTreeItem, waitForView } from './lib.mjs';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('Agent Recall in the workbench', function () {
  this.timeout(180_000);
  // Unexplained, 3 of ~9 full runs on 2026-11-29: once the Index view showed its total, the workbench took no click
  // or key for ~20 s (the total's twistie did not open it, F1 did not open the palette), then answered again. A test
  // that fails twice still fails.
  this.retries(1);
  let page;

  before(async () => {
    page = await openWorkbench();
  });
  after(async () => {
    await page?.close();
  });

  it('shows its container in the activity bar and the index state in the Index view', async () => {
    await openContainer(page, 'Agent Recall');
    const index = await waitForView(page, 'Index');
    const { exchanges } = session.fixture.expected;
    // the view updates while indexing runs: wait for the final count, then say what it shows if it never comes
    const text = await waitForTreeItem(index, new RegExp(`^${exchanges} exchanges`), 90_000).catch(async (err) => {
      await screenshot(page, 'index-view-failed');
      const rows = await index.locator('.monaco-list-row').allTextContents();
      throw new Error(`Index view never showed "${exchanges} exchanges"; it shows: ${rows.join(' | ') || 'nothing'} (${err.message.split('\n')[0]})`);
    });
    await screenshot(page, 'index-view');
    assert.match(text, /^\d+ exchanges\s*in \d+ conversations/);
    // each agent by the name people call it (the fixture's agents)
    const names = { 'claude-code': 'Claude Code', codex: 'Codex', specstory: 'SpecStory', aider: 'Aider', copilot: 'Copilot Chat', gemini: 'Gemini CLI', cline: 'Cline', cursor: 'Cursor', opencode: 'OpenCode', continue: 'Continue', kilo: 'Kilo Code', kiro: 'Kiro', trae: 'Trae' };
    // more agents than fit fold under the total: a click on its twistie shows them
    await expandTreeItem(index, new RegExp(`^${exchanges} exchanges`));
    for (const agent of Object.keys(session.fixture.expected.byAgent)) {
      await waitForTreeItem(index, names[agent] ?? agent, 15_000).catch(async (err) => {
        await screenshot(page, 'index-view-agents-failed');
        const rows = await index.locator('.monaco-list-row').allTextContents();
        throw new Error(`Index view never showed ${names[agent] ?? agent}; it shows: ${rows.join(' | ')} (${err.message.split('\n')[0]})`);
      });
    }
    await screenshot(page, 'index-view-agents');
  });

  it('lists its commands in the command palette', async () => {
    // commands hidden from the palette (internal, or only for the exchange viewer) are not expected there
    const hidden = new Set((manifest.contributes.menus.commandPalette ?? []).map((m) => m.command));
    const titles = manifest.contributes.commands.filter((c) => !hidden.has(c.command)).map((c) => `${c.category}: ${c.title}`);
    const shown = await paletteEntries(page, 'Agent Recall: ', 'command-palette');
    assert.deepEqual(titles.filter((t) => !shown.some((s) => s.includes(t))), [], `palette shows: ${shown.join(' | ')}`);
  });

  it('runs "Agent Recall: Show Index Summary" from the palette: the Index view shows it', async () => {
    await runCommand(page, 'Agent Recall: Show Index Summary');
    const index = await waitForView(page, 'Index');
    await waitForTreeItem(index, /Semantic search: (on|off|loading)/, 15_000);
    await screenshot(page, 'index-summary');
  });

  it('raises no errors in the page', () => {
    assert.deepEqual(page.pageErrors.filter((e) => !/ResizeObserver/.test(e)), []);
  });
});
