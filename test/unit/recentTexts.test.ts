import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REDACTION_VERSION, redact } from '../../src/core/distill/redact';
import { pairsNear, proximityForm } from '../../src/core/search/proximity';
import { RecentTexts } from '../../src/core/search/recentTexts';
import { createSearcher } from '../../src/core/search/searcher';
import { MARK_END, MARK_START } from '../../src/core/search/snippet';
import { storeStatementsOf } from './helpers';
import { openFixture, writeConversation } from './searchFixture';
import { PLANTED } from './secrets';

const text = (verbatim: string) => ({ prompt: 'p', verbatim });

test('recent texts: the least recently used go first once the characters kept pass the bound', () => {
  const recent = new RecentTexts(25); // prompt 1 + verbatim 9 = 10 characters a text
  recent.keep(1, text('one......'));
  recent.keep(2, text('two......'));
  assert.ok(recent.text(1), 'kept, and now the most recently used');
  recent.keep(3, text('three....'));
  assert.equal(recent.text(2), undefined, 'the least recently used went');
  assert.ok(recent.text(1) && recent.text(3));
  recent.storeChanged();
  assert.equal(recent.text(1), undefined, 'nothing kept after a change of the store');
});

test("a kept text's proximity form is proximity's own, made once", () => {
  const recent = new RecentTexts();
  const verbatim = 'User: Squash the refactor branch\nAssistant: Squashed.';
  recent.keep(7, text(verbatim));
  const form = recent.proximityForm(7, verbatim);
  assert.equal(form.form, proximityForm(verbatim));
  assert.equal(recent.proximityForm(7, verbatim), form);
  assert.deepEqual([...pairsNear(verbatim, ['squash', 'branch'])], [0]);
  assert.equal(recent.proximityForm(8, 'Not Kept').form, 'not kept', 'a text not kept is put in its form all the same');
});

test("a kept text's found places are its own while it is kept, and count against the bound", () => {
  const recent = new RecentTexts(50); // prompt 1 + verbatim 9 = 10 characters a text; 4 a number of its places, one a list
  recent.keep(1, text('one......'));
  recent.keep(2, text('two......'));
  assert.equal(recent.snippetPlaces(3, 'three....'), undefined, 'a text not kept keeps no places');
  assert.equal(recent.snippetPlaces(1, 'changed..'), undefined, 'nor one whose text is not the one kept');
  const places = recent.snippetPlaces(1, 'one......')!;
  assert.equal(recent.snippetPlaces(1, 'one......'), places);
  places.of('one', () => [0, 3]); // 20 + 12 characters
  places.of('on*', () => [0, 2, 4, 6, 8, 9]); // 20 + 40: over the bound
  assert.equal(recent.text(2), undefined, 'the least recently used went');
  assert.ok(recent.text(1));
  places.of('one*', () => [0, 3, 5, 6, 7, 8]);
  assert.equal(recent.text(1), undefined, 'an entry whose places grew past the bound goes too');
});

test('a searcher reads a text again once the store changed: its snippet is of the text as it is now', async () => {
  const fx = await openFixture([]);
  const conv = (said: string) => ({
    file: 'c.jsonl',
    agent: 'claude-code' as const,
    project: '/p/c',
    exchanges: [{ key: 'c0', text: `User: the zeppelin gearbox ${said}\nAssistant: done.`, startedAt: '2025-01-01T00:00:00Z' }],
  });
  try {
    await writeConversation(fx.store, fx.dir, conv('rattles'));
    const searcher = createSearcher(fx.reads);
    const snippet = async () => (await searcher.search({ text: 'zeppelin gearbox', mode: 'verbatim/bm25' })).hits[0]!.snippet;
    assert.match(await snippet(), /rattles/);
    await writeConversation(fx.store, fx.dir, conv('squeaks'));
    const now = await snippet();
    assert.match(now, /squeaks/);
    assert.ok(now.includes(`${MARK_START}zeppelin${MARK_END}`));
  } finally {
    await fx.store.close();
  }
});

