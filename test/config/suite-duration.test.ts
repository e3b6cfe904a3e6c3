import { describe, expect, it } from 'vitest';
import { DurationSchema, durationToMs, parseDuration } from '../../src/config/duration.js';
import { UsageError } from '../../src/http/errors.js';

describe('durations', () => {
  it.each([
    [90, 90_000],
    [0.5, 500],
    ['500ms', 500],
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['1.5h', 5_400_000],
    ['2.5s', 2_500],
  ] as const)('%s is %d ms', (input, ms) => {
    expect(durationToMs(input)).toBe(ms);
    expect(DurationSchema.parse(input)).toBe(ms);
  });

  it.each(['', '90', '5x', '1s1m', '1m1m', 'ms', '1 s', '-5s', '0s', ' 5s', '1.s', '.5s'])('rejects "%s"', (input) => {
    expect(durationToMs(input)).toBeUndefined();
    expect(DurationSchema.safeParse(input).success).toBe(false);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.0001])('rejects the number %d', (input) => {
    expect(durationToMs(input)).toBeUndefined();
    expect(DurationSchema.safeParse(input).success).toBe(false);
  });

  it('parses flags, where a bare number means seconds', () => {
    expect(parseDuration('90', '--timeout')).toBe(90_000);
    expect(parseDuration(' 2m ', '--timeout')).toBe(120_000);
    expect(() => parseDuration('soon', '--timeout')).toThrow(UsageError);
    expect(() => parseDuration('soon', '--timeout')).toThrow('--timeout: "soon" is not a positive duration; use a number of seconds (90)');
  });
});
