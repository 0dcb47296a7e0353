import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDigest, digestLine } from '../../src/core/digest';
import type { ExchangeListing } from '../../src/core/store/browse';
import { countTokens } from '../../src/core/tokens';

const entry = (i: number, distilled = true): ExchangeListing => ({
  exchangeId: `ex${i}abcdefghijklmnop`, agent: 'codex', startedAt: `2026-10-${String(10 + (i % 20)).padStart(2, '0')}T10:00:00Z`,
  prompt: `Prompt number ${i}\nwith a second line`,
  ...(distilled ? { core: `Changed the retry backoff in step ${i}`, context: `delay ${i * 100} ms` } : {}),
});

test('a digest line names date, agent, core, detail and a short id', () => {
  assert.equal(digestLine(entry(1)), '- 2026-10-11 [codex] Changed the retry backoff in step 1 — delay 100 ms (id ex1abcdefghi)');
  assert.equal(digestLine(entry(2, false)), '- 2026-10-12 [codex] (not distilled) Prompt number 2 with a second line (id ex2abcdefghi)');
});

test('the digest stays within its token budget and keeps the given order', () => {
  const entries = Array.from({ length: 200 }, (_, i) => entry(i));
  const d = buildDigest(entries, 500, countTokens, 'Agent Recall memory');
  assert.ok(d.tokens <= 500, `${d.tokens} tokens`);
  assert.ok(countTokens(d.text) <= 510, 'the count matches the text');
  assert.ok(d.included > 5 && d.included < 200, `${d.included} included`);
  assert.equal(d.available, 200);
  assert.match(d.text, /^# Agent Recall memory\n/);
  assert.ok(d.text.indexOf('step 0 ') < d.text.indexOf('step 1 '));
  const bigger = buildDigest(entries, 5000, countTokens, 'm');
  assert.ok(bigger.included > d.included);
  assert.equal(buildDigest(entries, 10, countTokens, 'm').included, 0, 'a budget below the header holds no line');
});
