import { describe, expect, it } from 'vitest';
import { RankCounts, pairedMedianChange } from '../../src/stats/bootstrap.js';
import { mulberry32 } from '../../src/random.js';
import { median } from '../../src/stats/percentiles.js';
import { clusteredRate, detectableRateDrop, pairedRateChange, wilson } from '../../src/stats/cluster-rate.js';
import { binomial, consistency, defaultK, passAtK, passHatK } from '../../src/stats/pass-k.js';
import { normalCdf, normalQuantile, signFlipTest } from '../../src/stats/sign-flip.js';

const B = { resamples: 2000, confidence: 0.95, seed: 1 };

describe('sign-flip test', () => {
  it('is exact McNemar with one item a question: 5 worse, 1 better of 6 discordant', () => {
    const r = signFlipTest([-1, -1, -1, -1, -1, 1, 0, 0], B);
    expect(r.method).toBe('exact');
    expect(r.statistic).toBe(-4);
    // P(at most 1 of 6 fair coins land "better") = (1 + 6) / 64.
    expect(r.pLower).toBeCloseTo(7 / 64, 12);
    expect(r.pUpper).toBeCloseTo(1 - 1 / 64, 12);
    expect(r.pTwoSided).toBeCloseTo(14 / 64, 12);
  });

  it('flips whole clusters: a question with two repeats both worse moves the sum by 2', () => {
    // Sums of ±2 ±1: -3, -1, 1, 3, each 1/4.
    const r = signFlipTest([2, -1], B);
    expect(r.pUpper).toBeCloseTo(0.5, 12);
    expect(r.pLower).toBeCloseTo(0.75, 12);
    expect(r.pTwoSided).toBeCloseTo(1, 12);
    // Unclustered, the same three items as ±1 each: P(S >= 1) = 4/8.
    expect(signFlipTest([1, 1, -1], B).pUpper).toBeCloseTo(0.5, 12);
    expect(signFlipTest([2], B).pUpper).toBeCloseTo(0.5, 12);
    expect(signFlipTest([1, 1], B).pUpper).toBeCloseTo(0.25, 12);
  });

  it('says 1 with nothing changed, and switches to the normal approximation past its budget', () => {
    expect(signFlipTest([0, 0], B)).toMatchObject({ statistic: 0, pLower: 1, pUpper: 1, pTwoSided: 1 });
    const big = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? 100 : -100));
    const r = signFlipTest(big, B);
    expect(r.method).toBe('normal');
    // S = -100000 over sd 100 * sqrt(3000): z about -18.
    expect(r.pLower).toBeLessThan(1e-9);
  });

  it('uses seeded Monte Carlo for fractions, agreeing with the exact answer', () => {
    const r = signFlipTest([0.5, 0.5, 0.5, 0.5, 0.5], { resamples: 20000, seed: 3 });
    expect(r.method).toBe('monte-carlo');
    expect(r.pUpper).toBeCloseTo(1 / 32, 2);
    expect(signFlipTest([0.5, 0.5, 0.5, 0.5, 0.5], { resamples: 20000, seed: 3 })).toEqual(r);
  });

  it('normal quantile and distribution invert each other', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 5);
    for (const p of [0.001, 0.02, 0.3, 0.5, 0.9, 0.999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
  });
});

describe('clustered bootstrap of a median change', () => {
  it('is the ordinary paired bootstrap, draw for draw, when each question has one pair', () => {
    const random = mulberry32(5);
    const b = Array.from({ length: 40 }, () => 100 + Math.floor(random() * 50));
    const c = b.map((x) => x + Math.floor(random() * 30) - 10);
    const starts = b.map((_, i) => i);
    expect(pairedMedianChange(b, c, B, starts)).toEqual(pairedMedianChange(b, c, B));
  });

  it('is wider when repeats of a question move together', () => {
    // 10 questions x 4 repeats; each question's repeats share its change (-20..+25).
    const b: number[] = [];
    const c: number[] = [];
    const starts: number[] = [];
    for (let q = 0; q < 10; q++) {
      starts.push(b.length);
      for (let r = 0; r < 4; r++) {
        b.push(100);
        c.push(100 + (q - 4) * 5 + r * 0.1);
      }
    }
    const clustered = pairedMedianChange(b, c, B, starts);
    const naive = pairedMedianChange(b, c, B);
    expect(clustered.clusters).toBe(10);
    expect(naive.clusters).toBe(40);
    expect(clustered.delta).toBe(naive.delta);
    expect(clustered.deltaHigh! - clustered.deltaLow!).toBeGreaterThan(1.5 * (naive.deltaHigh! - naive.deltaLow!));
    expect(clustered.logRatioSe!).toBeGreaterThan(naive.logRatioSe!);
  });

  it('rank counts give the median of any number of values added', () => {
    const counts = new RankCounts([5, 1, 3]);
    for (const i of [0, 0, 1, 2, 2, 2]) counts.add(i);
    expect(counts.medianAndReset()).toBe(median([5, 5, 1, 3, 3, 3]));
    counts.add(1);
    expect(counts.medianAndReset()).toBe(1);
  });
});

