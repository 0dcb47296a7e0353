// The fixture of the in-host and UI tests, laid out in a run's temp dir:
//   <dir>/workspace         copy of test/host/fixture-workspace (SpecStory + Aider histories live inside it)
//   <dir>/agents/claude     CLAUDE_CONFIG_DIR: projects/<enc>/<session>.jsonl with cwd = <dir>/workspace
//   <dir>/agents/codex      CODEX_HOME: sessions/YYYY/MM/DD/rollout-*.jsonl with cwd = <dir>/workspace
//   <dir>/user/User/workspaceStorage/fixture-copilot/   code-server's user data (--user-data-dir <dir>/user):
//                           a Copilot Chat session log in chatSessions/, workspace.json naming <dir>/workspace
//   <dir>/agents/gemini     GEMINI_CLI_HOME: .gemini/tmp/<sha256 of the workspace>/chats/session-*.json
//   <dir>/user/User/globalStorage/saoudrizwan.claude-dev/tasks/<id>/   a Cline task (cwd in its environment details)
//   <dir>/cursor/User/globalStorage/state.vscdb   Cursor's chat database (WAL), read because the User settings
//                           (<dir>/user/User/settings.json) name <dir>/cursor in agentRecall.sources.userDataDirs
//   <dir>/xdg/data/opencode/opencode.db   OpenCode's database (WAL) under XDG_DATA_HOME: a session whose directory is
//                           the workspace and one of another project
//   <dir>/agents/continue   CONTINUE_GLOBAL_DIR: sessions/<id>.json (workspaceDirectory = the workspace) and sessions.json
//   <dir>/user/User/globalStorage/kilocode.kilo-code/tasks/<id>/   a legacy Kilo Code task (cwd in its environment details)
//   <dir>/user/User/globalStorage/kiro.kiroagent/   a Kiro IDE session (as if this editor were Kiro): workspace-sessions/
//                           <base64 of the workspace>/<id>.json + sessions.json, and its execution log under
//                           <sha256 of the workspace, 32 hex>/414d1636299d2b9e4ce7e17fb11f63e9/
//   <dir>/agents/copilot, <dir>/agents/qwen, <dir>/xdg/data/amp/threads   COPILOT_HOME, QWEN_RUNTIME_DIR and Amp's
//                           threads under XDG_DATA_HOME: empty, watched from the start (live.test.ts writes sessions)
//   <dir>/xdg/data/goose/sessions, <dir>/xdg/data/crush, <dir>/home/.factory/sessions   Goose's, Crush's and Factory
//                           Droid's folders (HOME is <dir>/home): empty, watched from the start (live.test.ts writes sessions)
//   <dir>/user/User/workspaceStorage/fixture-trae/state.vscdb   a Trae session in a workspace's storage database (as if
//                           this editor were Trae; rollback journal), workspace.json naming <dir>/workspace
//   <dir>/agents/openhands, <dir>/agents/kimi, <dir>/agents/junie   OPENHANDS_CONVERSATIONS_DIR, KIMI_CODE_HOME and
//                           JUNIE_HOME: empty, watched from the start (live.test.ts writes sessions)
//   <dir>/fixture.json      the paths and the expected index counts (read by the in-host tests)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { claudeEditResult, claudeProjectDir, claudeSession, codexRollout, codexRolloutPath } from './transcripts.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

/** What indexing the fixture must produce (one conversation per transcript, each exchange > 100 chars). */
export const EXPECTED = {
  conversations: 13,
  exchanges: 22,
  byAgent: { 'claude-code': 3, codex: 2, specstory: 2, aider: 2, copilot: 2, gemini: 2, cline: 2, cursor: 2, opencode: 1, continue: 1, kilo: 1, kiro: 1, trae: 1 },
};

