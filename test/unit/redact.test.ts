import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact, redactSecrets } from '../../src/core/distill/redact';
import { BY_CONTEXT, NEAR_MISSES, NOT_CREDENTIALS, PLANTED, PLANTED_IN_CONTEXT } from './secrets';

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

test('a rule that looks only in texts holding its literals finds them in any case where its pattern ignores case', () => {
  // assigned-secret looks for "secret", "key"… in the lower-cased text: an upper-case name is still its match
  const r = redactSecrets('{ "CLIENT_SECRET": "Zq8vLr2Kp0x" }');
  assert.equal(r.text, '{ "CLIENT_SECRET": "[REDACTED:assigned-secret]" }');
  assert.deepEqual(r.found, { 'assigned-secret': 1 });
  assert.equal(redact('POSTGRES://app:S3cr3tPa55@db:5432/shop'), 'POSTGRES://app:[REDACTED:url-password]@db:5432/shop');
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
  for (const unit of [
    'a.', 'a-', 'sk-', 'eyJa.', 'A=', 'ghp_', 'x:', 'a:b@', 'Bearer ', '"password": "',
    // issue 44's rules: key blocks and tails, client flags, config lines, calls, accounts
    '-----BEGIN PRIVATE KEY-----\n', 'AAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----\n', 'AAAAAAAAAAAAAAAA ', 'docker login x ', 'mysql x ',
    'redis-cli x ', 'password = x', 'password: a&', 'setApiKey("', 'auth=("aaaa", ', 'machine a login b password ', '--password ', 'a\\n',
    'AC0123456789abcdef0123456789abcdef, ', `-----BEGIN PRIVATE KEY-----\n${'A'.repeat(64)}\n`,
  ]) {
    const text = unit.repeat(Math.ceil(200_000 / unit.length));
    const t0 = performance.now();
    redactSecrets(text);
    const ms = performance.now() - t0;
    assert.ok(ms < 1_000, `${JSON.stringify(unit)} x ${text.length / unit.length}: ${ms.toFixed(0)} ms`);
  }
});

test('secrets known by where they stand (issue 44): beside their account, in a client\'s flags, a config line, a .netrc, a call', () => {
  for (const p of BY_CONTEXT) {
    const r = redactSecrets(p.line);
    assert.equal(r.text, p.redacted, `${p.kind}: ${JSON.stringify(p.line)}`);
    assert.ok(r.found[p.kind as keyof typeof r.found], `${p.kind} counted in ${JSON.stringify(r.found)}`);
    for (const part of p.secret.split('\n')) assert.ok(!r.text.includes(part));
  }
});

test('hashes, ids, colours and account ids beside credential-like names stay (issue 44)', () => {
  for (const line of NOT_CREDENTIALS) assert.equal(redact(line), line, `false positive (${JSON.stringify(redactSecrets(line).found)})`);
});

test('a private key is redacted as a block wherever an excerpt of it starts or stops, as long as it shows a BEGIN or END line', () => {
  // (an excerpt of body lines alone is not recognisable: search cuts its excerpts from redacted text)
  const lines = BY_CONTEXT.find((p) => p.kind === 'private-key')!.secret.split('\n');
  const block = ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----'].join('\n');
  const text = `please install it:\n${block}\nRotate it after the release.`;
  // every window of the text, as an excerpt shows it (white space run together, `…` where it was cut)
  for (let from = 0; from < text.length; from += 7) {
    for (const to of [from + 60, from + 240]) {
      const window = `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
      if (!window.includes('KEY-----')) continue;
      const r = redact(window);
      for (const line of lines) {
        for (let i = 0; i + 16 <= line.length; i++) assert.ok(!r.includes(line.slice(i, i + 16)), `${JSON.stringify(window)} -> ${JSON.stringify(r)}`);
      }
    }
  }
});

test('a key whose value is no secret does not hide the secret of the key after it (a heading or a note before a config line)', () => {
  const secrets = [
    ['Set it up:\ntwilio_auth_token = 5c3a18f6d4b2907e5c3a18f6d4b2907e', 'Set it up:\ntwilio_auth_token = [REDACTED:generic-secret]'],
    ['Notes:\napi_key = sk_9f8eA7b6C5d4E3f2G1h0', 'Notes:\napi_key = [REDACTED:generic-secret]'],
    ['Note: api_key = sk_9f8eA7b6C5d4E3f2G1h0', 'Note: api_key = [REDACTED:generic-secret]'],
    ['run --verbose --api-key 9f8eA7b6C5d4E3f2G1h0x', 'run --verbose --api-key [REDACTED:generic-secret]'],
  ];
  for (const [line, redacted] of secrets) assert.equal(redact(line!), redacted);
  // looked at again from the key's last character, not from inside it: "public key" stays one name
  const wireguard = 'interface: wg0\n  public key: iDOkPq2eH57bILCMFmfvYtOmZLcetwfAOzm+VEUZlx0=\n';
  assert.equal(redact(wireguard), wireguard);
});
