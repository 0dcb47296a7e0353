import assert from 'node:assert/strict';
import { appendFile, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace } from '../../src/core/indexer';
import { Store } from '../../src/core/store/store';
import { detailItems } from '../../src/core/distill/details';
import { distillOffline } from '../../src/core/distill/offline';
import { conversationSubject, SUBJECT_MAX_TOKENS } from '../../src/core/distill/subject';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { pendingDistillation } from '../../src/core/store/distilledStore';
import { countTokens } from '../../src/core/tokens';
import { distillInput as input, fixtureStore } from './distillHelpers';
import { tempDir } from './helpers';

const TITLE = 'Alacritty theme switching for the Cosmic desktop';

test('a request that names little gets its conversation title as its subject, when the title adds a word', () => {
  assert.equal(conversationSubject('resume', TITLE, 'resume → Added the theme toggle'), TITLE);
  assert.equal(conversationSubject('what are these?', TITLE, 'what are these? → These are desktop entries'), TITLE);
  // a request naming more than three things carries its own subject
  assert.equal(conversationSubject('switch the alacritty colors to the nord palette', TITLE, 'x'), '');
  // nothing recorded, or nothing the core does not say already
  assert.equal(conversationSubject('resume', undefined, 'x'), '');
  assert.equal(conversationSubject('resume', '  ', 'x'), '');
  assert.equal(conversationSubject('resume', 'Alacritty theme', 'resume → The Alacritty theme now follows the desktop'), '');
});

test('a long title is cut at a word to the subject room', () => {
  const long = 'Refactoring the drawing modes of the painting sketch into separate modules with shared utilities and tests for each of them';
  const s = conversationSubject('ok', long, '');
  assert.ok(s.length > 0 && s.length < long.length && long.startsWith(s), s);
  assert.ok(countTokens(s) <= SUBJECT_MAX_TOKENS, s);
});

const FOLLOW_UP = input('resume', [
  'Assistant: Picking up where we stopped.',
  '[tool] Edit /home/dev/shop/scripts/toggle-theme.sh',
  '',
  'Assistant: I added the `toggle-theme` script and it now switches both terminals.',
].join('\n'));

test("a SpecStory chat named by its first prompt's first 50 characters shows their whole words, marked as cut", () => {
  const cut = 'Recently, I had a problem where I made some (suppo';
  assert.equal(cut.length, 50);
  assert.equal(conversationSubject('ok', cut, '', 'specstory'), 'Recently, I had a problem where I made some…');
  // another agent's title of 50 characters, or a SpecStory heading of another length, is whole
  const fifty = 'Overview of sketch.js file structure and functions';
  assert.equal(fifty.length, 50);
  assert.equal(conversationSubject('ok', fifty, '', 'claude-code'), fifty);
  assert.equal(conversationSubject('ok', 'Debugging a web app in VS Code with Chrome', '', 'specstory'), 'Debugging a web app in VS Code with Chrome');
});

test('the offline detail line of a follow-up ends with its conversation title; without a title nothing changes', () => {
  const stats = englishRarity();
  const plain = distillOffline(FOLLOW_UP, stats);
  const titled = distillOffline({ ...FOLLOW_UP, title: TITLE }, stats);
  assert.equal(titled.exchangeCore, plain.exchangeCore);
  assert.equal(detailItems(titled.specificContext).at(-1), TITLE);
  assert.deepEqual(detailItems(titled.specificContext).slice(0, -1), detailItems(plain.specificContext));
  assert.ok(!detailItems(plain.specificContext).includes(TITLE));
  // an exchange that names its own subject is left as it was
  const named = input('switch the alacritty colors to the nord palette in both terminals', FOLLOW_UP.verbatim);
  assert.deepEqual(distillOffline({ ...named, title: TITLE }, stats), distillOffline(named, stats));
});

test('pending exchanges carry their conversation title to the distiller', async () => {
  const store = await fixtureStore(false);
  try {
    const inputs = await pendingDistillation(store.db, 1000);
    const titles = await store.db.all<{ id: string; title: string }>(
      'SELECT e.id, c.title FROM exchanges e JOIN conversations c ON c.id = e.conversation_id WHERE c.title IS NOT NULL',
    );
    assert.ok(titles.length > 0);
    for (const t of titles) assert.equal(inputs.find((i) => i.exchangeId === t.id)?.title, t.title);
    assert.ok(inputs.some((i) => i.title === undefined));
  } finally {
    await store.close();
  }
});

/** One exchange of a Claude Code session, appended as the agent writes it. */
async function appendExchange(file: string, k: number, prompt: string, reply: string): Promise<void> {
  const base = { isSidechain: false, userType: 'external', cwd: '/w/shop', sessionId: path.basename(file, '.jsonl'), version: '2.1.12' };
  const id = (j: number): string => `aaaaaaaa-0000-4000-8000-${String(j).padStart(12, '0')}`;
  const at = new Date(Date.UTC(2026, 0, 1, 0, k)).toISOString();
  const user = { ...base, parentUuid: k > 1 ? id(2 * k - 2) : null, type: 'user', message: { role: 'user', content: prompt }, uuid: id(2 * k - 1), timestamp: at };
  const answer = { ...base, parentUuid: id(2 * k - 1), type: 'assistant', message: { model: 'claude', id: `msg_${k}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }] }, uuid: id(2 * k), timestamp: at };
  await appendFile(file, `${JSON.stringify(user)}\n${JSON.stringify(answer)}\n`);
}

test('a title the agent writes after an exchange was distilled has the exchange distilled again, with it', async () => {
  const dir = tempDir();
  const root = path.join(dir, 'projects', 'shop');
  await mkdir(root, { recursive: true });
  const file = path.join(root, 'aaaaaaaa-1111-4111-8111-111111111111.jsonl');
  await appendExchange(file, 1, 'continue please', 'I finished the coupon field: the checkout page now renders it once, and the tests pass again.');
  await appendExchange(file, 2, 'and the cart?', 'The cart page shows the coupon once too; its snapshot test is updated.');
  const store = await Store.open(path.join(dir, 'store.sqlite'));
  const options = { discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [path.join(dir, 'projects')], includeSubagents: true }, segment: { minChars: 10, maxPlies: 20 } };
  const context = async (): Promise<string[]> => (await store.db.all<{ context: string }>('SELECT d.context FROM distilled d JOIN exchanges e ON e.n = d.exchange_n ORDER BY e.line_start')).map((r) => r.context);
  try {
    await indexWorkspace(store, options);
    assert.ok(!(await context())[0]!.includes('Quokkaberry'), 'no title yet');
    await appendFile(file, `${JSON.stringify({ type: 'ai-title', aiTitle: 'Quokkaberry checkout coupon rendering', sessionId: path.basename(file, '.jsonl') })}\n`);
    await appendExchange(file, 3, 'and now?', 'The coupon field keeps its value when the cart is updated, so nothing else needs to change.');
    await indexWorkspace(store, options);
    // the first exchange is not parsed again (only the last one may still grow): its object is redone all the same
    const lines = await context();
    assert.equal(lines.length, 3);
    for (const line of lines) assert.equal(detailItems(line).at(-1), 'Quokkaberry checkout coupon rendering', line);
  } finally {
    await store.close();
  }
});
