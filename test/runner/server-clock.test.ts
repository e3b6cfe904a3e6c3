import { describe, expect, it } from 'vitest';
import { ServerClock } from '../../src/runner/server-clock.js';

describe('the server clock of a target', () => {
  it('bounds the server time at a local moment by the last reply received by then, at any pace or skew', () => {
    const clock = new ServerClock();
    expect(clock.atLeast(1_000)).toBeUndefined();
    // A server 10 minutes behind whose time runs 100 times faster than ours.
    clock.observe(new Date(1_000_000 - 600_000).toUTCString(), 1_000_000);
    clock.observe(new Date(1_000_000 - 600_000 + 100_000).toUTCString(), 1_001_000);
    expect(clock.atLeast(999_999)).toBeUndefined();
    expect(clock.atLeast(1_000_500)).toBe(400_000);
    // Replies received after the moment say nothing about it: at that pace they would put it too late.
    expect(clock.atLeast(1_001_000)).toBe(500_000);
    expect(clock.atLeast(5_000_000)).toBe(500_000);
  });

  it('ignores unreadable dates and ones that do not move on', () => {
    const clock = new ServerClock();
    clock.observe(undefined, 10);
    clock.observe('not a date', 20);
    expect(clock.atLeast(30)).toBeUndefined();
    clock.observe('Mon, 23 Nov 2026 20:00:01 GMT', 40);
    clock.observe('Mon, 23 Nov 2026 20:00:00 GMT', 50);
    expect(clock.atLeast(60)).toBe(Date.parse('2026-11-23T20:00:01Z'));
  });
});
