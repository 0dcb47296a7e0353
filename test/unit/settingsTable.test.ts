import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

/**
 * The README's settings table is generated from package.json (`node scripts/settingsTable.mjs`), so a setting
 * added, removed or re-described in the manifest fails here until the README's table is pasted again.
 */

const ROOT = path.resolve(__dirname, '../../..');
const START = '<!-- settings-table:start (node scripts/settingsTable.mjs) -->';
const END = '<!-- settings-table:end -->';

interface SettingsScript {
  manifestSettingsTable(): string;
  settingsTable(manifest: unknown): string;
}

const script = (): Promise<SettingsScript> => import(pathToFileURL(path.join(ROOT, 'scripts/settingsTable.mjs')).href) as Promise<SettingsScript>;

function readmeTable(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  assert.ok(start >= 0 && end > start, `README.md holds the markers ${START} … ${END}`);
  return readme.slice(start + START.length, end).trim();
}

test("the README's settings table is the one package.json's contributes.configuration gives", async () => {
  const { manifestSettingsTable } = await script();
  assert.equal(readmeTable(), manifestSettingsTable(), 'README.md is out of date: paste the output of `node scripts/settingsTable.mjs` between its markers');
});

test('every contributed setting has its row, with its default; setting links and column breaks are escaped', async () => {
  const { settingsTable } = await script();
  const table = settingsTable({
    contributes: {
      configuration: {
        properties: {
          'agentRecall.a': { type: 'boolean', default: true, description: 'On when `#agentRecall.b#` is | set.' },
          'agentRecall.b': { type: 'string', default: '', scope: 'machine', markdownDescription: 'Two\nlines.' },
        },
      },
    },
  });
  assert.deepEqual(table.split('\n').slice(2), [
    '| `agentRecall.a` | `true` | On when `agentRecall.b` is \\| set. |',
    '| `agentRecall.b` | (empty) | Two lines. *(user settings only)* |',
  ]);
});
