import { describe, expect, it } from 'vitest';
import { pairedMedianChange } from '../../src/stats/bootstrap.js';
import { WindowedMedian } from '../../src/stats/windowed-median.js';
import { mulberry32 } from '../../src/random.js';
import { median, nearestRank } from '../../src/stats/percentiles.js';

/** Clusters of 1-5 pairs: the offset of each cluster's first pair. */
function clusterStarts(n: number, random: () => number): number[] {
  const starts: number[] = [];
  for (let i = 0; i < n; i += 1 + Math.floor(random() * 5)) starts.push(i);
  return starts;
}

/** `rounds` resamples of whole clusters: the windowed median of each must be the median of the values drawn. */
function expectResampledMedians(windowed: WindowedMedian, values: number[], starts: number[], rounds: number, random: () => number): void {
  const draws = new Int32Array(starts.length);
  for (let r = 0; r < rounds; r++) {
    const drawn: number[] = [];
    for (let k = 0; k < starts.length; k++) {
      const c = Math.floor(random() * starts.length);
      draws[k] = c;
      windowed.addCluster(c);
      for (let j = starts[c]!; j < (starts[c + 1] ?? values.length); j++) drawn.push(values[j]!);
    }
    expect(windowed.medianAndReset(draws, starts.length, starts)).toBe(median(drawn));
  }
}

/** The clustered bootstrap by definition: each resample's pairs copied and sorted (positive values: median difference and median log ratio). */
function naiveClustered(b: number[], c: number[], starts: number[], resamples: number, seed: number) {
  const random = mulberry32(seed);
  const deltas: number[] = [];
  const relatives: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const d: number[] = [];
    const logs: number[] = [];
    for (let k = 0; k < starts.length; k++) {
      const cluster = Math.floor(random() * starts.length);
      for (let j = starts[cluster]!; j < (starts[cluster + 1] ?? b.length); j++) {
        d.push(c[j]! - b[j]!);
        logs.push(Math.log(c[j]! / b[j]!));
      }
    }
    deltas.push(median(d)!);
    relatives.push(Math.exp(median(logs)!) - 1);
  }
  const ds = Float64Array.from(deltas).sort();
  const rs = Float64Array.from(relatives).sort();
  return { deltaLow: nearestRank(ds, 2.5), deltaHigh: nearestRank(ds, 97.5), deltaGateLow: nearestRank(ds, 5), relativeLow: nearestRank(rs, 2.5), relativeHigh: nearestRank(rs, 97.5), relativeGateLow: nearestRank(rs, 5) };
}

describe('windowed median of cluster resamples', () => {
  it('gives the clustered bootstrap interval done by definition, at sizes where the window is a small part of the pairs', () => {
    const random = mulberry32(5);
    for (const n of [3, 40, 5000]) {
      // Whole milliseconds: many ties, as stored latencies have.
      const b = Array.from({ length: n }, () => Math.round(800 + random() * 900));
      const c = b.map((x) => Math.round(x * (0.7 + random() * 0.8)));
      const starts = clusterStarts(n, random);
      const change = pairedMedianChange(b, c, { resamples: 200, confidence: 0.95, seed: 9 }, starts, 0.05);
      expect(change).toMatchObject(naiveClustered(b, c, starts, 200, 9));
    }
  });

  it('counts a resample in full when its median falls outside the window: the same medians', () => {
    const random = mulberry32(8);
    const n = 3000;
    const values = Array.from({ length: n }, () => Math.floor(random() * 400));
    const starts = clusterStarts(n, random);
    // A window of no width beyond the largest cluster: most resamples' medians fall outside it.
    const windowed = new WindowedMedian(values, starts, 0);
    expectResampledMedians(windowed, values, starts, 50, random);
    expect(windowed.fallbacks).toBeGreaterThan(0);
  });

  it('counts tied values of a cluster together: the same medians when most values tie, in clusters of up to 60', () => {
    const random = mulberry32(12);
    const starts: number[] = [];
    for (let i = 0; i < 6000; i += 1 + Math.floor(random() * 60)) starts.push(i);
    const n = starts.at(-1)! + 7;
    // Small counts (tool calls), one in four a fraction: most values tie, within a cluster and across.
    const values = Array.from({ length: n }, () => (random() < 0.25 ? random() : Math.floor(random() * 4)));
    for (const width of [8, 0]) {
      expectResampledMedians(new WindowedMedian(values, starts, width), values, starts, 40, random);
    }
  });
});
