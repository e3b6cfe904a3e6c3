import { describe, expect, it } from 'vitest';
import { DurationSchema } from '../../src/config/duration-schema.js';
import { durationToMs, parseDuration } from '../../src/config/duration.js';
import { parseSuite } from '../../src/config/load-suite.js';
import { UsageError } from '../../src/errors/errors.js';

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

  it('refuses a duration longer than a timer can hold (2^31-1 ms), in a flag and in a suite', () => {
    expect(DurationSchema.parse('2147483647ms')).toBe(2_147_483_647);
    for (const input of ['2147483648ms', 2_147_484, '600h']) {
      const parsed = DurationSchema.safeParse(input);
      expect(parsed.success, String(input)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/ms, longer than the longest wait dsbench can time \(2147483647 ms, about 24.8 days\)$/);
    }
    expect(() => parseDuration('600h', '--max-quota-wait')).toThrow('--max-quota-wait: "600h" is 2160000000 ms, longer than the longest wait');
    const text = 'name: s\ndefaults:\n  searchTimeout: 2147484s\nsearches:\n  - { id: a, query: x }\n';
    expect(() => parseSuite(text, 'suites/s.yaml')).toThrow(/^suites\/s\.yaml:3:18: defaults\.searchTimeout: "2147484s" is 2147484000 ms, longer than the longest wait/m);
  });
});
