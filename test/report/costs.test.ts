import { describe, expect, it } from 'vitest';
import { humanDuration, remaining, runsLeft, suiteRunCost } from '../../src/report/costs.js';

describe('quota projection', () => {
  it('remaining quota; null for unlimited (-1)', () => {
    expect(remaining({ totalQuota: 300, quotaLimit: 1000 })).toBe(700);
    expect(remaining({ totalQuota: 1200, quotaLimit: 1000 })).toBe(0);
    expect(remaining({ totalQuota: 5, quotaLimit: -1 })).toBeNull();
  });

  it('whole runs left: floor(remaining / credits per run)', () => {
    expect(runsLeft({ totalQuota: 300, quotaLimit: 1000 }, 100)).toBe(7);
    expect(runsLeft({ totalQuota: 300, quotaLimit: 1000 }, 233.3333333333333)).toBe(3); // 700 / 233.33 = 3.0000000000000004
    expect(runsLeft({ totalQuota: 300, quotaLimit: 1000 }, 701)).toBe(0);
    expect(runsLeft({ totalQuota: 300, quotaLimit: -1 }, 100)).toBeNull();
    expect(runsLeft({ totalQuota: 300, quotaLimit: 1000 }, null)).toBeNull();
    expect(runsLeft({ totalQuota: 300, quotaLimit: 1000 }, 0)).toBeNull();
  });

  it('cost of one suite run: measured, estimated, or from the quota delta', () => {
    expect(suiteRunCost({ creditsSum: 40, items: 10, started: 10, complete: true, quotaUsedInRun: null })).toEqual({ credits: 40, basis: 'measured: credits of this run' });
    const estimate = suiteRunCost({ creditsSum: 10, items: 8, started: 2, complete: false, quotaUsedInRun: null });
    expect(estimate.credits).toBe(40); // 10 / 2 * 8
    expect(estimate.basis).toMatch(/^estimated: mean credits of 2 started of 8 planned/);
    expect(suiteRunCost({ creditsSum: null, items: 8, started: 8, complete: true, quotaUsedInRun: 12 })).toMatchObject({ credits: 12 });
    expect(suiteRunCost({ creditsSum: null, items: 8, started: 8, complete: true, quotaUsedInRun: null })).toEqual({ credits: null, basis: 'no credits recorded' });
  });

  it('formats durations', () => {
    expect(humanDuration(93784)).toBe('1d 2h 3m');
    expect(humanDuration(7260)).toBe('2h 1m');
    expect(humanDuration(125)).toBe('2m 5s');
    expect(humanDuration(9)).toBe('9s');
    expect(humanDuration(-5)).toBe('0s');
  });
});
