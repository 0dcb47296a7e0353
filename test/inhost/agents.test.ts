import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, fixture, recallFinds, settledSummary } from './helpers';

/**
 * Runs "Open Raw Transcript at This Exchange" for an exchange; the editor it opened and its selected text. Every
 * format opens in the language that links nothing (issue 44 item 1; the UI tests Ctrl+click its links).
 */
async function openRaw(exchangeId: string): Promise<{ editor: vscode.TextEditor; selected: string }> {
  await vscode.commands.executeCommand('agentRecall.openTranscript', exchangeId);
  const editor = vscode.window.activeTextEditor;
  assert.ok(editor, 'an editor opened');
  assert.equal(editor.document.languageId, 'agent-recall-transcript');
  return { editor, selected: editor.document.getText(editor.selection) };
}

describe('Editor agents: Copilot Chat, Gemini CLI, Cline, Cursor, OpenCode, Continue, Kilo Code, Kiro and Trae sessions', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it("reads Copilot Chat's session log from this editor's own workspace storage and finds it through the recall command", async () => {
    const found = await recallFinds('why cartTotalCents rounds only once after the coupon', 'copilot');
    assert.ok(found, 'a Copilot Chat candidate');
    assert.match(found.headline + found.snippet.map((p) => p.text).join(''), /round/i);
    // the files are workspace-relative: the session was attributed to this workspace by its workspace.json
    assert.ok(found.files.some((f) => f.path === 'src/cart.js'), JSON.stringify(found.files));
  });

  it('reads the Gemini CLI session whose projectHash is this workspace and finds it through the recall command', async () => {
    const found = await recallFinds('currency of the checkout total hard-coded EUR', 'gemini');
    assert.ok(found, 'a Gemini CLI candidate');
    assert.ok(found.files.some((f) => f.path === 'src/checkout.js'), JSON.stringify(found.files));
  });

  it("reads a Cline task from this editor's global storage (its workspace from the environment details) and finds it through the recall command", async () => {
    const found = await recallFinds('negative quantity cartTotalCents RangeError', 'cline');
    assert.ok(found, 'a Cline candidate');
    assert.ok(found.files.some((f) => f.path === 'src/cart.js'), JSON.stringify(found.files));
  });

  it('reads a Continue session (its workspaceDirectory is this workspace) and finds it through the recall command', async () => {
    const found = await recallFinds('VAT rate rounded before or after the coupon discount', 'continue');
    assert.ok(found, 'a Continue candidate');
    assert.ok(found.files.some((f) => f.path === 'src/checkout.js' && f.how === 'read'), JSON.stringify(found.files));
    // the session is one line: "open raw" shows its `history` records pretty-printed, the exchange's selected
    const hit = (await (await api()).search({ text: 'VAT rate rounded before or after the coupon discount', limit: 20 })).hits.find((h) => h.agent === 'continue');
    assert.ok(hit, 'the Continue exchange');
    assert.deepEqual([hit.lineStart, hit.lineEnd], [1, 1]);
    const { editor, selected } = await openRaw(hit.exchangeId);
    assert.equal(editor.document.uri.scheme, 'agent-recall-raw');
    assert.match(editor.document.lineAt(0).text, /^\/\/ the `history` records of 6a1f0c3e-continue-fixture\.json \(one line on disk\)/);
    assert.match(selected, /^ {2}\{\n {4}"message": \{\n {6}"role": "user",\n {6}"content": "Where does checkoutSummary apply the VAT rate[\s\S]*VAT is never charged on the amount the coupon took away\.[\s\S]*\n {2}\}$/);
  });

  it("reads Cursor's chat database (a user-data folder named in the settings) and finds it through the recall command", async () => {
    const found = await recallFinds('free-shipping threshold FREE_SHIPPING_CENTS shipping fee', 'cursor');
    assert.ok(found, 'a Cursor candidate');
    assert.ok(found.files.some((f) => f.path === 'src/checkout.js'), JSON.stringify(found.files));
    // rows have no lines: "open raw" shows the conversation's records with this exchange's bubbles selected
    const hit = (await (await api()).search({ text: 'Set the free-shipping threshold to 2000 cents', limit: 20 })).hits.find((h) => h.agent === 'cursor' && /^Set the free-shipping/.test(h.prompt));
    assert.ok(hit, 'the second Cursor exchange');
    assert.deepEqual([hit.lineStart, hit.lineEnd], [4, 6], 'the positions of its bubbles');
    const { editor, selected } = await openRaw(hit.exchangeId);
    assert.equal(editor.document.uri.scheme, 'agent-recall-raw');
    assert.match(selected, /"position": 4[\s\S]*Set the free-shipping threshold[\s\S]*"position": 6/);
    assert.ok(!selected.includes('where is the free-shipping threshold decided'), 'not the first exchange');
  });

  it("opens a one-line Cline history raw at the exchange's own records, pretty-printed", async () => {
    const a = await api();
    // the task's second exchange: on line 1 like the first, told apart by its records' byte offsets
    const hit = (await a.search({ text: 'throw a RangeError for a negative quantity', limit: 20 })).hits.find((h) => h.agent === 'cline' && /RangeError/.test(h.prompt));
    assert.ok(hit, 'the Cline exchange');
    assert.deepEqual([hit.lineStart, hit.lineEnd], [1, 1]);
    const { editor, selected } = await openRaw(hit.exchangeId);
    assert.equal(editor.document.uri.scheme, 'agent-recall-raw');
    assert.ok(editor.document.lineCount > 20, 'pretty-printed, not one line');
    assert.match(selected, /Make it throw a RangeError[\s\S]*throws a RangeError naming the SKU/);
    assert.ok(!selected.includes('Does cartTotalCents reject'), 'not the first exchange');
  });

  it("reads a legacy Kilo Code task from this editor's global storage (its workspace from the environment details) as Kilo Code's and finds it through the recall command", async () => {
    const found = await recallFinds('coupon code in lower case welcome10', 'kilo');
    assert.ok(found, 'a Kilo Code candidate');
    assert.equal(found.agentName, 'Kilo Code');
    assert.ok(found.files.some((f) => f.path === 'src/checkout.js' && f.how === 'read'), JSON.stringify(found.files));
  });

  it("reads a Kiro IDE session from the editor's kiro.kiroagent storage with its execution log, finds it through the recall command and opens it raw at its records", async () => {
    const found = await recallFinds('fraction of a cent left by the coupon rounds half up', 'kiro');
    assert.ok(found, 'a Kiro candidate');
    assert.equal(found.agentName, 'Kiro');
    assert.ok(found.files.some((f) => f.path === 'src/cart.js'), JSON.stringify(found.files));
    const hit = (await (await api()).search({ text: 'cart total rounded fraction of a cent coupon', limit: 20 })).hits.find((h) => h.agent === 'kiro');
    assert.ok(hit, 'the Kiro exchange');
    assert.deepEqual([hit.lineStart, hit.lineEnd], [2, 3], 'positions of its history entries (1 is the session)');
    const { editor, selected } = await openRaw(hit.exchangeId);
    assert.equal(editor.document.uri.scheme, 'agent-recall-raw');
    assert.match(editor.document.lineAt(0).text, /^\/\/ Kiro session d4e5f6a7-/);
    assert.match(selected, /kiro-ide-message[\s\S]*"executionId": "kiro-exec-1"[\s\S]*rounds half up/);
  });

  it("reads a Trae session from a workspace's storage database of this editor (rollback journal, read from a copy), finds it through the recall command and opens it raw at its messages", async () => {
    const found = await recallFinds('VAT rounded per line or once on the whole cart one cent off', 'trae');
    assert.ok(found, 'a Trae candidate');
    assert.equal(found.agentName, 'Trae');
    // its answer was in agentTaskContent (its content empty), and it names the file Agent Recall finds on disk
    assert.ok(found.files.some((f) => f.path === 'src/checkout.js'), JSON.stringify(found.files));
    const hit = (await (await api()).search({ text: 'checkoutSummary VAT rounded once discounted cart total', limit: 20 })).hits.find((h) => h.agent === 'trae');
    assert.ok(hit, 'the Trae exchange');
    assert.deepEqual([hit.lineStart, hit.lineEnd], [2, 3], 'positions of its messages (1 is the session)');
    const { editor, selected } = await openRaw(hit.exchangeId);
    assert.equal(editor.document.uri.scheme, 'agent-recall-raw');
    assert.match(editor.document.lineAt(0).text, /^\/\/ Trae session 7c8d9e0f-trae-/);
    assert.match(selected, /"role": "user"[\s\S]*one cent off[\s\S]*"agentTaskContent"[\s\S]*rounds the VAT once/);
  });

  it("reads OpenCode's database under XDG_DATA_HOME (its sessions of this workspace only), finds it through the recall command and opens it raw at its records", async () => {
    const found = await recallFinds('couponPercent whole number instead of a fraction', 'opencode');
    assert.ok(found, 'an OpenCode candidate');
    assert.ok(found.files.some((f) => f.path === 'src/cart.js'), JSON.stringify(found.files));
    const hits = (await (await api()).search({ text: 'couponPercent', limit: 20 })).hits.filter((h) => h.agent === 'opencode');
    assert.equal(hits.length, 1, 'the other project\'s session is left out');
    // rows have no lines: the exchange's "lines" are its records' positions in the session (1 is the session)
    assert.deepEqual([hits[0]!.lineStart, hits[0]!.lineEnd], [2, 6]);
    const { editor, selected } = await openRaw(hits[0]!.exchangeId);
    assert.equal(editor.document.uri.scheme, 'agent-recall-raw');
    assert.match(selected, /"id": "msg_oc1"[\s\S]*couponPercent as a whole number[\s\S]*"id": "prt_oc2b"/);
    assert.ok(!editor.document.getText().includes('ses_7c3e9a1b2d4fOtherProject'), 'only its own session');
  });
});
