import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DistillInput } from '../../src/core/distill/distiller';
import { buildPrompt, cutMessages, loadPromptTemplate, MAX_MESSAGE_CHARS, PROMPT_VERSION } from '../../src/core/distill/prompt';
import { backoffMs, retryAfterMs } from '../../src/core/distill/retryPolicy';
import { LIMITS, parseDistillOutput } from '../../src/core/distill/validate';

const input: DistillInput = {
  n: 7,
  exchangeId: 'e7',
  agent: 'codex',
  project: '/home/dev/shop',
  plyStart: 12,
  plyEnd: 15,
  prompt: 'why does {{project}} fail',
  verbatim: 'User: why does {{project}} fail with DB_PASSWORD=hunter2hunter2\nAssistant: fixed it',
  filesTouched: Array.from({ length: 25 }, (_, i) => ({ path: `src/f${i}.ts`, how: 'read' as const })),
};

test('the shipped prompt file loads, names the paper fields and has every placeholder', () => {
  const t = loadPromptTemplate(PROMPT_VERSION);
  assert.doesNotMatch(t, /^<!--/, 'leading comment stripped');
  for (const field of ['"exchange_core"', '"specific_context"', '"room_assignments"', 'files_touched']) assert.ok(t.includes(field), field);
  for (const p of ['agent', 'project', 'files', 'plyStart', 'plyEnd', 'messages']) assert.ok(t.includes(`{{${p}}}`), p);
  assert.throws(() => loadPromptTemplate('no-such-prompt'), /prompts\/no-such-prompt\.md was not found/);
});

test('buildPrompt fills the template once, redacts, and lists at most 20 files', () => {
  const p = buildPrompt(input);
  assert.equal(p.n, 7);
  assert.match(p.text, /Agent: codex\nProject: \/home\/dev\/shop\n/);
  assert.match(p.text, /Exchange \(messages 12-15\):\nUser: why does \{\{project\}\} fail/, 'text from the exchange is never expanded');
  assert.ok(!p.text.includes('hunter2hunter2'));
  assert.deepEqual(p.redacted, { 'env-secret': 1 });
  assert.match(p.text, /src\/f19\.ts \(read\), and 5 more/);
  assert.ok(!p.text.includes('src/f20.ts'));
  assert.equal(p.cutChars, 0);
});

test('cutMessages keeps head and tail within the budget and says how much was cut', () => {
  const text = 'a'.repeat(3_000) + 'MIDDLE' + 'z'.repeat(3_000);
  const r = cutMessages(text);
  assert.equal(r.cutChars, text.length - MAX_MESSAGE_CHARS);
  assert.ok(r.text.startsWith('aaa') && r.text.endsWith('zzz'));
  assert.ok(!r.text.includes('MIDDLE'));
  assert.ok(r.text.length <= MAX_MESSAGE_CHARS + 40);
  assert.deepEqual(cutMessages('short'), { text: 'short', cutChars: 0 });
});

test('parseDistillOutput accepts the paper shape and rejects each kind of bad answer with a reason', () => {
  const ok = { exchange_core: ' Core. ', specific_context: '', room_assignments: [{ room_type: 'workflow', room_key: 'tests', room_label: 'Tests', relevance: 0 }], files_touched: ['x'] };
  const good = parseDistillOutput(`Here you go:\n${JSON.stringify(ok)}\nThanks`);
  assert.deepEqual(good, { ok: true, value: { exchangeCore: 'Core.', specificContext: '', rooms: [{ type: 'workflow', key: 'tests', label: 'Tests', relevance: 0 }] } });
  const bad = (v: unknown): string => {
    const r = parseDistillOutput(typeof v === 'string' ? v : JSON.stringify(v));
    assert.ok(!r.ok, JSON.stringify(v));
    return r.error;
  };
  assert.match(bad('no json here'), /no JSON object/);
  assert.match(bad('{"exchange_core": }'), /not valid JSON/);
  assert.match(bad({ ...ok, exchange_core: '' }), /"exchange_core" must not be empty/);
  assert.match(bad({ ...ok, exchange_core: 'x'.repeat(LIMITS.coreChars + 1) }), /at most 600/);
  assert.match(bad({ ...ok, specific_context: 42 }), /"specific_context" must be a string/);
  assert.match(bad({ ...ok, room_assignments: [] }), /1 to 3 rooms/);
  assert.match(bad({ ...ok, room_assignments: Array(4).fill(ok.room_assignments[0]) }), /1 to 3 rooms/);
  assert.match(bad({ ...ok, room_assignments: [{ ...ok.room_assignments[0], relevance: 1.5 }] }), /relevance/);
  assert.match(bad({ ...ok, room_assignments: [{ ...ok.room_assignments[0], room_key: ' ' }] }), /room_key" must not be empty/);
});

test('retry-after: milliseconds header first, then seconds, then an HTTP date; backoff is capped', () => {
  const h = (o: Record<string, string>) => ({ get: (k: string) => o[k] ?? null });
  assert.equal(retryAfterMs(h({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
  assert.equal(retryAfterMs(h({ 'retry-after': '2' })), 2_000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now), 30_000);
  assert.equal(retryAfterMs(h({ 'retry-after': 'soon' })), undefined);
  assert.equal(retryAfterMs(undefined), undefined);
  assert.equal(backoffMs(0, () => 0), 500);
  assert.equal(backoffMs(10, () => 0), 8_000);
  assert.equal(backoffMs(1, () => 1), 750);
});
