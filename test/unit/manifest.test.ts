import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AGENT_NAMES } from '../../src/core/model';

/**
 * The texts a user or a model reads before anything is indexed say which agents are read; they fell behind
 * the adapters once (the empty Index view named four agents of eleven). Every agent the core reads is named.
 */

const ROOT = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  description: string;
  contributes: {
    viewsWelcome: { view: string; contents: string; when?: string }[];
    languageModelTools: { name: string; modelDescription: string }[];
    menus: { commandPalette: { command: string; when: string }[] };
  };
};

const emptyIndexWelcome = manifest.contributes.viewsWelcome.find(
  (w) => w.view === 'agentRecall.status' && w.when === 'workspaceFolderCount > 0',
);
const searchTool = manifest.contributes.languageModelTools.find((t) => /search/i.test(t.name));

// the listing's tile holds ~300 characters: the description names the most used agents and counts them all
test('the extension description says how many agents it reads, and names the most used', () => {
  const count = Object.keys(AGENT_NAMES).length;
  assert.match(manifest.description, new RegExp(`Reads ${count} agents`), `${count} agents are read`);
  for (const name of ['Claude Code', 'Codex', 'Copilot Chat', 'Cursor', 'Cline', 'Gemini CLI']) assert.ok(manifest.description.includes(name), name);
});

const texts: [string, string | undefined][] = [
  ["the empty Index view's welcome", emptyIndexWelcome?.contents],
  ["the search tool's model description", searchTool?.modelDescription],
];

for (const [where, text] of texts) {
  test(`${where} names every agent Agent Recall reads`, () => {
    assert.ok(text, `${where} is missing from package.json`);
    const missing = Object.values(AGENT_NAMES).filter((name) => !text.includes(name.replace(/ Chat$/, '')));
    assert.deepEqual(missing, [], `${where} does not name ${missing.join(', ')}`);
  });
}

test('"Recall About This File" is offered in the command palette only once the File History view shows a file (it failed with "Open a file first.")', () => {
  const entry = manifest.contributes.menus.commandPalette.find((m) => m.command === 'agentRecall.recallAboutFile');
  assert.equal(entry?.when, 'agentRecall.fileHistoryShowsFile', 'the context key fileHistoryView.ts sets');
});
