import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REDACTION_VERSION } from '../../src/core/distill/redact';

/**
 * A store keeps, with each exchange distilled, the version of the redaction rules that found no secret in its text
 * (distilled.clean), and a search leaving the store shows such a text unredacted while that version is current. So a
 * change to the rules must come with a new REDACTION_VERSION, or texts checked by the old rules would pass unchecked
 * by the new. The rules' source is pinned here; when it changes, bump the version and pin the new text.
 */
const RULE_FILES = ['redact.ts', 'contextRules.ts', 'privateKeys.ts', 'secretRule.ts'];
const PINNED = { version: 'r2', sha256: 'cfc2d364d2b00867a5e5304e3b6748c83f3a7e497f97b025e05e30620a0a8d5c' };

test('the redaction rules are those of REDACTION_VERSION (bump it when they change)', () => {
  const dir = path.resolve(__dirname, '../../../src/core/distill');
  const sha256 = createHash('sha256')
    .update(RULE_FILES.map((f) => readFileSync(path.join(dir, f), 'utf8')).join(''))
    .digest('hex');
  assert.deepEqual({ version: REDACTION_VERSION, sha256 }, PINNED, 'the redaction rules changed: bump REDACTION_VERSION in redact.ts and pin its new hash here');
});
