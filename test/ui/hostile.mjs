// Hostile transcript text for the UI tests of every surface that shows it (issue 18 items 9-11, issue 44
// items 1-5): links that would run commands, raw HTML, Markdown escaping bypasses, resources that would phone
// home, links to this computer written every way a host can be, words that look like domains, and hidden
// characters of every kind (bidirectional controls in a file name, zero-width, controls, line separators).
// Every URL that a browser could load points at `logger` (a local HTTP server), so a test can assert that
// nothing reached it. Link texts start with LINK- so a test can find and Ctrl+click each one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { claudeEditResult, claudeProjectDir, claudeSession, specstoryMarkdown } from '../host/transcripts.mjs';
import { openContainer, session, waitForTreeItem, waitForView } from './lib.mjs';

/** A local HTTP server that records every request it gets (the payloads' only reachable target). */
async function startLogger() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('logged');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // it serves every test file of the run; the run's end stops it
  server.unref();
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, hits };
}

const enc = (o) => encodeURIComponent(JSON.stringify(o));

/** Links a Ctrl+click must never run; `seen` is what the command would visibly do. */
export function commandLinks(logger) {
  return [
    `[LINK-terminal](command:workbench.action.terminal.new)`,
    `[LINK-send](command:workbench.action.terminal.sendSequence?${enc({ text: `curl ${logger}/sendSequence\n` })})`,
    `[LINK-untitled](command:workbench.action.files.newUntitledFile)`,
    `[LINK-ref][evil]\n\n[evil]: command:workbench.action.terminal.new "reference definition"`,
    `<command:workbench.action.terminal.new>`,
    `[LINK-vscode](vscode://vscode.git/clone?url=${encodeURIComponent(`${logger}/clone`)})`,
    `[LINK-file](file:///etc/passwd)`,
    `[LINK-js](javascript:fetch('${logger}/js'))`,
    `[LINK-http](https://example.invalid/where-it-goes)`,
  ];
}

/** Markup that must stay text and load nothing. */
export function htmlPayloads(logger) {
  return [
    `<script>window.__xss="script";fetch("${logger}/script")</script>`,
    `<img src="${logger}/img" onerror="window.__xss='img'">`,
    `![pixel](${logger}/md-image)`,
    `<meta http-equiv="refresh" content="0;url=${logger}/refresh">`,
    `<style>@import url(${logger}/style-import); body { display: none }</style>`,
    `<link rel="stylesheet" href="${logger}/link-css">`,
    `<iframe srcdoc="<script>parent.__xss='iframe'</script>" src="${logger}/iframe"></iframe>`,
    `<svg onload="window.__xss='svg'"><image href="${logger}/svg-image"/></svg>`,
    `<details open ontoggle="window.__xss='toggle'">x</details>`,
    // escaping bypasses of the old line-based escaper (issue 18 item 10)
    `\\\`<img src="${logger}/backslash-backtick">\\\``,
    `[a \`b](https://example.invalid "t\`") <img src="${logger}/link-title-backtick">`,
    `- item\n  \`\`\`\n  code\n\`\`\`\n<img src="${logger}/list-fence">`,
  ];
}

/**
 * Links to this computer (every one reaches the logger on 127.0.0.1): as written, bare, as a decimal and a
 * hex number, and `localhost`. Each may open only after a dialog showing where it goes (issue 44 item 2).
 */
export function localLinks(logger) {
  const port = new URL(logger).port;
  return [
    `[LINK-loopback](${logger}/loopback)`,
    `${logger}/bare-loopback`,
    `[LINK-decimal](http://2130706433:${port}/decimal)`,
    `[LINK-hex](http://0x7f000001:${port}/hex)`,
    `[LINK-localhost](http://localhost:${port}/localhost)`,
  ];
}

/** Words that fuzzy link detection would make links of (issue 44 item 3): none is a link. */
export const LINK_LOOKALIKES = ['hello.py', 'www.example.invalid', 'someone@example.invalid', '192.168.0.1'];

/** A file name whose right-to-left override makes it read `src/evilsj.sts` (issue 44 item 4). */
export const SPOOFED_FILE = 'src/evil\u202Ests.js';
/** The same name as every surface must show it. */
export const SPOOFED_SHOWN = 'src/evil⟨U+202E⟩sts.js';

/**
 * One character of each hidden kind between letters: bidirectional embeddings, isolates and marks, Arabic
 * letter mark, zero-width space and joiner, BOM, a C0 (BEL) and a C1 (NEL) control, line and paragraph
 * separators, a tag character.
 */
export const HIDDEN_RUN = 'a\u202Ab\u2066c\u2069d\u200Ee\u200Ff\u061Cg\u200Bh\u200Di\uFEFFj\u0007k\u0085l\u2028m\u2029n\u{E0041}o';
/** Any hidden character left as it is in shown text. */
export const RAW_HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u200B-\u200F\u202A-\u202E\u2060-\u206F\u2028\u2029\uFEFF\u{E0000}-\u{E007F}]/u;

