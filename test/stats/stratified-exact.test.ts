import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/random.js';
import { wilson } from '../../src/stats/cluster-rate.js';
import { clusterRateTest, conditionalRateTest, type ClusterCounts } from '../../src/stats/sequential.js';
import { stratifiedExactTest } from '../../src/stats/stratified-exact.js';

const q = (baselineTrials: number, baselineSuccesses: number, candidateTrials: number, candidateSuccesses: number): ClusterCounts => ({ baselineTrials, baselineSuccesses, candidateTrials, candidateSuccesses });

describe('the exact conditional test stratified by question', () => {
  it('is the hypergeometric tail within one question', () => {
    // 2 baseline passes, 0 of 6 candidate items: C(2,2) / C(8,2) = 1/28.
    expect(stratifiedExactTest([q(2, 2, 6, 0)]).pLower).toBeCloseTo(1 / 28, 12);
    // No baseline error in 2, both candidate items erred: 1/6.
    expect(stratifiedExactTest([q(2, 0, 2, 2)]).pUpper).toBeCloseTo(1 / 6, 12);
    // Questions whose items all agree carry nothing.
    const r = stratifiedExactTest([q(2, 0, 2, 0), q(2, 2, 2, 2), q(1, 1, 1, 0)]);
    expect(r).toMatchObject({ questions: 3, informative: 1 });
    expect(r.pLower).toBeCloseTo(0.5, 12);
    expect(r.minLower).toBeCloseTo(0.5, 12);
  });

  it('convolves the questions: two questions each 2 -> 0 of 2 give (1/6)^2', () => {
    expect(stratifiedExactTest([q(2, 2, 2, 0), q(2, 2, 2, 0)]).pLower).toBeCloseTo(1 / 36, 12);
  });

  it("counts a confirmation's re-asked items, where a sign flip over questions cannot move", () => {
    // Six questions that passed twice in the baseline, failed twice in the run and four times more when re-asked.
    const asked = Array.from({ length: 6 }, () => q(2, 2, 2, 0));
    const reasked = Array.from({ length: 6 }, () => q(2, 2, 6, 0));
    expect(clusterRateTest(reasked, { resamples: 2000, seed: 1 }).pLower).toBeCloseTo(clusterRateTest(asked, { resamples: 2000, seed: 1 }).pLower, 2);
    expect(clusterRateTest(reasked, { resamples: 2000, seed: 1 }).pLower).toBeGreaterThan(1 / 64 - 1e-9);
    expect(conditionalRateTest(reasked).pLower).toBeCloseTo((1 / 28) ** 6, 15);
    expect(conditionalRateTest(reasked).pLower).toBeLessThan(conditionalRateTest(asked).pLower);
    expect(conditionalRateTest(reasked).change).toBeCloseTo(-1, 12);
  });

  it('keeps its level on null nights of questions with rates from rare to common (seed 5, 4,000 nights of 30 x 2 plus 0-4 re-asked)', () => {
    const random = mulberry32(5);
    const nights = 4000;
    const level = 0.05;
    let lower = 0;
    let upper = 0;
    for (let n = 0; n < nights; n++) {
      const counts = Array.from({ length: 30 }, (_, i) => {
        const p = [0.03, 0.2, 0.5, 0.9][i % 4]!;
        const extra = Math.floor(random() * 5);
        const draw = (k: number): number => Array.from({ length: k }, () => random() < p).filter(Boolean).length;
        return q(2, draw(2), 2 + extra, draw(2 + extra));
      });
      const r = stratifiedExactTest(counts);
      if (r.pLower < level) lower++;
      if (r.pUpper < level) upper++;
    }
    for (const hits of [lower, upper]) expect(wilson(hits / nights, nights, 0.95)[0]).toBeLessThanOrEqual(level);
  });
});
