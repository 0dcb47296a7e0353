import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactionRules } from '../../src/core/distill/redact';
import { SECRET_FORMATS } from './secretCorpus';
import { BY_CONTEXT, NEAR_MISSES, NOT_CREDENTIALS, PLANTED, PLANTED_IN_CONTEXT } from './secrets';

/**
 * A rule's `needs` lets a text holding none of its literals skip the rule's pattern (redact.ts), so every match of the
 * pattern must hold one of them (lower-cased where the pattern ignores case), or a secret would pass unredacted. Each
 * pattern is run on the planted secrets, in the lines and the assignments the redaction tests use, and on the near
 * misses; every match is checked.
 */
const TEXTS: string[] = [
  ...PLANTED.flatMap((p) => [p.secret, p.line]),
  ...PLANTED_IN_CONTEXT.map((p) => p.line),
  ...BY_CONTEXT.map((p) => p.line),
  ...SECRET_FORMATS.flatMap((f) => [
    f.secret,
    `${f.name} = "${f.secret}"`,
    `${f.name.toUpperCase()}=${f.secret}`,
    `"${f.name}": "${f.secret}"`,
    `--${f.name.replace(/_/g, '-')} ${f.secret}`,
    `Authorization: Bearer ${f.secret}`,
    `https://user:${f.secret}@example.com`,
  ]),
  ...NEAR_MISSES,
  ...NOT_CREDENTIALS,
  // the two shapes none of the above has: an .npmrc token, and an AWS secret key beside its redacted key id
  '//registry.npmjs.org/:_authToken=npm_0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f',
  'new AWS.Credentials("[REDACTED:aws-access-key]", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")',
].filter(Boolean);

test("every match of a rule's pattern holds one of the literals it needs", () => {
  const unmatched: string[] = [];
  for (const rule of redactionRules()) {
    if (!('re' in rule) || !rule.needs) continue;
    const re = new RegExp(rule.re.source, rule.re.flags.includes('g') ? rule.re.flags : `${rule.re.flags}g`);
    let matched = 0;
    for (const text of TEXTS) {
      for (const m of text.matchAll(re)) {
        const found = rule.re.ignoreCase ? m[0].toLowerCase() : m[0];
        assert.ok(
          rule.needs.some((literal) => found.includes(literal)),
          `${rule.kind}: the match ${JSON.stringify(m[0])} holds none of ${JSON.stringify(rule.needs)}`,
        );
        matched++;
      }
    }
    if (matched === 0) unmatched.push(`${rule.kind} ${JSON.stringify(rule.needs)}`);
  }
  // each pattern met at least one of its secrets, so each was checked
  assert.deepEqual(unmatched, []);
});
