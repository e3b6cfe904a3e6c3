import { describe, expect, it } from 'vitest';
import { NumberColumn, RunningSum, mean, median, nearestRank, percentile, percentiles, selectPercentiles, sortedMedian, sum } from '../../src/stats/percentiles.js';

describe('nearest-rank percentiles', () => {
  it('picks the value at rank ceil(p/100 * n)', () => {
    const ten = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    // n = 10: p50 -> rank 5, p90 -> rank 9 (0.9 * 10 is 9.000000000000002 in floating point), p99 -> rank 10.
    expect(percentiles(ten, [50, 90, 99])).toEqual([50, 90, 100]);
    expect(percentile(ten, 91)).toBe(100);
    expect(percentile(ten, 0)).toBe(10);
    expect(percentile(ten, 100)).toBe(100);
  });

  it('works on unsorted input without changing it, and returns observed values', () => {
    const values = [4, 1, 3, 2];
    expect(percentile(values, 50)).toBe(2); // rank ceil(2) = 2
    expect(percentile(values, 51)).toBe(3); // rank ceil(2.04) = 3
    expect(percentile(values, 75)).toBe(3);
    expect(percentile(values, 76)).toBe(4);
    expect(values).toEqual([4, 1, 3, 2]);
  });

  it('gives the single value for one element and null for none', () => {
    expect(percentiles([7], [50, 90, 99])).toEqual([7, 7, 7]);
    expect(percentile([], 50)).toBeNull();
    expect(nearestRank(new Float64Array(), 90)).toBeNull();
  });

  it('rejects a percentile outside 0..100', () => {
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
  });

  it('sorts numerically, not as text', () => {
    expect(percentile([100, 9, 20], 50)).toBe(20);
  });
});

describe('percentiles by selection', () => {
  /** A small deterministic generator (a linear congruential one): the same cases every run. */
  function random(seed: number): () => number {
    let x = seed >>> 0;
    return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  }

  it('gives exactly what sorting gives, over shapes that trouble a quickselect', () => {
    const next = random(14);
    const ps = [0, 1, 50, 90, 99, 99.9, 100];
    const shapes: Array<(n: number) => number[]> = [
      (n) => Array.from({ length: n }, () => Math.round(next() * 1e6) / 100),
      (n) => Array.from({ length: n }, () => Math.floor(next() * 3)), // few distinct values
      (n) => Array.from({ length: n }, (_, i) => i), // ascending
      (n) => Array.from({ length: n }, (_, i) => n - i), // descending
      (n) => Array.from({ length: n }, (_, i) => (i % 50) * 7), // sorted runs, as a group's combinations are gathered
      (n) => Array.from({ length: n }, () => 5), // all equal
      (n) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? i : n - i)), // organ pipe
      (n) => Array.from({ length: n }, () => [0, -0, -1, 1][Math.floor(next() * 4)]!), // signed zeros
    ];
    for (const shape of shapes) {
      for (const n of [1, 2, 3, 10, 101, 5_000]) {
        const values = shape(n);
        const sorted = Float64Array.from(values).sort();
        const selected = selectPercentiles(Float64Array.from(values), ps);
        // toEqual tells -0 from 0, as a sort does.
        expect(selected, `${shape.toString()} n=${n}`).toEqual(ps.map((p) => nearestRank(sorted, p)));
      }
    }
  });

  it('gives null for no values and rejects a percentile outside 0..100', () => {
    expect(selectPercentiles(new Float64Array(), [50, 90])).toEqual([null, null]);
    expect(() => selectPercentiles(Float64Array.of(1), [101])).toThrow(RangeError);
  });
});

describe('median, mean, sum', () => {
  it('median is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([-5, 5])).toBe(0);
    expect(median([])).toBeNull();
    expect(sortedMedian([1, 2, 3, 10])).toBe(2.5);
  });

  it('mean and sum; null when empty', () => {
    expect(sum([1, 2, 3.5])).toBe(6.5);
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(sum([])).toBeNull();
    expect(mean([])).toBeNull();
  });

  it('RunningSum skips absent values', () => {
    const r = new RunningSum();
    expect(r.sum).toBeNull();
    expect(r.mean).toBeNull();
    for (const v of [2, null, 4, undefined, Number.NaN, 0]) r.add(v);
    expect(r.count).toBe(3);
    expect(r.sum).toBe(6);
    expect(r.mean).toBe(2);
  });

  it('NumberColumn grows and sorts', () => {
    const c = new NumberColumn(1);
    for (const v of [5, 3, 9, 1, 7]) c.push(v);
    expect(c.length).toBe(5);
    expect([...c.values()]).toEqual([5, 3, 9, 1, 7]);
    expect([...c.sorted()]).toEqual([1, 3, 5, 7, 9]);
  });
});
