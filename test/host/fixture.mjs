// The fixture of the in-host and UI tests, laid out in a run's temp dir:
//   <dir>/workspace         copy of test/host/fixture-workspace (SpecStory + Aider histories live inside it)
//   <dir>/agents/claude     CLAUDE_CONFIG_DIR: projects/<enc>/<session>.jsonl with cwd = <dir>/workspace
//   <dir>/agents/codex      CODEX_HOME: sessions/YYYY/MM/DD/rollout-*.jsonl with cwd = <dir>/workspace
//   <dir>/fixture.json      the paths and the expected index counts (read by the in-host tests)
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeEditResult, claudeProjectDir, claudeSession, codexRollout, codexRolloutPath } from './transcripts.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

/** What indexing the fixture must produce (one conversation per transcript, each exchange > 100 chars). */
export const EXPECTED = {
  conversations: 4,
  exchanges: 9,
  byAgent: { 'claude-code': 3, codex: 2, specstory: 2, aider: 2 },
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

  const fixture = { workspace, claudeConfigDir, codexHome, expected: EXPECTED };
  const manifest = join(dir, 'fixture.json');
  writeFileSync(manifest, JSON.stringify(fixture, null, 2));
  return { ...fixture, manifest, env: { CLAUDE_CONFIG_DIR: claudeConfigDir, CODEX_HOME: codexHome, AGENT_RECALL_FIXTURE: manifest } };
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
