import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DistillInput } from '../../src/core/distill/distiller';
import { formatPlan, planDistillation, scalePlan } from '../../src/core/distill/plan';
import { countTokens } from '../../src/core/tokens';
import { PLANTED } from './secrets';

const base: Omit<DistillInput, 'n' | 'verbatim'> = {
  exchangeId: 'e', agent: 'aider', project: '/p', plyStart: 0, plyEnd: 1, prompt: 'p', filesTouched: [],
};
const inputs: DistillInput[] = [
  { ...base, n: 1, verbatim: 'User: add retries\nAssistant: added retry_timeout to client.ts' },
  { ...base, n: 2, verbatim: `User: deploy\n${PLANTED.map((p) => p.line).join('\n')}\nAssistant: deployed` },
  { ...base, n: 3, verbatim: `User: long\n${'word '.repeat(3_000)}` },
];
const prices = { pricePerMTokIn: 1, pricePerMTokOut: 5 };

test('the dry run counts requests, tokens and cost, and shows prompts exactly as redacted', () => {
  const plan = planDistillation(inputs, { ...prices, samples: 2 });
  assert.equal(plan.exchanges, 3);
  assert.equal(plan.requests, 3);
  assert.equal(plan.outputTokens, 3 * 150);
  const sampleTokens = plan.samples.reduce((a, s) => a + countTokens(s.text), 0);
  assert.ok(plan.inputTokens > sampleTokens, 'all three prompts counted, not only the samples');
  assert.ok(plan.inputTokens < 3 * 2_500, `${plan.inputTokens} tokens: the long one was cut`);
  assert.equal(plan.costUsd, (plan.inputTokens * 1 + plan.outputTokens * 5) / 1e6);
  assert.equal(plan.samples.length, 2);
  assert.equal(plan.exchangesWithSecrets, 1);
  assert.equal(Object.values(plan.redacted).reduce((a, n) => a + (n ?? 0), 0), PLANTED.length);
  for (const p of PLANTED) assert.ok(!plan.samples[1]!.text.includes(p.secret), `${p.kind} in the sample`);
  assert.equal(plan.cutExchanges, 1);
  const text = formatPlan(plan, 'api.anthropic.com');
  assert.match(text, /^3 exchanges -> 3 requests to api\.anthropic\.com/);
  assert.match(text, /estimated cost: \$0\.00/);
  assert.match(text, /secrets redacted before sending in 1 exchanges: private-key 1, anthropic-key 1/);
});

test('prices scale the cost linearly; an empty backlog costs nothing', () => {
  const a = planDistillation(inputs, prices);
  const b = planDistillation(inputs, { pricePerMTokIn: 2, pricePerMTokOut: 10 });
  assert.ok(Math.abs(b.costUsd - 2 * a.costUsd) < 1e-12);
  const none = planDistillation([], prices);
  assert.deepEqual([none.requests, none.inputTokens, none.costUsd, none.samples.length], [0, 0, 0, 0]);
});

test('batching lowers the input tokens per exchange: the instructions are paid once per request', () => {
  const many = Array.from({ length: 10 }, (_, i) => ({ ...inputs[0]!, n: i + 1 }));
  const single = planDistillation(many, prices);
  const batched = planDistillation(many, { ...prices, batchSize: 5 });
  assert.equal(single.requests, 10);
  assert.equal(batched.requests, 2);
  assert.ok(batched.inputTokens < single.inputTokens * 0.6, `${batched.inputTokens} vs ${single.inputTokens}`);
  assert.deepEqual(batched.samples.map((s) => s.ns), [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]);
  assert.match(batched.samples[0]!.text, /=== Exchange 5 \(agent aider/);
});

test('scalePlan extrapolates a sample to the whole backlog and says so', () => {
  const sample = planDistillation(inputs, prices);
  const all = scalePlan(sample, 300);
  assert.equal(all.exchanges, 300);
  assert.equal(all.requests, 300);
  assert.equal(all.inputTokens, Math.round(sample.inputTokens * 100));
  assert.ok(Math.abs(all.costUsd - sample.costUsd * 100) < 1e-12);
  assert.equal(all.sampledFrom, 3);
  assert.match(formatPlan(all, 'x'), /estimated from the first 3/);
  assert.equal(scalePlan(sample, 2), sample, 'never scaled down');
});