test("a searcher reads a hit's row once, until the store changes: then the row as it is now", async () => {
  const fx = await openFixture([]);
  const conv = (file: string) => ({
    file: 'c.jsonl',
    agent: 'claude-code' as const,
    project: '/p/c',
    exchanges: [{ key: 'c0', text: 'User: the zeppelin gearbox rattles\nAssistant: done.', files: [{ path: file, how: 'edit' as const }], startedAt: '2025-01-01T00:00:00Z' }],
  });
  try {
    await writeConversation(fx.store, fx.dir, conv('src/gearbox.ts'));
    const searcher = createSearcher(fx.reads);
    const search = async () => {
      let files: string[] = [];
      const sql = await storeStatementsOf(fx.store, async () => {
        files = (await searcher.search({ text: 'zeppelin gearbox', mode: 'verbatim/bm25' })).hits[0]!.filesTouched.map((f) => f.path);
      });
      return { rowsRead: sql.filter((s) => s.includes('json_group_array(json_array(room_id')).length, files };
    };
    assert.deepEqual(await search(), { rowsRead: 1, files: ['src/gearbox.ts'] });
    assert.deepEqual(await search(), { rowsRead: 0, files: ['src/gearbox.ts'] }, 'kept: not read again');
    await writeConversation(fx.store, fx.dir, conv('src/clutch.ts'));
    assert.deepEqual(await search(), { rowsRead: 1, files: ['src/clutch.ts'] }, 'read again after the change');
  } finally {
    await fx.store.close();
  }
});

test("a kept text's redacted form is redact's own, made once; a text without a secret is its own redacted form", () => {
  const recent = new RecentTexts();
  const secret = PLANTED[0]!.secret;
  const withKey = `User: rotate the deploy key\nAssistant: The old key was ${secret}.`;
  const plain = 'User: rotate the deploy key\nAssistant: Rotated.';
  recent.keep(1, text(withKey));
  recent.keep(2, text(plain));
  assert.equal(recent.redacted(1, text(withKey)), redact(withKey));
  assert.ok(!recent.redacted(1, text(withKey)).includes(secret), 'asked again: still redacted');
  assert.equal(recent.redacted(2, text(plain)), plain);
  assert.ok(!recent.redacted(3, text(withKey)).includes(secret), 'a text not kept is redacted all the same');
  assert.ok(!recent.redacted(2, text(withKey)).includes(secret), 'another text under a kept number is not taken for the kept one');
});

test('a text found to hold no secret when distilled is shown as it is, only when found by these rules', () => {
  const recent = new RecentTexts();
  const secret = PLANTED[0]!.secret;
  const withKey = `User: rotate the deploy key\nAssistant: The old key was ${secret}.`;
  // a flag the current rules wrote is trusted (a distilled text that held this key would not carry it)
  assert.equal(recent.redacted(1, { ...text(withKey), clean: REDACTION_VERSION }), withKey);
  for (const clean of [null, undefined, 'r0', `${REDACTION_VERSION}-older`]) {
    assert.ok(!recent.redacted(2, { ...text(withKey), clean }).includes(secret), `clean ${clean}: redacted`);
  }
});

test('a searcher asked to redact cuts the snippet from the redacted text, first and every later time, and after the store changed', async () => {
  const fx = await openFixture([]);
  const secret = PLANTED[0]!.secret;
  const conv = (said: string, file = 'c.jsonl') => ({
    file,
    agent: 'claude-code' as const,
    project: '/p/c',
    exchanges: [{ key: 'c0', text: `User: the zeppelin gearbox key\nAssistant: ${said}`, startedAt: '2025-01-01T00:00:00Z' }],
  });
  try {
    await writeConversation(fx.store, fx.dir, conv('the gearbox is fine, nothing secret here.'));
    const searcher = createSearcher(fx.reads);
    const snippet = async (redact: boolean) => (await searcher.search({ text: 'zeppelin gearbox', mode: 'verbatim/bm25', redact })).hits[0]!.snippet;
    assert.equal(await snippet(true), await snippet(false), 'no secret: the same snippet either way');
    assert.equal(await snippet(true), await snippet(false));
    await writeConversation(fx.store, fx.dir, conv(`the zeppelin gearbox key is ${secret} now.`));
    for (let i = 0; i < 3; i++) assert.ok(!(await snippet(true)).includes(secret), `search ${i + 1} after the change`);
    assert.ok((await snippet(false)).includes(secret), 'not redacted when not asked (the window holds the key)');
    assert.ok(!(await snippet(true)).includes(secret));
  } finally {
    await fx.store.close();
  }
});
