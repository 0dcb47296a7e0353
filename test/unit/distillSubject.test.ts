import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detailItems } from '../../src/core/distill/details';
import { distillOffline } from '../../src/core/distill/offline';
import { conversationSubject, SUBJECT_MAX_TOKENS } from '../../src/core/distill/subject';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { pendingDistillation } from '../../src/core/store/distilledStore';
import { countTokens } from '../../src/core/tokens';
import { distillInput as input, fixtureStore } from './distillHelpers';

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
