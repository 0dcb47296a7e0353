import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { digestLine } from '../../src/core/digest';
import { redact } from '../../src/core/distill/redact';
import { Memory } from '../../src/core/memory';
import type { Hit } from '../../src/core/model';
import { redactedDistilled, redactedExchange, redactedListing, shownHit } from '../../src/core/outbound';
import { tempDir } from './helpers';
import { leak } from './secretCorpus';
import { SESSION_SECRETS, secretSession } from './secretSession';

/**
 * What the language-model tools, the MCP server and the memory digest hand to a model (host/lmTools.ts and
 * mcp/tools.ts compose these: search with redacted snippets, the fields shown of its hits, listings as digest
 * lines, a redacted exchange cut to a budget) holds no piece of the twenty secrets of issue 44's session.
 */

function leaks(text: string): string[] {
  return SESSION_SECRETS.flatMap((s) => {
    const piece = leak(text, s.secret);
    return piece === undefined ? [] : [`${s.what}: ${piece}`];
  });
}

describe('the fields a search answer shows of a hit', () => {
  // the secrets redact.ts knows on their own, without the words around them in the session (`password=`, a URL)
  const bare = SESSION_SECRETS.filter((s) => !redact(` ${s.secret} `).includes(s.secret));
  const secret = (i: number): string => bare[i % bare.length]!.secret;
  const files = Array.from({ length: 8 }, (_, i) => ({ path: `deploy/${secret(i)}/conf.env`, how: 'edit' as const }));
  const hit = (core: string | undefined): Hit => ({
    exchangeId: 'e1', agent: 'claude-code', file: `/t/${secret(8)}.jsonl`, lineStart: 1, lineEnd: 2, sessionId: 's', prompt: `log in with ${secret(9)}`,
    conversationId: 'c1', title: `title ${secret(10)}`, score: 1, parts: [], confidence: 'high', ...(core === undefined ? {} : { core, context: `then ${secret(11)}` }),
    rooms: [{ id: `concept:${secret(12)}`, type: 'concept', label: `about ${secret(13)}` }], filesTouched: files,
    snippet: '', matchedTerms: [], more: 0, firstPrompt: secret(14), copies: [{ file: `/t/${secret(15)}`, lineStart: 1, lineEnd: 2 }],
  });

  test('each is redacted, as the MCP server and the language-model tools show them; nothing else is given', () => {
    for (const core of [`uses ${secret(16)}`, undefined]) {
      for (const fields of [{ files: 6, rooms: true }, { files: 4, rooms: false }]) {
        const shown = shownHit(hit(core), fields, true);
        assert.deepEqual(leaks(JSON.stringify(shown)), []);
        assert.deepEqual(Object.keys(shown), ['core', 'context', 'prompt', 'files', 'rooms']);
        assert.equal(shown.files.length, fields.files);
        assert.equal(shown.rooms.length, fields.rooms ? 1 : 0);
        // a distilled hit's prompt is not shown; a hit not distilled shows its prompt, redacted
        assert.equal(shown.prompt === undefined, core !== undefined);
        const plain = JSON.stringify(shownHit(hit(core), fields, false));
        assert.ok(leaks(plain).length >= fields.files + (fields.rooms ? 2 : 0) + 1, 'not redacting, the fields shown hold their secrets');
      }
    }
  });
});

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

  test('search with redact: snippets, the fields shown of hits and digest lines hold no secret; the same search without it shows the key', async () => {
    const shown: string[] = [];
    for (const query of ['harbour release', 'registry login mysql', 'Twilio SMS installation token', 'credentials export Stripe', 'netrc Heroku summariser']) {
      const plain = await memory.search({ text: query, limit: 10 });
      const result = await memory.search({ text: query, limit: 10, redact: true });
      assert.deepEqual(result.hits.map((h) => h.exchangeId), plain.hits.map((h) => h.exchangeId), 'redaction changes what is shown, not the ranking');
      // as the MCP server shows a hit (six files, rooms) and as the language-model tools do (four files)
      for (const fields of [{ files: 6, rooms: true }, { files: 4, rooms: false }]) {
        shown.push(JSON.stringify(result.hits.map((h) => ({ ...shownHit(h, fields, true), snippet: h.snippet }))));
      }
      const listings = (await memory.listings(result.hits.map((h) => h.exchangeId))).map(redactedListing);
      shown.push(...listings.map(digestLine));
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
