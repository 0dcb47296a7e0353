import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact, redactSecrets } from '../../src/core/distill/redact';
import { NEAR_MISSES, PLANTED, PLANTED_IN_CONTEXT } from './secrets';

test('redacts every planted provider key and reports its kind', () => {
  for (const p of PLANTED) {
    const r = redactSecrets(p.line);
    assert.ok(!r.text.includes(p.secret), `${p.kind} survived: ${r.text}`);
    assert.equal(r.found[p.kind as keyof typeof r.found], 1, `${p.kind} counted in ${JSON.stringify(r.found)}`);
    assert.match(r.text, new RegExp(`^config value \\[REDACTED:${p.kind}\\] was pasted here$`));
  }
});

test('redacts secrets in their usual surroundings and keeps the surroundings', () => {
  for (const p of PLANTED_IN_CONTEXT) {
    const r = redactSecrets(p.line);
    assert.ok(!r.text.includes(p.secret), `${p.kind} survived: ${r.text}`);
    assert.ok(r.text.includes(`[REDACTED:${p.kind}]`), `${p.kind} marker in ${r.text}`);
  }
  assert.equal(redact('postgres://app:S3cr3tPa55@db.internal:5432/shop'), 'postgres://app:[REDACTED:url-password]@db.internal:5432/shop');
  assert.equal(redact('DB_PASSWORD=hunter2hunter2'), 'DB_PASSWORD=[REDACTED:env-secret]');
  assert.equal(redact('curl -H "Authorization: Bearer f00dFACE1234abcd5678EF90"'), 'curl -H "Authorization: Bearer [REDACTED:bearer-token]"');
});

test('a provider key in an env line is reported once, as the provider key', () => {
  const key = PLANTED.find((p) => p.kind === 'openai-key')!.secret;
  const r = redactSecrets(`OPENAI_API_KEY=${key}`);
  assert.equal(r.text, 'OPENAI_API_KEY=[REDACTED:openai-key]');
  assert.deepEqual(r.found, { 'openai-key': 1 });
});

test('an unterminated private key block (message cut) is redacted to the end', () => {
  const r = redact('key follows\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\nAAAA… [1200 more chars]');
  assert.equal(r, 'key follows\n[REDACTED:private-key]');
});

test('many secrets in one long text: all go, the prose stays', () => {
  const text = [...PLANTED, ...PLANTED_IN_CONTEXT].map((p, i) => `step ${i}: ${p.line}`).join('\n');
  const r = redactSecrets(text);
  for (const p of [...PLANTED, ...PLANTED_IN_CONTEXT]) assert.ok(!r.text.includes(p.secret), `${p.kind} survived`);
  assert.equal(r.count, PLANTED.length + PLANTED_IN_CONTEXT.length);
  for (let i = 0; i < PLANTED.length + PLANTED_IN_CONTEXT.length; i++) assert.ok(r.text.includes(`step ${i}: `));
});

test('near misses in normal code and prose come through unchanged', () => {
  for (const line of NEAR_MISSES) {
    const r = redactSecrets(line);
    assert.equal(r.text, line, `false positive (${JSON.stringify(r.found)})`);
    assert.equal(r.count, 0);
  }
});

test('redaction is idempotent', () => {
  const text = [...PLANTED, ...PLANTED_IN_CONTEXT].map((p) => p.line).join('\n');
  const once = redact(text);
  assert.equal(redact(once), once);
});

test('no pattern is quadratic: 200 KB adversarial runs redact in well under a second each', () => {
  // `a.a.a.…` took over a minute with an unbounded URL scheme pattern
  for (const unit of ['a.', 'a-', 'sk-', 'eyJa.', 'A=', 'ghp_', 'x:', 'a:b@', 'Bearer ', '"password": "']) {
    const text = unit.repeat(Math.ceil(200_000 / unit.length));
    const t0 = performance.now();
    redactSecrets(text);
    const ms = performance.now() - t0;
    assert.ok(ms < 1_000, `${JSON.stringify(unit)} x ${text.length / unit.length}: ${ms.toFixed(0)} ms`);
  }
});
