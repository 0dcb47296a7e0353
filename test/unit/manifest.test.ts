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
    walkthroughs: { steps: { id: string; description: string; media: { markdown?: string } }[] }[];
    configuration: { properties: Record<string, { scope?: string; default?: unknown }> };
  };
};
const steps = manifest.contributes.walkthroughs[0]!.steps;
const walkthroughPage = (id: string): string => readFileSync(path.join(ROOT, steps.find((st) => st.id === id)!.media.markdown!), 'utf8');

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
  ["the walkthrough's first step", steps[0]?.description],
  ["the walkthrough's first page", walkthroughPage('sources')],
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

test('walkthrough steps show no Markdown code spans, which VS Code draws as literal backticks there (issue 39)', () => {
  assert.deepEqual(steps.filter((st) => st.description.includes('`')).map((st) => st.id), []);
});

test("the walkthrough's example queries are about the sample workspace's conversations (issue 39)", () => {
  const sample = readFileSync(path.join(ROOT, 'test/sample/sessions.mjs'), 'utf8').toLowerCase();
  const examples = [...walkthroughPage('recall').matchAll(/^- \*(.+)\*$/gm)].map((m) => m[1]!);
  assert.equal(examples.length, 3);
  for (const example of examples) {
    const words = example.toLowerCase().match(/[a-z0-9/]{4,}/g) ?? [];
    const found = words.filter((w) => sample.includes(w.replace(/s$/, '')));
    assert.ok(found.length >= words.length * 0.6, `"${example}": only ${found.join(', ')} are in the sample`);
  }
});

test('folders to read transcripts from are User settings that remote windows read too, never machine-scoped (issue 39)', () => {
  const props = manifest.contributes.configuration.properties;
  const folders = ['sources.extraRoots', 'sources.claudeCode.roots', 'sources.codex.roots', 'sources.userDataDirs'].map((k) => `agentRecall.${k}`);
  // machine: a value in User settings is ignored in a remote window (0 sources, silently); application: User
  // settings only, so a workspace cannot point indexing elsewhere either
  assert.deepEqual(folders.map((k) => props[k]?.scope), folders.map(() => 'application'));
});

test('which history is recalled (agentRecall.scope) can be set per workspace and is read in remote windows: window scope, "workspace" by default (issue 39)', () => {
  const scope = manifest.contributes.configuration.properties['agentRecall.scope'];
  assert.equal(scope?.scope, 'window');
  assert.equal(scope?.default, 'workspace');
});
