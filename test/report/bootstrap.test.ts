import { describe, expect, it } from 'vitest';
import { pairedMedianChange, select, selectMedian } from '../../src/report/compare/bootstrap.js';
import { mulberry32 } from '../../src/random.js';
import { median } from '../../src/report/percentiles.js';

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

describe('selection', () => {
  it('finds the k-th smallest and the median like sorting does', () => {
    const random = mulberry32(7);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random() * 40);
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * 10));
      const sorted = Float64Array.from(values).sort();
      const k = Math.floor(random() * n);
      expect(select(Float64Array.from(values), n, k)).toBe(sorted[k]);
      expect(selectMedian(Float64Array.from(values), n)).toBe(median(values));
    }
  });
});

describe('paired median change with a bootstrap interval', () => {
  const opts = { resamples: 2000, confidence: 0.95, seed: 1 };

  it('constant deltas give a degenerate interval at the delta', () => {
    const r = pairedMedianChange([100, 200, 300, 400, 500], [110, 210, 310, 410, 510], opts);
    expect(r).toMatchObject({ n: 5, baselineMedian: 300, candidateMedian: 310, delta: 10, deltaLow: 10, deltaHigh: 10 });
    // relative = median delta / median baseline = 10 / 300
    expect(r.relative).toBeCloseTo(10 / 300, 12);
    // Each resample's relative is 10 / (median of resampled baselines): between 10/500 and 10/100.
    expect(r.relativeLow!).toBeGreaterThanOrEqual(10 / 500);
    expect(r.relativeHigh!).toBeLessThanOrEqual(10 / 100);
  });

  it('hand-computed medians: even n uses the mean of the two middle values', () => {
    const r = pairedMedianChange([1, 2, 3, 4], [2, 4, 6, 8], opts);
    // deltas 1, 2, 3, 4 -> median 2.5; baseline median 2.5; relative 1
    expect(r.delta).toBe(2.5);
    expect(r.baselineMedian).toBe(2.5);
    expect(r.candidateMedian).toBe(5);
    expect(r.relative).toBe(1);
    expect(r.deltaLow!).toBeGreaterThanOrEqual(1);
    expect(r.deltaHigh!).toBeLessThanOrEqual(4);
    expect(r.deltaLow!).toBeLessThanOrEqual(2.5);
    expect(r.deltaHigh!).toBeGreaterThanOrEqual(2.5);
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
