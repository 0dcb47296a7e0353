import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { AnthropicDistiller, anthropicEnv, DEFAULT_ANTHROPIC_MODEL, type AnthropicDistillerOptions } from '../../src/core/distill/anthropic';
import type { DistillInput, DistillOutcome } from '../../src/core/distill/distiller';
import { NEVER_CANCELLED } from '../../src/core/cancellation';
import { errorReply, messageReply, startFakeAnthropic, type FakeAnthropic, type Script } from './anthropicServer';
import { PLANTED, PLANTED_IN_CONTEXT } from './secrets';

const KEY = 'sk-ant-test-key-for-the-local-server-0001';

const GOOD = JSON.stringify({
  exchange_core: 'Fixed the connection pool timeout in db.ts by raising poolTimeoutMs.',
  specific_context: 'poolTimeoutMs: 30000',
  room_assignments: [
    { room_type: 'file', room_key: 'src/db.ts', room_label: 'db.ts', relevance: 0.9 },
    { room_type: 'concept', room_key: 'connection_pool_timeout', room_label: 'Connection pool timeout', relevance: 0.8 },
  ],
});

function input(n: number, verbatim = `User: the pool times out\nAssistant: raised poolTimeoutMs: 30000 in src/db.ts (exchange ${n})`): DistillInput {
  return {
    n,
    exchangeId: `ex${n}`,
    agent: 'claude-code',
    project: '/home/dev/shop',
    plyStart: 3,
    plyEnd: 7,
    prompt: 'the pool times out',
    verbatim,
    filesTouched: [{ path: 'src/db.ts', how: 'edit' }],
  };
}