describe('rates over questions', () => {
  it('a rate is successes over trials; Wilson on the effective sample size of the clustered variance', () => {
    const r = clusteredRate([2, 1, 0, 2], [2, 2, 2, 2], B);
    expect(r).toMatchObject({ value: 5 / 8, n: 8, clusters: 4, method: 'wilson, effective sample size' });
    // Clustered variance 4/3 * (0.75^2 + 0.25^2 + 1.25^2 + 0.75^2) / 64 = 11/192; p(1-p)/v = 4.09 items,
    // times (1.96 / t(0.975, 3))^2 = (1.959964 / 3.182446)^2.
    const [low, high] = wilson(5 / 8, ((15 / 64) * (192 / 11)) * (1.959964 / 3.182446) ** 2, 0.95);
    expect(r.low!).toBeCloseTo(low, 2);
    expect(r.high!).toBeCloseTo(high, 2);
  });

  it('all questions alike: Wilson on all the items (a design effect below 1 is not trusted)', () => {
    const r = clusteredRate([3, 3, 3, 3, 3], [3, 3, 3, 3, 3], B);
    const [low, high] = wilson(1, 15 * (1.959964 / 2.776445) ** 2, 0.95);
    expect(r.low!).toBeCloseTo(low, 2);
    expect(r.high).toBe(high);
  });

  it('is monotone: a failure never raises a bound (60/60, 59/60, 58/60; every arrangement of 10 questions x 2)', () => {
    const twos = (fails: number[]): number[] => Array.from({ length: 30 }, (_, i) => 2 - (fails[i] ?? 0));
    const ladder = [[], [1], [1, 1], [2], [2, 1], [2, 2]].map((f) => clusteredRate(twos(f), twos([]).map(() => 2), B));
    expect(ladder[0]!.low!).toBeGreaterThan(ladder[1]!.low!);
    for (let i = 1; i < ladder.length; i++) expect(ladder[i]!.value!).toBeLessThanOrEqual(ladder[i - 1]!.value!);
    // Every arrangement of successes over 10 questions of 2 items, and each one more success.
    const t = Array.from({ length: 10 }, () => 2);
    let violations = 0;
    for (let code = 0; code < 3 ** 10; code++) {
      const s = t.map((_, i) => Math.floor(code / 3 ** i) % 3);
      const r = clusteredRate(s, t, B);
      for (let i = 0; i < 10; i++) {
        if (s[i] === 2) continue;
        const more = clusteredRate(s.map((x, j) => (j === i ? x + 1 : x)), t, B);
        if (more.low! < r.low! - 1e-12 || more.high! < r.high! - 1e-12) violations++;
      }
    }
    expect(violations).toBe(0);
  });

  it('a score outside 0..1: the t interval on the clustered standard error', () => {
    const r = clusteredRate([3, 5, 4], [1, 1, 1], B);
    expect(r.method).toBe('clustered standard error');
    expect(r.value).toBe(4);
    expect(r.high! - 4).toBeCloseTo(4.302653 * Math.sqrt(3 / 2 * 2 / 9), 2);
  });

  it('a paired change: the difference, its interval, and the sign-flip test of the questions', () => {
    const r = pairedRateChange([2, 2, 2, 2, 1], [2, 2, 1, 2, 1], [0, 1, 1, 2, 0], B);
    expect(r).toMatchObject({ n: 9, clusters: 5, baseline: 8 / 9, candidate: 4 / 9, changedItems: 4 });
    expect(r.change).toBeCloseTo(-4 / 9, 12);
    // Differences -2, -1, 0, 0, -1: of the 8 sign flips of (2, 1, 1) only all-negative reaches -4.
    expect(r.test.pLower).toBeCloseTo(1 / 8, 12);
    expect(r.high!).toBeLessThanOrEqual(0);
    expect(detectableRateDrop(r, 0.05, 0)!).toBeGreaterThan(0);
  });

  it('the detectable drop is never below the fewest changed items that can be significant', () => {
    const r = pairedRateChange([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], B);
    // 0.5^5 < 0.05 <= 0.5^4: five items of ten at least; the variance the drop brings makes it 6.2.
    expect(detectableRateDrop(r, 0.05, 0)).toBeGreaterThanOrEqual(0.5);
    expect(detectableRateDrop(r, 0.05, 0)).toBeCloseTo((1.644854 + 0.841621) ** 2 / 10, 4);
  });
});

describe('pass@k and pass^k', () => {
  it('unbiased estimators over n repeats with c passes', () => {
    expect(binomial(4, 2)).toBe(6);
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    expect(passAtK(4, 2, 2)).toBeCloseTo(5 / 6, 12);
    expect(passHatK(3, 3, 2)).toBe(1);
    expect(passAtK(3, 0, 2)).toBe(0);
    expect(passHatK(1, 1, 2)).toBeNull();
    expect(consistency(4, 2, 2)).toMatchObject({ flipRate: 2 / 3, label: 'flaky' });
    expect(consistency(4, 4, 2)).toMatchObject({ flipRate: 0, label: 'stable' });
    expect(consistency(1, 1, 1)).toMatchObject({ flipRate: null, label: 'single', passHatK: 1 });
    expect(defaultK([3, 2, 5])).toBe(2);
    expect(defaultK([])).toBe(1);
  });
});
