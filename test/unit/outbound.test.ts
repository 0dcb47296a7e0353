import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { digestLine } from '../../src/core/digest';
import { Memory } from '../../src/core/memory';
import { redactedDistilled, redactedExchange, redactedHit, redactedListing } from '../../src/core/outbound';
import { tempDir } from './helpers';
import { leak } from './secretCorpus';
import { SESSION_SECRETS, secretSession } from './secretSession';

/**
 * What the language-model tools and the memory digest hand to a model (host/lmTools.ts composes these:
 * search with redacted snippets, redacted hits and listings as digest lines, a redacted exchange cut to a
 * budget) holds no piece of the twenty secrets of issue 44's session.
 */

function leaks(text: string): string[] {
  return SESSION_SECRETS.flatMap((s) => {
    const piece = leak(text, s.secret);
    return piece === undefined ? [] : [`${s.what}: ${piece}`];
  });
}

describe('outbound views of a store holding twenty secrets', () => {
  let memory: Memory;

  before(async () => {
    const root = tempDir('recall-outbound-');
    const workspace = path.join(root, 'ws');
    const transcripts = path.join(root, 'projects');
    mkdirSync(workspace);
    mkdirSync(transcripts);
    writeFileSync(path.join(transcripts, 'session.jsonl'), secretSession(workspace));
    memory = await Memory.open(path.join(root, 'recall.sqlite'));
    await memory.index({
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [transcripts], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
    });
  });
  after(() => memory.close());

  test('search with redact: snippets, hits and digest lines hold no secret; the same search without it shows the key', async () => {
    const shown: string[] = [];
    for (const query of ['harbour release', 'registry login mysql', 'Twilio SMS installation token', 'credentials export Stripe', 'netrc Heroku summariser']) {
      const plain = await memory.search({ text: query, limit: 10 });
      const result = await memory.search({ text: query, limit: 10, redact: true });
      assert.deepEqual(result.hits.map((h) => h.exchangeId), plain.hits.map((h) => h.exchangeId), 'redaction changes what is shown, not the ranking');
      const hits = result.hits.map(redactedHit);
      const listings = (await memory.listings(hits.map((h) => h.exchangeId))).map(redactedListing);
      shown.push(JSON.stringify(hits), ...listings.map(digestLine));
      if (query === 'harbour release') assert.notDeepEqual(leaks(plain.hits.map((h) => h.snippet).join('\n')), [], 'the window opens inside the key');
    }
    assert.deepEqual(leaks(shown.join('\n')), []);
  });

  test('a redacted exchange and its distilled object hold no secret, however the text is cut after', async () => {
    const recent = await memory.recent(10);
    assert.equal(recent.length, 5);
    const shown: string[] = [];
    for (const l of recent) {
      const e = redactedExchange((await memory.exchange(l.exchangeId))!);
      for (const chars of [80, 200, 600, e.verbatim.length]) shown.push(e.verbatim.slice(0, chars));
      shown.push(JSON.stringify({ ...e, verbatim: '' }), JSON.stringify(redactedDistilled((await memory.distilled(l.exchangeId))!)));
    }
    assert.deepEqual(leaks(shown.join('\n')), []);
  });

  test('the memory digest an agent is given holds no secret', async () => {
    for (const query of ['', 'deploy key harbour', 'password token']) {
      const digest = await memory.digest(4000, query);
      assert.ok(digest.included > 0);
      assert.deepEqual(leaks(digest.text), []);
    }
  });
});