export function materializeFixture(dir) {
  const workspace = join(dir, 'workspace');
  cpSync(join(HERE, 'fixture-workspace'), workspace, { recursive: true });
  const claudeConfigDir = join(dir, 'agents/claude');
  const codexHome = join(dir, 'agents/codex');

  const sessionId = '2f6c1e0a-7b4d-4c39-8e21-9a5d3b7c4e10';
  write(join(claudeConfigDir, 'projects', claudeProjectDir(workspace), `${sessionId}.jsonl`), claudeFixture(workspace, sessionId));
  const codexId = '0199c3a4-51f2-7d10-b6e8-3c2a9f4d8e71';
  const codexStart = '2026-10-05T14:02:11.000Z';
  write(join(codexHome, codexRolloutPath(codexId, codexStart)), codexFixture(workspace, codexId, codexStart));

  // Copilot Chat writes into the editor's own user data (code-server's --user-data-dir is <dir>/user)
  const copilotStorage = join(dir, 'user/User/workspaceStorage/fixture-copilot');
  write(join(copilotStorage, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(workspace).href }));
  const copilotSession = join(copilotStorage, 'chatSessions/5b0e2c71-copilot-fixture.jsonl');
  write(copilotSession, copilotFixture(workspace));
  const geminiHome = join(dir, 'agents/gemini');
  const projectHash = createHash('sha256').update(workspace).digest('hex');
  const geminiSession = join(geminiHome, '.gemini/tmp', projectHash, 'chats/session-2026-10-06T09-30-7d41c2e9.json');
  write(geminiSession, geminiFixture(projectHash));

  const clineTask = join(dir, 'user/User/globalStorage/saoudrizwan.claude-dev/tasks/1791190800000/api_conversation_history.json');
  write(clineTask, clineFixture(workspace));

  // Cursor is another editor: its user-data folder is a User setting (application scope: read in code-server,
  // a remote window, from User settings; merged into the settings codeServer.mjs writes)
  const cursorDb = join(dir, 'cursor/User/globalStorage/state.vscdb');
  mkdirSync(dirname(cursorDb), { recursive: true });
  const made = spawnSync(process.execPath, [join(HERE, 'cursorDb.mjs'), cursorDb, workspace], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`cursorDb.mjs failed: ${made.stderr}`);
  write(join(dir, 'user/User/settings.json'), JSON.stringify({ 'agentRecall.sources.userDataDirs': [join(dir, 'cursor')] }, null, 2));

  // OpenCode reads $XDG_DATA_HOME/opencode
  const xdgDataHome = join(dir, 'xdg/data');
  const openCodeDb = join(xdgDataHome, 'opencode/opencode.db');
  mkdirSync(dirname(openCodeDb), { recursive: true });
  const madeOpenCode = spawnSync(process.execPath, [join(HERE, 'opencodeDb.mjs'), openCodeDb, workspace], { encoding: 'utf8' });
  if (madeOpenCode.status !== 0) throw new Error(`opencodeDb.mjs failed: ${madeOpenCode.stderr}`);

  const continueHome = join(dir, 'agents/continue');
  const continueSession = join(continueHome, 'sessions/6a1f0c3e-continue-fixture.json');
  write(continueSession, continueFixture(workspace));
  write(join(continueHome, 'sessions/sessions.json'), `${JSON.stringify([{ sessionId: '6a1f0c3e-continue-fixture', title: 'VAT after the coupon', dateCreated: '1791450000000', workspaceDirectory: pathToFileURL(workspace).href }], null, 2)}\n`);

  // the terminal agents' own folders, empty until live.test.ts writes into them
  const copilotHome = join(dir, 'agents/copilot');
  const qwenHome = join(dir, 'agents/qwen');
  const ampThreads = join(xdgDataHome, 'amp/threads');
  for (const d of [join(copilotHome, 'session-state'), join(qwenHome, 'projects'), ampThreads]) mkdirSync(d, { recursive: true });
  // Goose's sessions folder and Crush's global data folder under XDG_DATA_HOME, Factory Droid's under HOME (<dir>/home)
  for (const d of [join(xdgDataHome, 'goose/sessions'), join(xdgDataHome, 'crush'), join(dir, 'home/.factory/sessions')]) mkdirSync(d, { recursive: true });

  const kiloTask = join(dir, 'user/User/globalStorage/kilocode.kilo-code/tasks/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
  write(join(kiloTask, 'api_conversation_history.json'), kiloFixture(workspace));
  write(join(kiloTask, 'ui_messages.json'), JSON.stringify([{ ts: Date.parse('2026-10-08T13:00:00.000Z'), type: 'say', say: 'text', text: 'Does checkoutSummary accept the coupon code in lower case?' }]));
  const kiroStorage = join(dir, 'user/User/globalStorage/kiro.kiroagent');
  const kiroSession = writeKiroFixture(kiroStorage, workspace);

  // Trae keeps its chats in the workspace's own storage database
  const traeStorage = join(dir, 'user/User/workspaceStorage/fixture-trae');
  write(join(traeStorage, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(workspace).href }));
  const traeDb = join(traeStorage, 'state.vscdb');
  const madeTrae = spawnSync(process.execPath, [join(HERE, 'traeDb.mjs'), traeDb], { encoding: 'utf8' });
  if (madeTrae.status !== 0) throw new Error(`traeDb.mjs failed: ${madeTrae.stderr}`);
  const openHandsHome = join(dir, 'agents/openhands');
  const kimiHome = join(dir, 'agents/kimi');
  const junieHome = join(dir, 'agents/junie');
  for (const d of [openHandsHome, join(kimiHome, 'sessions'), join(junieHome, 'sessions')]) mkdirSync(d, { recursive: true });

  const fixture = {
    workspace, claudeConfigDir, codexHome, copilotSession, geminiSession, clineTask, cursorDb, openCodeDb, continueSession, copilotHome, qwenHome, ampThreads, kiloTask, kiroSession,
    traeDb, openHandsHome, kimiHome, junieHome, expected: EXPECTED,
  };
  const manifest = join(dir, 'fixture.json');
  writeFileSync(manifest, JSON.stringify(fixture, null, 2));
  return {
    ...fixture,
    manifest,
    env: {
      CLAUDE_CONFIG_DIR: claudeConfigDir, CODEX_HOME: codexHome, GEMINI_CLI_HOME: geminiHome, XDG_DATA_HOME: xdgDataHome, CONTINUE_GLOBAL_DIR: join(dir, 'agents/continue'),
      COPILOT_HOME: copilotHome, QWEN_RUNTIME_DIR: qwenHome, AGENT_RECALL_FIXTURE: manifest,
      OPENHANDS_CONVERSATIONS_DIR: openHandsHome, KIMI_CODE_HOME: kimiHome, JUNIE_HOME: junieHome,
    },
  };
}

