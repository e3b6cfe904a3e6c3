import { mulberry32 } from '../../random.js';
import { nearestRank, sortedMedian } from '../percentiles.js';

// Paired bootstrap of a median change. For n pairs (b_i, c_i) the statistics are
//   delta    = median(c_i - b_i)                       (median paired delta, in the metric's unit)
//   relative = median(c_i - b_i) / median(b_i)         (that delta as a fraction of the baseline median)
// Each of R resamples draws n pairs with replacement (pairs stay together) and recomputes both; the
// confidence interval is the percentile interval: nearest-rank percentiles (1-level)/2 and (1+level)/2 of
// the R values. The generator is seeded, so the same data and seed give the same interval.

/** The k-th smallest (0-based) of values[0..n), reordering them in place (Hoare's quickselect). */
export function select(values: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** Median of values[0..n) by selection (reorders them). */
export function selectMedian(values: Float64Array, n: number): number {
  const mid = n >> 1;
  if (n % 2 === 1) return select(values, n, mid);
  const upper = select(values, n, mid);
  // After selecting `mid`, everything before it is <= upper: the lower middle is their maximum.
  let lower = -Infinity;
  for (let i = 0; i < mid; i++) if (values[i]! > lower) lower = values[i]!;
  return (lower + upper) / 2;
}

export interface BootstrapOptions {
  resamples: number;
  /** e.g. 0.95 */
  confidence: number;
  seed: number;
}

export const DEFAULT_BOOTSTRAP: BootstrapOptions = { resamples: 2000, confidence: 0.95, seed: 1 };

export interface PairedChange {
  n: number;
  baselineMedian: number | null;
  candidateMedian: number | null;
  delta: number | null;
  deltaLow: number | null;
  deltaHigh: number | null;
  /** Null when the baseline median is 0 (a relative change is undefined). */
  relative: number | null;
  relativeLow: number | null;
  relativeHigh: number | null;
}

export function pairedMedianChange(baseline: ArrayLike<number>, candidate: ArrayLike<number>, options: BootstrapOptions = DEFAULT_BOOTSTRAP): PairedChange {
  const n = baseline.length;
  if (candidate.length !== n) throw new Error('paired samples must have the same length');
  const empty: PairedChange = { n, baselineMedian: null, candidateMedian: null, delta: null, deltaLow: null, deltaHigh: null, relative: null, relativeLow: null, relativeHigh: null };
  if (n === 0) return empty;
  const deltas = new Float64Array(n);
  for (let i = 0; i < n; i++) deltas[i] = candidate[i]! - baseline[i]!;
  const baselineMedian = sortedMedian(Float64Array.from(baseline).sort())!;
  const candidateMedian = sortedMedian(Float64Array.from(candidate).sort())!;
  const delta = sortedMedian(Float64Array.from(deltas).sort())!;
  const relative = baselineMedian === 0 ? null : delta / Math.abs(baselineMedian);

  const random = mulberry32(options.seed);
  const scratchDelta = new Float64Array(n);
  const scratchBase = new Float64Array(n);
  const deltaStats = new Float64Array(options.resamples);
  const relativeStats = new Float64Array(options.resamples);
  let relativeCount = 0;
  for (let r = 0; r < options.resamples; r++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      scratchDelta[i] = deltas[j]!;
      scratchBase[i] = baseline[j]!;
    }
    const d = selectMedian(scratchDelta, n);
    const b = selectMedian(scratchBase, n);
    deltaStats[r] = d;
    if (b !== 0) relativeStats[relativeCount++] = d / Math.abs(b);
  }
  const lowP = ((1 - options.confidence) / 2) * 100;
  const highP = ((1 + options.confidence) / 2) * 100;
  deltaStats.sort();
  const rel = relativeStats.subarray(0, relativeCount).sort();
  const withRelative = relative !== null && relativeCount > 0;
  return {
    n,
    baselineMedian,
    candidateMedian,
    delta,
    deltaLow: nearestRank(deltaStats, lowP),
    deltaHigh: nearestRank(deltaStats, highP),
    relative,
    relativeLow: withRelative ? nearestRank(rel, lowP) : null,
    relativeHigh: withRelative ? nearestRank(rel, highP) : null,
  };
}
