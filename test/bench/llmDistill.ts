// Measures the LLM distillation path on a real store, without any real service:
//   node out/test/bench/llmDistill.js --db FILE [--concurrency 4] [--secrets]
// 1. the dry run (planDistillation): exchanges, cl100k input tokens, cost at Haiku 4.5 prices, redactions;
// 2. the AnthropicDistiller end to end (real SDK, real HTTP) against the local test server answering at
//    once: exchanges/s of our side (redaction, prompt, SDK, validation);
// 3. with --secrets: every redaction in context, for a false-positive review.
import { performance } from 'node:perf_hooks';
import { NEVER_CANCELLED } from '../../src/core/cancellation';
import { AnthropicDistiller } from '../../src/core/distill/anthropic';
import { formatPlan, planDistillation } from '../../src/core/distill/plan';
import { redactSecrets } from '../../src/core/distill/redact';
import { Db } from '../../src/core/store/db';
import { pendingDistillation } from '../../src/core/store/distilledStore';
import { messageReply, startFakeAnthropic } from '../unit/anthropicServer';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const file = arg('db');
  if (!file) throw new Error('usage: llmDistill.js --db FILE [--concurrency N] [--secrets]');
  const db = await Db.open(file, { readonly: true });
  const inputs = await pendingDistillation(db, 1_000_000);
  console.log(`${inputs.length} exchanges without a distilled object in ${file}`);

  let t = performance.now();
  const plan = planDistillation(inputs, { pricePerMTokIn: 1, pricePerMTokOut: 5 });
  const planMs = performance.now() - t;
  console.log(formatPlan(plan, 'api.anthropic.com'));
  console.log(`mean input tokens per exchange: ${(plan.inputTokens / Math.max(1, plan.exchanges)).toFixed(0)}; dry run took ${(planMs / 1000).toFixed(2)} s`);
  for (const batchSize of [5, 10]) {
    const b = planDistillation(inputs, { pricePerMTokIn: 1, pricePerMTokOut: 5, batchSize });
    const per = b.inputTokens / Math.max(1, b.exchanges);
    console.log(
      `batch ${batchSize}: ${b.requests} requests, ${per.toFixed(0)} input tokens per exchange ` +
        `(${((1 - b.inputTokens / plan.inputTokens) * 100).toFixed(1)}% fewer), cost $${b.costUsd.toFixed(2)} vs $${plan.costUsd.toFixed(2)}`,
    );
  }

  if (process.argv.includes('--secrets')) {
    for (const input of inputs) {
      const r = redactSecrets(input.verbatim);
      if (r.count === 0) continue;
      for (const m of r.text.matchAll(/.{0,50}\[REDACTED:[a-z-]+\].{0,30}/g)) console.log(`  #${input.n}: ${m[0].replace(/\s+/g, ' ')}`);
    }
  }

  const answer = JSON.stringify({
    exchange_core: 'Bench answer.',
    specific_context: 'x',
    room_assignments: [{ room_type: 'concept', room_key: 'bench', room_label: 'Bench', relevance: 1 }],
  });
  const server = await startFakeAnthropic(() => messageReply(answer));
  const concurrency = Number(arg('concurrency') ?? 4);
  const distiller = new AnthropicDistiller({ apiKey: 'sk-ant-bench', baseURL: server.baseURL, concurrency, maxRetries: 0 });
  t = performance.now();
  const outs = await distiller.distill(inputs, NEVER_CANCELLED);
  const s = (performance.now() - t) / 1000;
  await server.close();
  const ok = outs.filter((o) => o.ok).length;
  console.log(`anthropic distiller vs local server (concurrency ${concurrency}): ${ok}/${outs.length} ok in ${s.toFixed(2)} s = ${(outs.length / s).toFixed(0)} exchanges/s; max in flight ${server.maxInFlight()}`);
  console.log(`bytes sent: ${server.received.reduce((a, r) => a + r.raw.length, 0).toLocaleString('en-US')}`);
  await db.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
