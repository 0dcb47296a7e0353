import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distillOffline } from '../../src/core/distill/offline';
import { searchTerms, TERMS_MAX_TOKENS } from '../../src/core/distill/searchTerms';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { englishRarity, words } from '../../src/core/distill/wordRarity';
import { rebuildDistilledFts } from '../../src/core/store/distilledStore';
import { createSearcher } from '../../src/core/search/searcher';
import { countTokens } from '../../src/core/tokens';
import { distillInput } from './distillHelpers';
import { openFixture } from './searchFixture';

const PROMPT = 'The gl_screen service floods the router log, stop it';
const BODY = [
  'Assistant: Let me look at the services.',
  '[tool] Bash logread | grep gl_screen',
  '[result] zzyzxqq polling every 5 seconds deadbeefcafe1234',
  '[error] ssh: connect to host [REDACTED_IP] port 22: Connection refused',
  'Assistant: I removed the obsolete wireguard rules from the firewall, and gl_screen no longer polls.',
].join('\n');

test('search terms: the distinctive words the headline lacks, from what was said and done, not from tool results', () => {
  const terms = searchTerms(PROMPT, splitVerbatim(`User: ${PROMPT}\n\n${BODY}`), englishRarity(), 'stop the screen service').split(' ');
  // the human's rare identifier, said three times, leads
  assert.equal(terms[0], 'gl_screen');
  for (const w of ['wireguard', 'firewall', 'router', 'logread']) assert.ok(terms.includes(w), `${w} in ${terms.join(' ')}`);
  // words of a tool's output alone, hashes, bare numbers, function words and what the headline says are no terms
  // a tool's name and a redaction marker neither
  for (const w of ['zzyzxqq', 'deadbeefcafe1234', '5', 'the', 'from', 'stop', 'screen', 'service', 'bash', 'redacted_ip']) assert.ok(!terms.includes(w), `${w} in ${terms.join(' ')}`);
});

test("search terms: the human's words outweigh the assistant's of the same rarity", () => {
  const prompt = 'rename quetzalfoo please';
  const terms = searchTerms(prompt, splitVerbatim(`User: ${prompt}\n\nAssistant: Renamed it to quetzalbar.`), englishRarity(), '');
  assert.ok(terms.indexOf('quetzalfoo') < terms.indexOf('quetzalbar'), terms);
});

test('search terms stay within their token budget however many rare words the exchange has', () => {
  const rare = Array.from({ length: 200 }, (_, i) => `zorbflux${i.toString(36)}qa`).join(' ');
  const terms = searchTerms(rare, splitVerbatim(`User: ${rare}\n\nAssistant: ${rare}`), englishRarity(), '');
  assert.ok(terms.length > 0);
  assert.ok(countTokens(` ${terms}`) <= TERMS_MAX_TOKENS, `${countTokens(terms)} tokens`);
});

test("the offline object's search terms repeat no word of its headline or detail", () => {
  const d = distillOffline(distillInput(PROMPT, BODY), englishRarity());
  assert.ok(d.searchTerms, 'the offline distiller gives search terms');
  const said = new Set(words(`${d.exchangeCore}\n${d.specificContext}`));
  for (const w of d.searchTerms!.split(' ')) assert.ok(!said.has(w), `${w} is in "${d.exchangeCore}" / "${d.specificContext}"`);
});

test('search terms survive a rebuild of the distilled full-text index (check --repair)', async () => {
  const fx = await openFixture();
  try {
    const searcher = createSearcher(fx.reads);
    const found = async () => (await searcher.search({ text: 'orders email', mode: 'all-facets/bm25' })).hits.map((h) => fx.keys.get(h.exchangeId));
    assert.deepEqual(await found(), ['b1']);
    await fx.store.db.transaction(() => rebuildDistilledFts(fx.store.db));
    assert.deepEqual(await found(), ['b1']);
  } finally {
    await fx.store.close();
  }
});