function write(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function claudeFixture(ws, sessionId) {
  const checkout = `${ws}/src/checkout.js`;
  const before = "  const percent = coupon === 'WELCOME10' ? 10 : 0;";
  const after = "  const percent = coupon?.trim().toUpperCase() === 'WELCOME10' ? 10 : 0;";
  return claudeSession({
    cwd: ws,
    sessionId,
    start: '2026-10-03T10:12:00.000Z',
    turns: [
      {
        prompt: 'Where is the WELCOME10 coupon applied? I want to understand how checkoutSummary computes the discounted total.',
        steps: [
          { tool: 'Read', input: { file_path: checkout }, result: `1\timport { cartTotalCents } from './cart.js';\n2\t...`,
            toolUseResult: { type: 'text', file: { filePath: checkout, content: '...', numLines: 7, startLine: 1, totalLines: 7 } } },
          { text: 'The coupon is applied in `src/checkout.js`: `checkoutSummary` maps `WELCOME10` to 10 percent and passes it to `cartTotalCents` in `src/cart.js`, which rounds once after the discount.' },
        ],
      },
      {
        prompt: 'Make the coupon check case-insensitive and ignore surrounding spaces, so " welcome10 " also works.',
        minutes: 4,
        steps: [
          { tool: 'Edit', input: { file_path: checkout, old_string: before, new_string: after }, result: `The file ${checkout} has been updated.`,
            toolUseResult: claudeEditResult(checkout, before, after, 4) },
          { text: 'Done: `checkoutSummary` now normalises the code with `trim().toUpperCase()` before comparing, so any spelling of WELCOME10 with spaces around it gets the ten percent discount.' },
        ],
      },
      {
        prompt: 'Run the unit tests for the cart and tell me if anything fails after this change.',
        minutes: 2,
        steps: [
          { tool: 'Bash', input: { command: 'node --test test/', description: 'Run the unit tests' }, result: '✔ cart total with coupon (0.8ms)\n✔ empty cart (0.1ms)\nℹ pass 2\nℹ fail 0',
            toolUseResult: { stdout: 'ℹ pass 2\nℹ fail 0', stderr: '', interrupted: false } },
          { text: 'Both cart tests pass (2 passed, 0 failed); the case-insensitive coupon check did not break the totals.' },
        ],
      },
    ],
  });
}

function codexFixture(ws, id, start) {
  return codexRollout({
    cwd: ws,
    id,
    start,
    turns: [
      {
        prompt: 'Add a unit test for cartTotalCents in src/cart.js that checks a 10 percent coupon on a 25.00 EUR cart.',
        steps: [
          { tool: 'shell', input: { command: ['bash', '-lc', 'cat src/cart.js'] }, result: 'export function cartTotalCents(lines, couponPercent = 0) { ... }' },
          { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Add File: test/cart.test.js\n+import test from 'node:test';\n+import assert from 'node:assert';\n+import { cartTotalCents } from '../src/cart.js';\n+test('coupon', () => assert.equal(cartTotalCents([{ sku: 'a', quantity: 1, unitPriceCents: 2500 }], 10), 2250));\n*** End Patch" },
            result: 'Success. Updated the following files:\nA test/cart.test.js' },
          { text: 'I added `test/cart.test.js` with a test that a 25.00 EUR cart with a 10 percent coupon totals 2250 cents.' },
        ],
      },
      {
        prompt: 'Also cover the empty cart: cartTotalCents([]) must be 0 with and without a coupon.',
        minutes: 3,
        steps: [
          { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: test/cart.test.js\n@@\n+test('empty cart', () => { assert.equal(cartTotalCents([]), 0); assert.equal(cartTotalCents([], 10), 0); });\n*** End Patch" },
            result: 'Success. Updated the following files:\nM test/cart.test.js' },
          { text: 'Added an `empty cart` test to `test/cart.test.js`: the total of an empty cart is 0 cents with and without the coupon.' },
        ],
      },
    ],
  });
}

/** A Copilot Chat session as VS Code writes it: a mutation log (whole state, then a request appended and answered). */
function copilotFixture(ws) {
  const cart = `${ws}/src/cart.js`;
  const first = {
    requestId: 'request_fixture_1',
    timestamp: Date.parse('2026-10-06T08:15:00.000Z'),
    modelId: 'copilot/gpt-5',
    message: { text: 'Why does cartTotalCents round only once, after the coupon, instead of per line?' },
    response: [
      { value: 'Rounding per line would add up to a cent of error for every line of the cart; `cartTotalCents` sums the exact line totals first and rounds once after applying the coupon percentage, so the total is off by at most half a cent.' },
    ],
    result: { metadata: { toolCallRounds: [{ response: '', toolCalls: [{ id: 'call_read_cart', name: 'read_file', arguments: JSON.stringify({ filePath: cart, startLine: 1, endLine: 20 }) }] }] } },
  };
  const second = {
    requestId: 'request_fixture_2',
    timestamp: Date.parse('2026-10-06T08:21:00.000Z'),
    modelId: 'copilot/gpt-5',
    message: { text: 'Add a JSDoc comment to cartTotalCents that explains the single rounding step.' },
    response: [],
  };
  const answer = [
    { kind: 'textEditGroup', uri: { scheme: 'file', path: cart, fsPath: cart }, edits: [[{ text: '/** Sums exact line totals, applies the coupon, rounds once. */\n', range: { startLineNumber: 1, startColumn: 1, endLineNumber: 1, endColumn: 1 } }]] },
    { value: 'I added a JSDoc comment above `cartTotalCents` in src/cart.js saying that it sums exact line totals, applies the coupon and rounds once at the end.' },
  ];
  const log = [
    { kind: 0, v: { version: 3, sessionId: '5b0e2c71-copilot-fixture', creationDate: first.timestamp, requesterUsername: 'dev', responderUsername: 'GitHub Copilot', requests: [first] } },
    { kind: 2, k: ['requests'], v: [second] },
    { kind: 2, k: ['requests', 1, 'response'], v: answer },
  ];
  return `${log.map((e) => JSON.stringify(e)).join('\n')}\n`;
}

/** A Gemini CLI session document, pretty-printed as the CLI writes it. */
/** A Continue session as the extension saves it: pretty-printed, its workspace as a file URI, a tool call and its state. */
function continueFixture(ws) {
  const call = { id: 'call_read_vat', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ filepath: 'src/checkout.js' }) } };
  return `${JSON.stringify(
    {
      sessionId: '6a1f0c3e-continue-fixture',
      title: 'VAT after the coupon',
      workspaceDirectory: pathToFileURL(ws).href,
      history: [
        { message: { role: 'user', content: 'Where does checkoutSummary apply the VAT rate, and is it rounded before or after the coupon discount?' }, contextItems: [] },
        {
          message: { role: 'assistant', content: 'Let me read the checkout first.', toolCalls: [call] },
          contextItems: [],
          toolCallStates: [{ toolCallId: call.id, toolCall: call, status: 'done', parsedArgs: { filepath: 'src/checkout.js' }, output: [{ name: 'checkout.js', description: 'src/checkout.js', content: 'export function checkoutSummary(cart) {}' }] }],
        },
        { message: { role: 'tool', content: 'export function checkoutSummary(cart) {}', toolCallId: call.id }, contextItems: [] },
        { message: { role: 'assistant', content: 'checkoutSummary applies the VAT after the coupon discount and rounds once to whole cents, so VAT is never charged on the amount the coupon took away.' }, contextItems: [] },
      ],
    },
  )}\n`; // on one line, as older versions wrote it: "open raw" shows its records pretty-printed
}

