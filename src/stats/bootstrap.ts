import { mulberry32 } from '../random.js';
import { nearestRank, sortedMedian } from './percentiles.js';
import { normalQuantile } from './sign-flip.js';
import { WindowedMedian } from './windowed-median.js';

export { RankCounts } from './windowed-median.js';

// Clustered paired bootstrap of a metric's change. For n pairs (b_i, c_i), grouped into clusters (a
// question with all its repeats and turns), the statistics are, when every value is positive (latencies)
//   delta    = median(c_i - b_i)                        (in the metric's unit)
//   relative = exp(median(log(c_i / b_i))) - 1          (the median log ratio, as a change)
// and otherwise (a metric with zeros) delta = median(c) - median(b), relative = median(c) / median(b) - 1.
// Both read a true +20% as +20%: the older median(c_i - b_i) / median(b) read +17.6% (the median of the
// differences is not the baseline median's share for skewed latencies). The median log ratio is paired, so
// a question's own speed cancels out of it.
// Each of R resamples draws as many clusters as there are, with replacement, and takes every pair of each
// drawn cluster (repeats and turns of one question are correlated, so they are resampled together: Miller
// 2024, "Adding Error Bars to Evals"); each resample's median is counted near the median only
// (windowed-median.ts), the same value at a fraction of the work. The interval is the percentile
// interval: nearest-rank percentiles (1-level)/2 and (1+level)/2 of the R values; `relativeGateLow` is the
// percentile at the gate's own one-sided level. The detectable change uses the standard deviation of the resampled log ratios (a
// multiplicative change moves the log ratio and leaves its spread). The generator is seeded: the same data
// and seed give the same interval.

export interface BootstrapOptions {
  resamples: number;
  /** e.g. 0.95 */
  confidence: number;
  seed: number;
}

export const DEFAULT_BOOTSTRAP: BootstrapOptions = { resamples: 2000, confidence: 0.95, seed: 1 };

export interface PairedChange {
  n: number;
  /** Clusters (questions or searches) the pairs belong to. */
  clusters: number;
  baselineMedian: number | null;
  candidateMedian: number | null;
  delta: number | null;
  deltaLow: number | null;
  deltaHigh: number | null;
  /** The delta's percentile at the gate's one-sided level (the lower bound the gate judges). */
  deltaGateLow: number | null;
  /** Null when the baseline median is 0 (a relative change is undefined). */
  relative: number | null;
  relativeLow: number | null;
  relativeHigh: number | null;
  relativeGateLow: number | null;
  /** Standard deviation of the resampled log ratios (median log ratio, or log of the ratio of medians); null without one. */
  logRatioSe: number | null;
}

/**
 * `clusterStarts`: offsets of the first pair of each cluster, ascending from 0 (pairs of a cluster are
 * contiguous). Without it every pair is its own cluster. `gateAlpha`: the one-sided level of the gate's
 * lower bound (default: the interval's own, (1 - confidence) / 2).
 */
