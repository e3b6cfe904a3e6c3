import { describe, expect, it } from 'vitest';
import type { PairedChange } from '../../src/stats/bootstrap.js';
import { judge, parseFailOn, parsePercent } from '../../src/report/compare/gates.js';
import { UsageError } from '../../src/errors/errors.js';

const change = (overrides: Partial<PairedChange>): PairedChange => ({
  n: 10,
  clusters: 10,
  baselineMedian: 100,
  candidateMedian: 100,
  delta: 0,
  deltaLow: -1,
  deltaHigh: 1,
  relative: 0,
  relativeLow: -0.01,
  relativeHigh: 0.01,
  deltaGateLow: -1,
  relativeGateLow: -0.01,
  logRatioSe: 0.005,
  ...overrides,
});

describe('thresholds and --fail-on', () => {
  it('parses percentages and off', () => {
    expect(parsePercent('20%', 'x')).toBe(0.2);
    expect(parsePercent('20', 'x')).toBe(0.2);
    expect(parsePercent('2.5 %', 'x')).toBe(0.025);
    expect(parsePercent('off', 'x')).toBeNull();
    expect(() => parsePercent('-5%', '--max-latency-regression')).toThrow(UsageError);
    expect(() => parsePercent('fast', '--max-latency-regression')).toThrow(/--max-latency-regression/);
  });

  it('parses the fail-on list', () => {
    expect([...parseFailOn('new-errors, count-changes')]).toEqual(['new-errors', 'count-changes']);
    expect([...parseFailOn('none')]).toEqual([]);
    expect(() => parseFailOn('new-errors,typo')).toThrow(/typo is not one of/);
  });
});

describe('judging a metric', () => {
  it("regressed only when the interval lies above the threshold and the bound at the gate's level above 0", () => {
    expect(judge(change({ relativeLow: 0.21, relativeGateLow: 0.1, relativeHigh: 0.5 }), 0.2, 5)).toBe('regressed');
    expect(judge(change({ relativeLow: 0.19, relativeGateLow: 0.1, relativeHigh: 0.5 }), 0.2, 5)).toBe('unchanged');
    expect(judge(change({ relativeLow: 0.2, relativeGateLow: 0.1, relativeHigh: 0.5 }), 0.2, 5)).toBe('unchanged');
    expect(judge(change({ relativeLow: 0.21, relativeGateLow: -0.01, relativeHigh: 0.5 }), 0.2, 5)).toBe('unchanged');
  });

  it('improved when the interval lies below minus the threshold', () => {
    expect(judge(change({ relativeLow: -0.5, relativeHigh: -0.21 }), 0.2, 5)).toBe('improved');
    expect(judge(change({ relativeLow: -0.5, relativeHigh: -0.1 }), 0.2, 5)).toBe('unchanged');
  });

  it('a threshold that is off judges against 0', () => {
    expect(judge(change({ relativeLow: 0.01, relativeGateLow: 0.005, relativeHigh: 0.02 }), null, 5)).toBe('regressed');
  });

  it('too few pairs is not judged', () => {
    expect(judge(change({ n: 4, relativeGateLow: 0.9, relativeHigh: 1 }), 0.2, 5)).toBe('too few pairs');
    expect(judge(change({ n: 0 }), 0.2, 1)).toBe('too few pairs');
  });

  it('without a relative change (baseline median 0) it judges the absolute interval against 0', () => {
    const abs = { baselineMedian: 0, relative: null, relativeLow: null, relativeHigh: null, relativeGateLow: null };
    expect(judge(change({ ...abs, deltaGateLow: 1, deltaHigh: 2 }), 0.2, 5)).toBe('regressed');
    expect(judge(change({ ...abs, deltaLow: -2, deltaHigh: -1 }), 0.2, 5)).toBe('improved');
    expect(judge(change({ ...abs, deltaLow: -1, deltaHigh: 1 }), 0.2, 5)).toBe('unchanged');
  });
});