function geminiFixture(projectHash) {
  return `${JSON.stringify(
    {
      sessionId: '7d41c2e9-5a0b-4c8e-9f21-3b6d8e0a1c47',
      projectHash,
      startTime: '2026-10-06T09:30:00.000Z',
      lastUpdated: '2026-10-06T09:41:00.000Z',
      messages: [
        { id: 'g-u1', timestamp: '2026-10-06T09:30:05.000Z', type: 'user', content: 'Which currency does checkoutSummary format the total in, and where is that decided?' },
        {
          id: 'g-a1', timestamp: '2026-10-06T09:30:20.000Z', type: 'gemini', model: 'gemini-2.5-pro',
          content: 'checkoutSummary formats the total in EUR with Intl.NumberFormat("de-DE"); the currency is hard-coded in src/checkout.js rather than read from the cart.',
          toolCalls: [{ id: 'read_file-1', name: 'read_file', args: { file_path: 'src/checkout.js' }, status: 'success',
            result: [{ functionResponse: { id: 'read_file-1', name: 'read_file', response: { output: "new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' })" } } }] }],
        },
        { id: 'g-u2', timestamp: '2026-10-06T09:38:00.000Z', type: 'user', content: 'Make the currency a parameter of checkoutSummary with EUR as the default.' },
        {
          id: 'g-a2', timestamp: '2026-10-06T09:41:00.000Z', type: 'gemini', model: 'gemini-2.5-pro',
          content: 'checkoutSummary now takes a currency argument that defaults to EUR and passes it to Intl.NumberFormat, so existing callers keep formatting in euros.',
          toolCalls: [{ id: 'replace-1', name: 'replace', args: { file_path: 'src/checkout.js', old_string: "currency: 'EUR'", new_string: 'currency' }, status: 'success',
            result: [{ functionResponse: { id: 'replace-1', name: 'replace', response: { output: 'Successfully modified file: src/checkout.js (1 replacements).' } } }] }],
        },
      ],
    },
    null,
    2,
  )}\n`;
}

