import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/random.js';
import { clusteredRate, detectableRateDrop, pairedRateChange, wilson, worseThanAllowed } from '../../src/stats/cluster-rate.js';
import { detectableIncrease, pairedMedianChange } from '../../src/stats/bootstrap.js';
import { DEFAULT_THRESHOLDS, gateLevels, judge } from '../../src/report/compare/gates.js';
import { detectableAt } from '../../src/report/plan.js';

// Simulations of the statistics on generated suites: coverage of intervals, the false-alarm rate of the
// gates, and the catch rate at each "could have detected" figure. Each states its seed and number of
// datasets and asserts against the Wilson interval of the simulated rate, so it fails only on a real defect.
// The questions: a third flaky (pass chance 50%), the rest at `rest`; repeats independent given the question.

const B = { resamples: 200, confidence: 0.95, seed: 1 };

/** The Wilson 95% interval of k successes in n. */
const interval = (k: number, n: number): [number, number] => wilson(k / n, n, 0.95);

function population(random: () => number, questions: number, rest = 0.95): number[] {
  return Array.from({ length: questions }, () => (random() < 1 / 3 ? 0.5 : rest));
}

function passes(random: () => number, chances: readonly number[], repeats: number): number[] {
  return chances.map((p) => {
    let c = 0;
    for (let r = 0; r < repeats; r++) if (random() < p) c++;
    return c;
  });
}

/** Every question's chance lowered in proportion, so that the mean drops by `drop`. */
const lowered = (chances: readonly number[], drop: number): number[] => {
  const mean = chances.reduce((a, p) => a + p, 0) / chances.length;
  return chances.map((p) => Math.max(0, p * (1 - drop / mean)));
};

describe("one run's pass rate: coverage of its interval", () => {
  for (const repeats of [2, 3]) {
    it(`covers 95% at 10 questions x ${repeats}, a third at 50% (seed 31, 1,000 suites)`, () => {
      const random = mulberry32(31);
      const truth = 0.5 / 3 + (2 / 3) * 1;
      let covered = 0;
      const runs = 1000;
      for (let i = 0; i < runs; i++) {
        const s = passes(random, population(random, 10, 1), repeats);
        const r = clusteredRate(s, s.map(() => repeats), B);
        if (r.low! <= truth && truth <= r.high!) covered++;
      }
      // The percentile bootstrap covered 87% (10 x 2) and 89% (10 x 3) here.
      expect(interval(covered, runs)[1]).toBeGreaterThanOrEqual(0.95);
    });
  }
});

describe('the pass-rate gate: catch rate at its "could have detected" figure', () => {
  const cases = [
    { questions: 30, repeats: 2, allowed: 0, seed: 41 },
    { questions: 100, repeats: 2, allowed: 0, seed: 42 },
    { questions: 30, repeats: 2, allowed: 0.05, seed: 43 },
    { questions: 100, repeats: 3, allowed: 0.05, seed: 44 },
  ];
  for (const { questions, repeats, allowed, seed } of cases) {
    it(`about 80% at ${questions} x ${repeats}, allowed drop ${allowed * 100} points (seed ${seed}, 400 suites)`, () => {
      const random = mulberry32(seed);
      const alpha = 0.04;
      let caught = 0;
      const runs = 400;
      for (let i = 0; i < runs; i++) {
        const chances = population(random, questions);
        const t = chances.map(() => repeats);
        // The figure a green night prints, then a night that truly drops by it.
        const quiet = pairedRateChange(t, passes(random, chances, repeats), passes(random, chances, repeats), B);
        const figure = detectableRateDrop(quiet, alpha, allowed)!;
        const dropped = pairedRateChange(t, passes(random, chances, repeats), passes(random, lowered(chances, figure), repeats), B);
        if (worseThanAllowed(dropped, 'drop', allowed, alpha)) caught++;
      }
      // The null's standard error gave 42-64% here.
      const [low, high] = interval(caught, runs);
      expect(high).toBeGreaterThanOrEqual(0.76);
      expect(low).toBeLessThanOrEqual(0.86);
    });
  }
});

describe('the pass-rate gate with an allowance tests the allowance, not the point estimate', () => {
  it('a true 3-point drop with 5 points allowed fails at most 5% of nights (30 x 2 and 100 x 3; seed 51, 600 suites)', () => {
    const random = mulberry32(51);
    for (const [questions, repeats] of [[30, 2], [100, 3]] as const) {
      let failed = 0;
      const runs = 600;
      for (let i = 0; i < runs; i++) {
        const chances = population(random, questions);
        const r = pairedRateChange(chances.map(() => repeats), passes(random, chances, repeats), passes(random, lowered(chances, 0.03), repeats), B);
        if (worseThanAllowed(r, 'drop', 0.05, 0.05)) failed++;
      }
      // Cutting on the point estimate failed 18% of such nights.
      expect(interval(failed, runs)[0]).toBeLessThanOrEqual(0.05);
      expect(failed / runs).toBeLessThanOrEqual(0.05);
    }
  });
});

