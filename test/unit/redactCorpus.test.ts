import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { NEVER_CANCELLED } from '../../src/core/cancellation';
import { AnthropicDistiller } from '../../src/core/distill/anthropic';
import type { DistillInput } from '../../src/core/distill/distiller';
import { planDistillation } from '../../src/core/distill/plan';
import { redact, redactSecrets } from '../../src/core/distill/redact';
import { messageReply, startFakeAnthropic, type FakeAnthropic } from './anthropicServer';
import { embeddings, leak, SECRET_FORMATS, type SecretFormat } from './secretCorpus';
import { NEAR_MISSES } from './secrets';

/**
 * Issue 18: of 35 secret formats, 12 reached the LLM endpoint verbatim. Every format of the corpus, in every
 * context, must leave nothing of the secret: not the whole, and no 12-character piece of it either.
 */

const cases = SECRET_FORMATS.flatMap((f) => embeddings(f).map((e) => ({ f, ...e })));

test(`the corpus holds at least 40 formats, each in code, JSON, a URL, a shell line and a config line (${SECRET_FORMATS.length} formats, ${cases.length} texts)`, () => {
  assert.ok(SECRET_FORMATS.length >= 40);
  assert.equal(new Set(SECRET_FORMATS.map((f) => f.format)).size, SECRET_FORMATS.length);
  for (const f of SECRET_FORMATS) {
    const contexts = embeddings(f).map((e) => e.context);
    for (const c of ['code', 'json', 'shell', 'config']) assert.ok(contexts.includes(c), `${f.format} lacks ${c}`);
  }
});

test('every format in every context is redacted, nothing of it left', () => {
  const leaks: string[] = [];
  for (const c of cases) {
    const r = redactSecrets(c.text);
    const left = leak(r.text, c.f.secret);
    if (left !== undefined) leaks.push(`${c.f.format} in ${c.context}: ${JSON.stringify(r.text)}`);
    else assert.ok(r.count > 0);
  }
  assert.deepEqual(leaks, []);
});

test('the words around a redacted secret stay, so the distiller still sees what was configured', () => {
  const f = SECRET_FORMATS.find((x) => x.format === 'Twilio auth token')!;
  assert.equal(redact(`twilio_auth_token = ${f.secret}`), 'twilio_auth_token = [REDACTED:generic-secret]');
  const npmrc = embeddings(SECRET_FORMATS.find((x) => x.name === '_authToken')!).find((e) => e.context === 'npmrc')!;
  assert.equal(redact(npmrc.text), '//registry.npmjs.org/:_authToken=[REDACTED:npm-token]');
  const aws = SECRET_FORMATS.find((x) => x.format === 'AWS secret access key')!;
  assert.equal(redact(`[default]\naws_secret_access_key = ${aws.secret}`), '[default]\naws_secret_access_key = [REDACTED:aws-secret-key]');
});

test('the generic shapes leave code and prose alone', () => {
  const more = [
    'const monkey = "bananasAreYellow";',
    'MAX_TOKENS=4096 and maxTokens: 8192',
    'password = getPassword(user)',
    'password: user_input',
    'api_key: Option<String>',
    'cert_key = /etc/ssl/private/server2024.key',
    'auth_url = https://auth.example.com/v2/authorize',
    'sort_key = created_at_desc',
    'the key is in the vault, token rotation runs nightly',
    'primary_key = id',
    'cache_key = f"user:{user_id}:profile"',
    '--token-file ~/.config/tokens/deploy2024.txt',
  ];
  for (const text of [...NEAR_MISSES, ...more]) assert.equal(redact(text), text, text);
});

const base: Omit<DistillInput, 'n' | 'verbatim'> = {
  exchangeId: 'e', agent: 'claude-code', project: '/home/dev/shop', plyStart: 0, plyEnd: 1, prompt: 'configure it', filesTouched: [],
};

/** One exchange per format, its texts in the user's prompt and in the assistant's reply. */
function exchangeOf(f: SecretFormat, n: number): DistillInput {
  const texts = embeddings(f).map((e) => e.text);
  return { ...base, n, exchangeId: `e${n}`, verbatim: `User: set this up\n${texts.join('\n')}\nAssistant: done:\n${texts.join('\n')}` };
}

test('the dry run shows no secret of the corpus', () => {
  const inputs = SECRET_FORMATS.map((f, i) => exchangeOf(f, i + 1));
  const plan = planDistillation(inputs, { pricePerMTokIn: 1, pricePerMTokOut: 5, samples: inputs.length });
  assert.equal(plan.samples.length, inputs.length);
  assert.equal(plan.exchangesWithSecrets, inputs.length);
  for (const [i, f] of SECRET_FORMATS.entries()) {
    const left = leak(plan.samples.map((s) => s.text).join('\n'), f.secret);
    assert.equal(left, undefined, `${f.format} in the dry run (exchange ${i + 1})`);
  }
});

const servers: FakeAnthropic[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

test('real requests through the Anthropic SDK to a local recorder carry no secret of the corpus', async () => {
  const server = await startFakeAnthropic(() =>
    messageReply(JSON.stringify({ exchange_core: 'Configured the deploy keys.', specific_context: 'deploy.sh', room_assignments: [] })),
  );
  servers.push(server);
  const distiller = new AnthropicDistiller({ apiKey: 'sk-ant-test-key-for-the-local-server-0001', baseURL: server.baseURL, concurrency: 4 });
  const inputs = SECRET_FORMATS.map((f, i) => exchangeOf(f, i + 1));
  await distiller.distill(inputs, NEVER_CANCELLED);
  assert.ok(server.received.length >= inputs.length);
  const leaks: string[] = [];
  for (const req of server.received) {
    // the body as sent (JSON): secrets with characters JSON escapes are looked for in both forms
    const sent = `${req.raw}\n${JSON.stringify(req.body)}`;
    for (const f of SECRET_FORMATS) {
      const left = leak(sent, f.secret) ?? leak(sent, JSON.stringify(f.secret).slice(1, -1));
      if (left !== undefined) leaks.push(`${f.format}: ${left}`);
    }
  }
  assert.deepEqual([...new Set(leaks)], []);
});