/** A Cline task history as the extension writes it: the Anthropic messages on one line, environment details injected. */
function clineFixture(ws) {
  const env = `<environment_details>\n# VSCode Visible Files\nsrc/cart.js\n\n# Current Working Directory (${ws}) Files\nsrc/\n</environment_details>`;
  return JSON.stringify([
    { role: 'user', content: [{ type: 'text', text: '<task>\nDoes cartTotalCents reject a negative quantity, or does it quietly lower the total?\n</task>' }, { type: 'text', text: env }] },
    { role: 'assistant', content: [{ type: 'text', text: '<thinking>Check the cart module.</thinking>' }, { type: 'tool_use', id: 'toolu_cl1', name: 'read_file', input: { path: 'src/cart.js' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_cl1', content: [{ type: 'text', text: 'export function cartTotalCents(lines, couponPercent = 0) { ... }' }] }, { type: 'text', text: env }] },
    { role: 'assistant', content: [{ type: 'text', text: 'It quietly lowers the total: cartTotalCents multiplies quantity by the unit price without a check, so a quantity of -2 subtracts two items from the cart total.' }] },
    { role: 'user', content: [{ type: 'text', text: '<feedback>\nMake it throw a RangeError for a negative quantity instead.\n</feedback>' }, { type: 'text', text: env }] },
    { role: 'assistant', content: [{ type: 'text', text: 'cartTotalCents now throws a RangeError naming the SKU when a line has a negative quantity, before anything is summed.' },
      { type: 'tool_use', id: 'toolu_cl2', name: 'replace_in_file', input: { path: 'src/cart.js', diff: '------- SEARCH\nfor (const line of lines)\n=======\nfor (const line of lines) { if (line.quantity < 0) throw new RangeError(line.sku);\n+++++++ REPLACE' } }] },
  ]);
}

/** A legacy Kilo Code task (a Roo Code fork): the history on one line, no `ts`, the workspace in its environment details. */
function kiloFixture(ws) {
  const env = `<environment_details>\n# Current Mode\n<slug>code</slug>\n<model>anthropic/claude-sonnet-4</model>\n\n# Current Workspace Directory (${ws}) Files\nsrc/\n</environment_details>`;
  return JSON.stringify([
    { role: 'user', content: [{ type: 'text', text: '<task>\nDoes checkoutSummary accept the coupon code in lower case, like welcome10?\n</task>' }, { type: 'text', text: env }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Reading the checkout.' }, { type: 'tool_use', id: 'toolu_kl1', name: 'read_file', input: { path: 'src/checkout.js' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_kl1', content: [{ type: 'text', text: "const percent = coupon === 'WELCOME10' ? 10 : 0;" }] }, { type: 'text', text: env }] },
    { role: 'assistant', content: [{ type: 'text', text: "No: checkoutSummary compares the code with === 'WELCOME10', so welcome10 typed in lower case gets no discount; upper-casing the code before the comparison would accept it." }] },
  ]);
}

/** A Kiro IDE session, its index and the execution log that holds what the agent said and read. */
function writeKiroFixture(storage, ws) {
  const sessionId = 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70';
  const folder = join(storage, 'workspace-sessions', Buffer.from(ws).toString('base64'));
  write(join(folder, 'sessions.json'), JSON.stringify([{ sessionId, title: 'Coupon rounding', dateCreated: String(Date.parse('2026-10-09T10:00:00.000Z')), workspaceDirectory: ws }], null, 2));
  const session = join(folder, `${sessionId}.json`);
  write(session, JSON.stringify({
    sessionId, title: 'Coupon rounding', workspaceDirectory: ws,
    history: [
      { message: { role: 'user', content: '<kiro-ide-message>How is the cart total rounded when the coupon leaves a fraction of a cent?</kiro-ide-message>', id: 'kiro-m1' } },
      { message: { role: 'assistant', content: '', id: 'kiro-m2' }, executionId: 'kiro-exec-1' },
    ],
  }, null, 2));
  const hash = createHash('sha256').update(ws).digest('hex').slice(0, 32);
  write(join(storage, hash, '414d1636299d2b9e4ce7e17fb11f63e9', 'b1c2d3e4f5a6'), JSON.stringify({ executionId: 'kiro-exec-1', actions: [
    { actionId: 'kiro-a1', actionType: 'readCode', input: { file: 'src/cart.js' } },
    { actionId: 'kiro-a2', actionType: 'say', output: { message: 'cartTotalCents rounds once, with Math.round after the coupon percentage is taken off the exact subtotal, so a fraction of a cent left by the coupon rounds half up to a whole cent.' } },
  ] }));
  return session;
}