const servers: FakeAnthropic[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function setup(script: Script, options: Partial<AnthropicDistillerOptions> = {}): Promise<{ server: FakeAnthropic; distiller: AnthropicDistiller }> {
  const server = await startFakeAnthropic(script);
  servers.push(server);
  const distiller = new AnthropicDistiller({ apiKey: KEY, baseURL: server.baseURL, ...options });
  return { server, distiller };
}

function failed(o: DistillOutcome | undefined): { error: string; retryAfterMs?: number } {
  assert.ok(o && !o.ok, `expected a failure outcome, got ${JSON.stringify(o)}`);
  return o;
}

test('anthropicEnv (the CLI): key and base URL from the environment; a missing key names the fix', () => {
  assert.deepEqual(anthropicEnv({ ANTHROPIC_API_KEY: ' k1 ' }), { apiKey: 'k1' });
  assert.deepEqual(anthropicEnv({ ANTHROPIC_API_KEY: 'k1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }), { apiKey: 'k1', baseURL: 'http://127.0.0.1:9' });
  assert.throws(() => anthropicEnv({}), /needs ANTHROPIC_API_KEY/);
  assert.throws(() => new AnthropicDistiller({ apiKey: '' }), /needs an API key/);
});

describe('Anthropic distiller over the real SDK and a local /v1/messages server', () => {
  test('success: one request with the key, the model and a prompt naming project and ply range', async () => {
    const { server, distiller } = await setup(() => messageReply(GOOD));
    const [out] = await distiller.distill([input(1)], NEVER_CANCELLED);
    assert.ok(out?.ok, JSON.stringify(out));
    assert.equal(out.n, 1);
    assert.equal(out.value.exchangeCore, 'Fixed the connection pool timeout in db.ts by raising poolTimeoutMs.');
    assert.equal(out.value.specificContext, 'poolTimeoutMs: 30000');
    assert.deepEqual(out.value.rooms.map((r) => [r.type, r.key, r.relevance]), [
      ['file', 'src/db.ts', 0.9],
      ['concept', 'connection_pool_timeout', 0.8],
    ]);
    assert.equal(server.received.length, 1);
    const req = server.received[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v1/messages');
    const auth = req.headers['authorization'] ?? `Bearer ${String(req.headers['x-api-key'])}`;
    assert.equal(auth, `Bearer ${KEY}`);
    assert.equal(req.body.model, DEFAULT_ANTHROPIC_MODEL);
    const prompt = req.body.messages[0]!.content;
    assert.match(prompt, /Project: \/home\/dev\/shop/);
    assert.match(prompt, /Exchange \(messages 3-7\):/);
    assert.match(prompt, /Files touched \(from the agent's tool calls\): src\/db\.ts \(edit\)/);
    assert.ok(prompt.includes('raised poolTimeoutMs: 30000 in src/db.ts (exchange 1)'));
    assert.doesNotMatch(prompt, /\{\{\w+\}\}/, 'every placeholder filled');
    assert.deepEqual(distiller.usage, { requests: 1, repairs: 0, batchFallbacks: 0, inputTokens: 900, outputTokens: 80 });
  });

  test('a long exchange is cut to about 4,000 characters, keeping head and tail', async () => {
    const { server, distiller } = await setup(() => messageReply(GOOD));
    const long = `User: START-MARKER ${'lorem ipsum '.repeat(2_000)} Assistant: END-MARKER`;
    await distiller.distill([input(1, long)], NEVER_CANCELLED);
    const prompt = server.received[0]!.body.messages[0]!.content;
    assert.ok(prompt.includes('START-MARKER') && prompt.includes('END-MARKER'));
    assert.match(prompt, /… \[\d+ chars cut\] …/);
    assert.ok(prompt.length < 4_000 + 3_000, `prompt is ${prompt.length} chars`);
  });

  test('malformed JSON -> one repair request showing the bad answer -> success', async () => {
    const { server, distiller } = await setup((_r, i) => messageReply(i === 0 ? 'Sure! {"exchange_core": "Fixed the pool' : GOOD));
    const [out] = await distiller.distill([input(1)], NEVER_CANCELLED);
    assert.ok(out?.ok, JSON.stringify(out));
    assert.equal(server.received.length, 2);
    const repair = server.received[1]!.body.messages;
    assert.deepEqual(repair.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.equal(repair[1]!.content, 'Sure! {"exchange_core": "Fixed the pool');
    assert.match(repair[2]!.content, /could not be used: the answer (holds no JSON object|is not valid JSON)/);
    assert.equal(distiller.usage.repairs, 1);
  });

  test('an answer failing the schema (4 rooms, bad relevance) is repaired too; a code fence is tolerated', async () => {
    const bad = JSON.stringify({ exchange_core: 'x', specific_context: 'y', room_assignments: [{ room_type: 'topic', room_key: 'a', room_label: 'A', relevance: 2 }] });
    const { server, distiller } = await setup((_r, i) => messageReply(i === 0 ? bad : '```json\n' + GOOD + '\n```'));
    const [out] = await distiller.distill([input(1)], NEVER_CANCELLED);
    assert.ok(out?.ok, JSON.stringify(out));
    assert.match(server.received[1]!.body.messages[2]!.content, /"room_type" must be one of file, concept, workflow/);
  });

  test('malformed twice -> a recorded failure outcome, exactly two requests', async () => {
    const { server, distiller } = await setup(() => messageReply('I cannot produce JSON today.'));
    const outs = await distiller.distill([input(1)], NEVER_CANCELLED);
    const f = failed(outs[0]);
    assert.match(f.error, /invalid answer after one repair: the answer holds no JSON object/);
    assert.equal(server.received.length, 2);
  });

  test('429 with retry-after (seconds) is waited out, then succeeds', async () => {
    const { server, distiller } = await setup((_r, i) => (i === 0 ? errorReply(429, 'rate_limit_error', { 'retry-after': '1' }) : messageReply(GOOD)));
    const t0 = Date.now();
    const [out] = await distiller.distill([input(1)], NEVER_CANCELLED);
    assert.ok(out?.ok, JSON.stringify(out));
    assert.equal(server.received.length, 2);
    const gap = server.received[1]!.at - server.received[0]!.at;
    assert.ok(gap >= 950, `second request ${gap} ms after the 429`);
    assert.ok(Date.now() - t0 < 5_000);
  });

  test('a 429 pauses every worker, not only the one that was told (retry-after-ms)', async () => {
    const { server, distiller } = await setup(
      (r, i) => (i === 0 ? errorReply(429, 'rate_limit_error', { 'retry-after-ms': '600' }) : { ...messageReply(GOOD), delayMs: r.body ? 100 : 0 }),
      { concurrency: 2 },
    );
    const outs = await distiller.distill([input(1), input(2), input(3)], NEVER_CANCELLED);
    assert.ok(outs.every((o) => o.ok), JSON.stringify(outs));
    const t0 = server.received[0]!.at;
    // request 1 (429) and 2 start together; 2 finishes at ~100 ms, yet 3 and the retry of 1 wait for the pause
    const later = server.received.slice(2).map((r) => r.at - t0);
    assert.equal(later.length, 2);
    for (const t of later) assert.ok(t >= 550, `a request started ${t} ms after the 429 (pause 600 ms)`);
  });

  test('a retry-after longer than maxWaitMs ends at once with retryAfterMs for the stage', async () => {
    const { server, distiller } = await setup(() => errorReply(429, 'rate_limit_error', { 'retry-after': '120' }), { maxWaitMs: 5_000 });
    const t0 = Date.now();
    const f = failed((await distiller.distill([input(1)], NEVER_CANCELLED))[0]);
    assert.equal(f.retryAfterMs, 120_000);
    assert.match(f.error, /HTTP 429/);
    assert.equal(server.received.length, 1);
    assert.ok(Date.now() - t0 < 2_000);
  });

  test('529 overloaded is retried with backoff and succeeds; persistent 529 -> failure after maxRetries', async () => {
    const once = await setup((_r, i) => (i === 0 ? errorReply(529, 'overloaded_error') : messageReply(GOOD)));
    const [ok] = await once.distiller.distill([input(1)], NEVER_CANCELLED);
    assert.ok(ok?.ok, JSON.stringify(ok));
    assert.equal(once.server.received.length, 2);

    const always = await setup(() => errorReply(529, 'overloaded_error', { 'retry-after-ms': '50' }), { maxRetries: 2 });
    const f = failed((await always.distiller.distill([input(1)], NEVER_CANCELLED))[0]);
    assert.match(f.error, /HTTP 529/);
    assert.equal(f.retryAfterMs, 50);
    assert.equal(always.server.received.length, 3, 'first try + 2 retries');
  });

  test('timeout: a server that never answers gives a timeout outcome, within the limit', async () => {
    const { server, distiller } = await setup(() => ({ hang: true }), { timeoutMs: 300, maxRetries: 0 });
    const t0 = Date.now();
    const f = failed((await distiller.distill([input(1)], NEVER_CANCELLED))[0]);
    assert.match(f.error, /timed? ?out/i);
    assert.ok(f.retryAfterMs !== undefined, 'a timeout is retryable later');
    assert.ok(Date.now() - t0 < 2_000, `took ${Date.now() - t0} ms`);
    assert.equal(server.received.length, 1);
  });

  test('cancellation mid-flight aborts the requests in flight, sends nothing more, and leaves them pending', async () => {
    // exchange 1 is answered at once; 2 and 3 hang until cancelled; 4 is never sent
    const { server, distiller } = await setup((r) => (r.raw.includes('(exchange 1)') ? messageReply(GOOD) : { hang: true }), { concurrency: 2 });
    const token = { isCancellationRequested: false };
    setTimeout(() => (token.isCancellationRequested = true), 200);
    const t0 = Date.now();
    const outs = await distiller.distill([input(1), input(2), input(3), input(4)], token);
    assert.ok(Date.now() - t0 < 1_500, `returned ${Date.now() - t0} ms after start`);
    assert.deepEqual(outs.map((o) => [o.n, o.ok]), [[1, true]], 'cancelled exchanges get no outcome: the stage keeps them pending');
    assert.equal(server.received.length, 3, 'exchange 1, then 2 and 3 in flight; 4 never sent');
    await new Promise((r) => setTimeout(r, 50));
    const aborted = server.received.filter((r) => r.aborted);
    assert.equal(aborted.length, 2, 'the server saw both hanging connections closed');
    assert.ok(aborted.every((r) => !r.raw.includes('(exchange 1)')));
  });

  test('concurrency cap: never more requests in flight than configured', async () => {
    const { server, distiller } = await setup(() => ({ ...messageReply(GOOD), delayMs: 80 }), { concurrency: 3 });
    const outs = await distiller.distill(Array.from({ length: 12 }, (_, i) => input(i + 1)), NEVER_CANCELLED);
    assert.equal(outs.filter((o) => o.ok).length, 12);
    assert.deepEqual(outs.map((o) => o.n), Array.from({ length: 12 }, (_, i) => i + 1), 'outcomes in input order');
    assert.equal(server.received.length, 12);
    assert.equal(server.maxInFlight(), 3);
  });

  test('401: a bad key stops the batch after the first answer, with a hint', async () => {
    const { server, distiller } = await setup(() => errorReply(401, 'authentication_error'), { concurrency: 1 });
    const outs = await distiller.distill([input(1), input(2), input(3)], NEVER_CANCELLED);
    for (const o of outs) assert.match(failed(o).error, /HTTP 401 \(check the Anthropic API key\)/);
    assert.equal(server.received.length, 1);
  });

  test('batching: several exchanges in one request, each answer by id; its own prompt version', async () => {
    const item = (id: number) => ({ id, ...(JSON.parse(GOOD) as object), exchange_core: `Core of ${id}.` });
    const { server, distiller } = await setup(
      (r) => messageReply(r.body.messages[0]!.content.includes('=== Exchange') ? JSON.stringify([item(2), item(1), item(3)]) : GOOD),
      { batchSize: 3 },
    );
    assert.equal(distiller.promptVersion, 'distill-v1+distill-batch-v1');
    const outs = await distiller.distill([input(11), input(12), input(13), input(14)], NEVER_CANCELLED);
    assert.equal(server.received.length, 2, 'a batch of 3 and a batch of 1');
    const batchPrompt = server.received[0]!.body.messages[0]!.content;
    assert.match(batchPrompt, /each of the 3 conversation exchanges/);
    for (const n of [11, 12, 13]) assert.ok(batchPrompt.includes(`(exchange ${n})`));
    assert.match(batchPrompt, /=== Exchange 3 \(agent claude-code, project \/home\/dev\/shop, messages 3-7\)/);
    assert.ok(!batchPrompt.includes('(exchange 14)'));
    assert.ok(server.received[0]!.body.max_tokens > 512, 'room for three answers');
    assert.deepEqual(outs.map((o) => (o.ok ? o.value.exchangeCore : o.error)), ['Core of 1.', 'Core of 2.', 'Core of 3.', 'Fixed the connection pool timeout in db.ts by raising poolTimeoutMs.']);
    assert.equal(distiller.usage.batchFallbacks, 0);
  });

  test('batching: an exchange missing or invalid in the batch answer is distilled alone', async () => {
    const good = JSON.parse(GOOD) as object;
    const { server, distiller } = await setup(
      (r) => (r.body.messages[0]!.content.includes('=== Exchange') ? messageReply(JSON.stringify([{ id: 1, ...good }, { id: 3, ...good, relevance: 'x', room_assignments: [] }])) : messageReply(GOOD)),
      { batchSize: 3 },
    );
    const outs = await distiller.distill([input(1), input(2), input(3)], NEVER_CANCELLED);
    assert.ok(outs.every((o) => o.ok), JSON.stringify(outs));
    assert.equal(server.received.length, 3, 'one batch, then exchanges 2 and 3 alone');
    assert.ok(server.received[1]!.body.messages[0]!.content.includes('(exchange 2)'));
    assert.ok(server.received[2]!.body.messages[0]!.content.includes('(exchange 3)'));
    assert.equal(distiller.usage.batchFallbacks, 2);
  });

  test('batching: a failed batch request fails every exchange in it, with the wait for the stage', async () => {
    const { distiller } = await setup(() => errorReply(429, 'rate_limit_error', { 'retry-after': '300' }), { batchSize: 2 });
    const outs = await distiller.distill([input(1), input(2)], NEVER_CANCELLED);
    for (const o of outs) assert.equal(failed(o).retryAfterMs, 300_000);
  });

  test('no planted secret ever leaves the machine, on first requests and repairs alike', async () => {
    const all = [...PLANTED, ...PLANTED_IN_CONTEXT];
    // every other exchange gets a malformed first answer, so repair requests (which echo text back) are covered
    const { server, distiller } = await setup((r) => messageReply(r.body.messages.length === 1 && r.raw.includes('odd-exchange') ? '{"exchange_core":' : GOOD));
    const inputs = all.map((p, i) => ({
      ...input(i + 1, `User: please fix this ${i % 2 ? 'odd-exchange' : ''}\n${p.line}\nAssistant: done, see ${p.line}`),
      project: i === 0 ? `/home/dev/${PLANTED[0]!.secret}` : '/home/dev/shop',
      filesTouched: [{ path: `config/${p.kind}.env`, how: 'edit' as const }],
    }));
    const outs = await distiller.distill(inputs, NEVER_CANCELLED);
    assert.equal(outs.filter((o) => o.ok).length, all.length);
    assert.ok(server.received.length > all.length, 'repairs were sent too');
    for (const req of server.received) {
      for (const p of all) assert.ok(!req.raw.includes(p.secret), `${p.kind} secret left in a request body`);
      assert.ok(req.raw.includes('[REDACTED:'), 'redaction markers are sent instead');
    }

    // the same exchanges in batches of 4 (batch answers unusable, so every exchange also goes alone)
    const batched = await setup(() => messageReply('[]'), { batchSize: 4 });
    await batched.distiller.distill(inputs, NEVER_CANCELLED);
    assert.ok(batched.server.received.some((r) => r.raw.includes('=== Exchange 4')));
    for (const req of batched.server.received) for (const p of all) assert.ok(!req.raw.includes(p.secret), `${p.kind} secret left in a batch`);
  });
});
