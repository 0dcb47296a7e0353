import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relativeDate, shortDate } from '../../src/core/time';

test('relative dates in the largest fitting unit, past and future', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  assert.equal(relativeDate('2026-11-23T11:59:30Z', now), 'just now');
  assert.equal(relativeDate('2026-11-23T11:00:00Z', now), '1 hour ago');
  assert.equal(relativeDate('2026-11-20T12:00:00Z', now), '3 days ago');
  assert.equal(relativeDate('2026-10-03T12:00:00Z', now), '1 month ago');
  assert.equal(relativeDate('2026-11-23T14:00:00Z', now), 'in 2 hours');
  assert.equal(relativeDate(undefined, now), 'unknown date');
  assert.equal(relativeDate('not a date', now), 'unknown date');
  assert.equal(shortDate('2026-10-03T10:12:00.000Z'), '2026-10-03');
});