export function pairedMedianChange(
  baseline: ArrayLike<number>,
  candidate: ArrayLike<number>,
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
  clusterStarts?: ArrayLike<number>,
  gateAlpha = (1 - options.confidence) / 2,
): PairedChange {
  const n = baseline.length;
  if (candidate.length !== n) throw new Error('paired samples must have the same length');
  const starts = clusterStarts ?? identity(n);
  const clusters = n === 0 ? 0 : starts.length;
  const empty: PairedChange = {
    n, clusters, baselineMedian: null, candidateMedian: null, delta: null, deltaLow: null, deltaHigh: null, deltaGateLow: null,
    relative: null, relativeLow: null, relativeHigh: null, relativeGateLow: null, logRatioSe: null,
  };
  if (n === 0) return empty;
  const baselineMedian = sortedMedian(Float64Array.from(baseline).sort())!;
  const candidateMedian = sortedMedian(Float64Array.from(candidate).sort())!;
  // Every value positive (latencies): the paired path, median(c - b) and the median log ratio. Else the
  // ratio of medians, whose resamples carry b and c.
  const paired = allPositive(baseline) && allPositive(candidate);
  const x = paired ? Float64Array.from(baseline, (b, i) => candidate[i]! - b) : Float64Array.from(baseline);
  const y = paired ? Float64Array.from(baseline, (b, i) => Math.log(candidate[i]! / b)) : Float64Array.from(candidate);
  const stat = (mx: number, my: number): { delta: number; relative: number | null; log: number | null } =>
    paired
      ? { delta: mx, relative: Math.exp(my) - 1, log: my }
      : { delta: my - mx, relative: mx === 0 ? null : (my - mx) / Math.abs(mx), log: mx > 0 && my > 0 ? Math.log(my / mx) : null };
  const point = stat(sortedMedian(Float64Array.from(x).sort())!, sortedMedian(Float64Array.from(y).sort())!);
  const { delta, relative } = point;

  const random = mulberry32(options.seed);
  const byX = new WindowedMedian(x, starts);
  const byY = new WindowedMedian(y, starts);
  const draws = new Int32Array(clusters);
  const deltaStats = new Float64Array(options.resamples);
  const relativeStats = new Float64Array(options.resamples);
  const logStats = new Float64Array(options.resamples);
  let relativeCount = 0;
  let logCount = 0;
  for (let r = 0; r < options.resamples; r++) {
    for (let k = 0; k < clusters; k++) {
      const c = Math.floor(random() * clusters);
      draws[k] = c;
      byX.addCluster(c);
      byY.addCluster(c);
    }
    const one = stat(byX.medianAndReset(draws, clusters, starts), byY.medianAndReset(draws, clusters, starts));
    deltaStats[r] = one.delta;
    if (one.relative !== null) relativeStats[relativeCount++] = one.relative;
    if (one.log !== null) logStats[logCount++] = one.log;
  }
  const lowP = ((1 - options.confidence) / 2) * 100;
  const highP = ((1 + options.confidence) / 2) * 100;
  const rel = relativeStats.subarray(0, relativeCount);
  const withRelative = relative !== null && relativeCount > 0;
  const logRatioSe = point.log !== null && logCount > 1 ? standardDeviation(logStats.subarray(0, logCount)) : null;
  deltaStats.sort();
  rel.sort();
  return {
    n,
    clusters,
    baselineMedian,
    candidateMedian,
    delta,
    deltaLow: nearestRank(deltaStats, lowP),
    deltaHigh: nearestRank(deltaStats, highP),
    deltaGateLow: nearestRank(deltaStats, gateAlpha * 100),
    relative,
    relativeLow: withRelative ? nearestRank(rel, lowP) : null,
    relativeHigh: withRelative ? nearestRank(rel, highP) : null,
    relativeGateLow: withRelative ? nearestRank(rel, gateAlpha * 100) : null,
    logRatioSe,
  };
}

/**
 * The smallest true relative increase (every item slower by that factor) the metric gate calls regressed
 * 80% of the time, on the log scale where such a change shifts the log ratio and leaves its spread:
 * beyond the threshold at the interval's level, and beyond 0 at the gate's `level`:
 * max((1 + threshold) exp((z(1 - a) + z(0.8)) se), exp((z(1 - level) + z(0.8)) se)) - 1, a = (1 - confidence) / 2,
 * se the resampled log ratios' standard deviation.
 */
export function detectableIncrease(change: PairedChange, threshold: number, level: number, confidence: number): number | null {
  if (change.logRatioSe === null) return null;
  const se = change.logRatioSe;
  const z80 = normalQuantile(0.8);
  return Math.max((1 + threshold) * Math.exp((normalQuantile((1 + confidence) / 2) + z80) * se), Math.exp((normalQuantile(1 - level) + z80) * se)) - 1;
}

function allPositive(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!(values[i]! > 0)) return false;
  return true;
}

function identity(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

/** Sample standard deviation (n - 1); 0 for fewer than two values. */
export function standardDeviation(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return 0;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i]! - mean) ** 2;
  return Math.sqrt(ss / (n - 1));
}