describe('the default gates hold one false-alarm rate', () => {
  for (const repeats of [2, 3]) {
    it(`new-errors and pass-rate together: at most 5% of null nights at 100 questions x ${repeats}, 10% errors (seed 61 + repeats, 1,000 nights)`, () => {
      const random = mulberry32(61 + repeats);
      const levels = gateLevels(DEFAULT_THRESHOLDS, 0.95, ['latency', 'credits']);
      // The intervals play no part in the gates: few resamples.
      const B = { resamples: 10, confidence: 0.95, seed: 1 };
      let red = 0;
      const nights = 1000;
      for (let i = 0; i < nights; i++) {
        const chances = population(random, 100);
        const side = () =>
          chances.map((p) => Array.from({ length: repeats }, () => ({ erred: random() < 0.1, passed: random() < p })));
        const b = side();
        const c = side();
        const errTrials = b.map(() => repeats);
        const errors = worseThanAllowed(
          pairedRateChange(errTrials, b.map((q) => q.filter((x) => x.erred).length), c.map((q) => q.filter((x) => x.erred).length), B),
          'rise',
          0,
          levels.get('new-errors')!,
        );
        const both = b.map((q, j) => q.map((x, r) => !x.erred && !c[j]![r]!.erred));
        const pass = worseThanAllowed(
          pairedRateChange(
            both.map((q) => q.filter(Boolean).length),
            b.map((q, j) => q.filter((x, r) => both[j]![r] && x.passed).length),
            c.map((q, j) => q.filter((x, r) => both[j]![r] && x.passed).length),
            B,
          ),
          'drop',
          0,
          levels.get('pass-rate')!,
        );
        if (errors || pass) red++;
      }
      // Each at 5% alone gave 6.1% (100 x 2) and 7.4% (100 x 3).
      expect(interval(red, nights)[0]).toBeLessThanOrEqual(0.05);
      expect(red / nights).toBeLessThanOrEqual(0.055);
    });
  }
});

/** Latencies of Q questions x R repeats: a question's own scale (log-normal) times repeat noise. */
function latencies(random: () => number, scales: readonly number[], repeats: number, factor: number): number[] {
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return scales.flatMap((s) => Array.from({ length: repeats }, () => s * factor * Math.exp(0.35 * normal())));
}

describe('a latency change', () => {
  const questions = 30;
  const repeats = 2;
  const starts = Array.from({ length: questions }, (_, i) => i * repeats);
  const scales = (random: () => number): number[] => Array.from({ length: questions }, () => 20_000 * Math.exp(0.6 * (random() - 0.5)));

  it('reads a true +20% as +20% (seed 71, 300 suites; the median of paired differences read +17.6%)', () => {
    const random = mulberry32(71);
    const read: number[] = [];
    for (let i = 0; i < 300; i++) {
      const s = scales(random);
      read.push(pairedMedianChange(latencies(random, s, repeats, 1), latencies(random, s, repeats, 1.2), B, starts).relative!);
    }
    read.sort((a, b) => a - b);
    expect(read[150]!).toBeGreaterThan(0.19);
    expect(read[150]!).toBeLessThan(0.21);
  });

  it('is caught about 80% of the time at its "could have detected" figure (seed 72, 200 suites, 2,000 resamples)', () => {
    const random = mulberry32(72);
    const level = 0.005;
    const B = { resamples: 2000, confidence: 0.95, seed: 1 };
    let caught = 0;
    const runs = 200;
    for (let i = 0; i < runs; i++) {
      const s = scales(random);
      const quiet = pairedMedianChange(latencies(random, s, repeats, 1), latencies(random, s, repeats, 1), B, starts, level);
      const figure = detectableIncrease(quiet, 0.2, level, 0.95)!;
      const slower = pairedMedianChange(latencies(random, s, repeats, 1), latencies(random, s, repeats, 1 + figure), B, starts, level);
      if (judge(slower, 0.2, 5) === 'regressed') caught++;
    }
    const [low, high] = interval(caught, runs);
    expect(high).toBeGreaterThanOrEqual(0.75);
    expect(low).toBeLessThanOrEqual(0.87);
  });
});

describe('dsbench plan: what a suite can detect', () => {
  for (const questions of [30, 100]) {
    it(`a pass-rate drop is caught about 80% of the time at the figure plan gives for ${questions} x 2 (seed 81, 400 suites)`, () => {
      const random = mulberry32(81);
      const chances = population(mulberry32(80), questions);
      const variance = chances.reduce((a, p) => a + p * (1 - p), 0) / questions;
      const figure = detectableAt({ latency: null, passRate: { questions, variance } }, questions, 2, 0.2, 0.95).passRate!;
      const alpha = gateLevels(DEFAULT_THRESHOLDS, 0.95, ['latency', 'credits']).get('pass-rate')!;
      let caught = 0;
      const runs = 400;
      for (let i = 0; i < runs; i++) {
        const r = pairedRateChange(chances.map(() => 2), passes(random, chances, 2), passes(random, lowered(chances, figure), 2), B);
        if (worseThanAllowed(r, 'drop', 0, alpha)) caught++;
      }
      const [low, high] = interval(caught, runs);
      expect(high).toBeGreaterThanOrEqual(0.75);
      expect(low).toBeLessThanOrEqual(0.86);
    });
  }
});