/** A prompt and a reply carrying every payload, around a rare word the test searches for. */
export function hostileExchange(logger, word) {
  const links = commandLinks(logger);
  const html = htmlPayloads(logger);
  return {
    // the headline's first line carries the spoofed name and a hidden character of each kind
    prompt: `In ${SPOOFED_FILE}, why does the ${word} widget break ${HIDDEN_RUN}? ${links.slice(0, 3).join(' ')} ${html.slice(0, 4).join(' ')}`,
    // $(alert) in the headline: a CodeLens title or a quick pick would draw it as an icon; the distilled core
    // comes from this first sentence, so it carries the hidden characters too
    reply: `The ${word} $(alert) at ${SPOOFED_FILE} broke ${HIDDEN_RUN} because of this:\n\n${links.join('\n\n')}\n\n` +
      `${localLinks(logger).join('\n\n')}\n\nSee ${LINK_LOOKALIKES.join(', ')}.\n\n${html.join('\n\n')}\n\n` +
      '```html\n<script>window.__xss="fence"</script>\n```\n',
  };
}

/** Every frame of the page (workbench, webviews, their inner frames): did any payload run? */
export async function payloadsThatRan(page) {
  const ran = [];
  for (const f of page.frames()) {
    const v = await f.evaluate(() => window.__xss).catch(() => undefined);
    if (v !== undefined) ran.push(`${f.url().slice(0, 80)}: ${v}`);
  }
  return ran;
}

/** What a hostile link could have done that a person would see: terminals, new editors, new browser pages. */
export async function sideEffects(page) {
  return {
    terminals: await page.locator('.xterm').count(),
    editors: await page.locator('.tabs-container .tab').count(),
    untitled: await page.locator('.tabs-container .tab', { hasText: /^Untitled/ }).count(),
    pages: page.context().pages().length,
  };
}

/** The text of the modal dialog if one shows within `ms`, after which it is dismissed (Escape). */
export async function dismissDialog(page, ms = 2_000) {
  const dialog = page.locator('.monaco-dialog-box');
  if (!(await dialog.waitFor({ timeout: ms }).then(() => true, () => false))) return undefined;
  const text = (await dialog.textContent()) ?? '';
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden', timeout: 5_000 });
  return text;
}

let hostile;

/**
 * The hostile transcripts, written once per run for every file that tests them, and indexed live: a Claude
 * Code session (its exchange read src/cart.js and a file with a spoofed name, and alone edited
 * src/xylophone.js), a SpecStory export in the workspace whose name carries a right-to-left override, and a
 * Gemini CLI session cut short under such a name too (the Index view names the transcripts it could not read).
 * Returns the logger every payload URL points at (it serves until the run ends) and the files written.
 */
export function hostileTranscripts(page) {
  hostile ??= writeHostileTranscripts(page);
  return hostile;
}

async function writeHostileTranscripts(page) {
  const logger = await startLogger();
  const { workspace, claudeConfigDir } = session.fixture;
  const dir = join(claudeConfigDir, 'projects', claudeProjectDir(workspace));
  mkdirSync(dir, { recursive: true });
  const sessionId = '7e57c0de-0000-4000-8000-00000000a55a';
  const xylophone = join(workspace, 'src', 'xylophone.js');
  writeFileSync(xylophone, 'export const note = 1;\nexport const y = 2;\nexport const z = 3;\n');
  const { prompt, reply } = hostileExchange(logger.url, 'xylophone');
  const claude = join(dir, `${sessionId}.jsonl`);
  writeFileSync(claude, claudeSession({
    cwd: workspace, sessionId, start: new Date(Date.now() - 3_600_000).toISOString(),
    turns: [{ prompt, steps: [
      { tool: 'Read', input: { file_path: join(workspace, 'src/cart.js') }, result: 'export function cartTotalCents() {}' },
      { tool: 'Read', input: { file_path: join(workspace, SPOOFED_FILE) }, result: 'module.exports = {};' },
      { tool: 'Edit', input: { file_path: xylophone, old_string: 'x', new_string: 'y' }, result: 'ok', toolUseResult: claudeEditResult(xylophone, 'x', 'y', 2) },
      { text: reply },
    ] }],
  }));
  // the issue's case: a Markdown export whose command: links VS Code's Markdown support would run
  const md = hostileExchange(logger.url, 'marimba');
  const specstory = join(workspace, '.specstory/history', '2026-11-20_10-00Z-marimba-evil\u202Edm.md');
  writeFileSync(specstory, specstoryMarkdown({
    sessionId: 'b0a7e1d2-5c3f-4e8a-9d10-6f2b8c4a1e37', title: 'Marimba', start: new Date(Date.now() - 7_200_000).toISOString(),
    turns: [{ prompt: md.prompt, steps: [{ text: md.reply }] }],
  }));
  // a Gemini CLI session of this workspace (its projectHash) cut short: it cannot be read, and the Index view names it
  const projectHash = basename(dirname(dirname(session.fixture.geminiSession)));
  writeFileSync(join(dirname(session.fixture.geminiSession), 'session-2026-11-20T10-00-cut\u202Enosj.json'), `{\n  "sessionId": "cut",\n  "projectHash": "${projectHash}",\n  "messages": [\n`);
  // live indexing picks them up
  await openContainer(page, 'Agent Recall');
  const index = await waitForView(page, 'Index');
  await waitForTreeItem(index, new RegExp(`^${session.fixture.expected.exchanges + 2} exchanges`), 60_000);
  return { logger, claude, specstory };
}
