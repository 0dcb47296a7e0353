// Prints the settings table of the README from package.json's contributes.configuration, so the README says
// what the manifest declares: `node scripts/settingsTable.mjs`. A unit test (test/unit/settingsTable.test.ts)
// fails when the README's table differs from this output; paste the output between the README's markers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A cell: one line, no column break, VS Code's `#setting.id#` links as code. */
function cell(text) {
  return text
    .replace(/`?#(agentRecall\.[\w.]+)#`?/g, '`$1`')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

function shown(value) {
  if (value === '') return '(empty)';
  return `\`${JSON.stringify(value)}\``;
}

/** The markdown table of every setting the manifest contributes, in the manifest's order. */
export function settingsTable(manifest) {
  const groups = [manifest.contributes?.configuration ?? []].flat();
  const rows = groups.flatMap((g) => Object.entries(g.properties ?? {}));
  const lines = ['| setting | default | what it does |', '| --- | --- | --- |'];
  for (const [id, p] of rows) {
    const what = cell(p.markdownDescription ?? p.description ?? '');
    // machine and application scopes are read from User settings only: a workspace cannot set them
    const scope = p.scope === 'machine' || p.scope === 'application' ? ' *(user settings only)*' : '';
    lines.push(`| \`${id}\` | ${shown(p.default)} | ${what}${scope} |`);
  }
  return lines.join('\n');
}

export function manifestSettingsTable() {
  return settingsTable(JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(manifestSettingsTable());
