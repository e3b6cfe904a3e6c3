import { describe, expect, it } from 'vitest';
import { RankCounts, pairedMedianChange } from '../../src/stats/bootstrap.js';
import { mulberry32 } from '../../src/random.js';
import { median, nearestRank } from '../../src/stats/percentiles.js';

describe('seeded generator', () => {
  it('repeats with the same seed and differs with another', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe('rank counts', () => {
  it('give the median of the drawn values, as sorting them does, with ties and repeated draws', () => {
    const random = mulberry32(7);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random() * 700);
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * 20) - 5);
      const counts = new RankCounts(values);
      for (let round = 0; round < 3; round++) {
        const drawn: number[] = [];
        for (let i = 0; i < n; i++) {
          const j = Math.floor(random() * n);
          counts.add(j);
          drawn.push(values[j]!);
        }
        expect(counts.medianAndReset()).toBe(median(drawn));
      }
    }
  });
});

/** The bootstrap by definition (positive values: median difference and median log ratio): copy each resample and sort it. */
function naivePairedInterval(baseline: number[], candidate: number[], resamples: number, seed: number): number[] {
  const n = baseline.length;
  const random = mulberry32(seed);
  const deltas: number[] = [];
  const relatives: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const d: number[] = [];
    const logs: number[] = [];
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      d.push(candidate[j]! - baseline[j]!);
      logs.push(Math.log(candidate[j]! / baseline[j]!));
    }
    deltas.push(median(d)!);
    relatives.push(Math.exp(median(logs)!) - 1);
  }
  const sort = (xs: number[]) => Float64Array.from(xs).sort();
  return [nearestRank(sort(deltas), 2.5)!, nearestRank(sort(deltas), 97.5)!, nearestRank(sort(relatives), 2.5)!, nearestRank(sort(relatives), 97.5)!];
}

describe('paired median change with a bootstrap interval', () => {
  const opts = { resamples: 2000, confidence: 0.95, seed: 1 };

  it('constant deltas give a degenerate interval at the delta', () => {
    const r = pairedMedianChange([100, 200, 300, 400, 500], [110, 210, 310, 410, 510], opts);
    expect(r).toMatchObject({ n: 5, baselineMedian: 300, candidateMedian: 310, delta: 10, deltaLow: 10, deltaHigh: 10 });
    // relative = exp(median log ratio) - 1: the middle ratio is 310 / 300
    expect(r.relative).toBeCloseTo(10 / 300, 12);
    // Each resample's median ratio is one of 1 + 10 / b: between 10/500 and 10/100.
    expect(r.relativeLow!).toBeGreaterThanOrEqual(10 / 500);
    expect(r.relativeHigh!).toBeLessThanOrEqual(10 / 100 + 1e-12);
  });

  it('hand-computed medians: even n uses the mean of the two middle values', () => {
    const r = pairedMedianChange([1, 2, 3, 4], [2, 4, 6, 8], opts);
    // deltas 1, 2, 3, 4: median 2.5; every ratio 2: relative 1
    expect(r.delta).toBe(2.5);
    expect(r.baselineMedian).toBe(2.5);
    expect(r.candidateMedian).toBe(5);
    expect(r.relative).toBe(1);
    expect(r.deltaLow!).toBeGreaterThanOrEqual(1);
    expect(r.deltaHigh!).toBeLessThanOrEqual(4);
    expect(r.deltaGateLow).toBe(r.deltaLow);
    expect(r.deltaLow!).toBeLessThanOrEqual(2.5);
    expect(r.deltaHigh!).toBeGreaterThanOrEqual(2.5);
  });

  it('gives the very interval of the bootstrap done by definition (copy and sort each resample)', () => {
    const random = mulberry32(11);
    for (const n of [1, 2, 7, 50, 301]) {
      const baseline = Array.from({ length: n }, () => Math.round(1000 + random() * 500));
      const candidate = baseline.map((b) => Math.round(b * (0.8 + random() * 0.6)));
      const change = pairedMedianChange(baseline, candidate, { resamples: 300, confidence: 0.95, seed: 3 });
      expect([change.deltaLow, change.deltaHigh, change.relativeLow, change.relativeHigh]).toEqual(naivePairedInterval(baseline, candidate, 300, 3));
    }
  });

  it('is reproducible with a seed', () => {
    const b = Array.from({ length: 30 }, (_, i) => 1000 + ((i * 37) % 200));
    const c = b.map((x, i) => x * (1 + ((i % 7) - 3) / 20));
    expect(pairedMedianChange(b, c, opts)).toEqual(pairedMedianChange(b, c, opts));
    const other = pairedMedianChange(b, c, { ...opts, seed: 2 });
    expect(other.delta).toBe(pairedMedianChange(b, c, opts).delta);
  });

  it('no pairs: all null; baseline median 0: no relative change', () => {
    expect(pairedMedianChange([], [], opts)).toMatchObject({ n: 0, delta: null, deltaLow: null, relative: null });
    const zero = pairedMedianChange([0, 0, 0], [1, 1, 1], opts);
    expect(zero.relative).toBeNull();
    expect(zero.relativeLow).toBeNull();
    expect(zero.delta).toBe(1);
    expect(zero.deltaLow).toBe(1);
  });

  it('rejects unpaired samples', () => {
    expect(() => pairedMedianChange([1, 2], [1], opts)).toThrow(/same length/);
  });
});
