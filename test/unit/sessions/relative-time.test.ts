import * as assert from 'node:assert/strict';
import { relativeTime } from '../../../src/sessions/relativeTime';

describe('relativeTime', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();

  it('says how long ago, in the largest unit that fits', () => {
    assert.equal(relativeTime(ago(10_000), now, 'en'), 'now');
    assert.equal(relativeTime(ago(5 * 60_000), now, 'en'), '5 minutes ago');
    assert.equal(relativeTime(ago(3 * 3600_000), now, 'en'), '3 hours ago');
    assert.equal(relativeTime(ago(24 * 3600_000), now, 'en'), 'yesterday');
    assert.equal(relativeTime(ago(3 * 24 * 3600_000), now, 'en'), '3 days ago');
    assert.equal(relativeTime(ago(60 * 24 * 3600_000), now, 'en'), '2 months ago');
    assert.equal(relativeTime(ago(800 * 24 * 3600_000), now, 'en'), '2 years ago');
  });

  it('speaks the user\u2019s language', () => {
    assert.equal(relativeTime(ago(24 * 3600_000), now, 'de'), 'gestern');
  });

  it('is undefined for something that is not a date', () => {
    assert.equal(relativeTime(undefined, now), undefined);
    assert.equal(relativeTime('last Tuesday-ish', now), undefined);
  });
});
