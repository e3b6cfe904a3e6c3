import { mulberry32 } from '../../random.js';
import { nearestRank, sortedMedian } from '../percentiles.js';

// Paired bootstrap of a median change. For n pairs (b_i, c_i) the statistics are
//   delta    = median(c_i - b_i)                       (median paired delta, in the metric's unit)
//   relative = median(c_i - b_i) / median(b_i)         (that delta as a fraction of the baseline median)
// Each of R resamples draws n pairs with replacement (pairs stay together) and recomputes both; the
// confidence interval is the percentile interval: nearest-rank percentiles (1-level)/2 and (1+level)/2 of
// the R values. The generator is seeded, so the same data and seed give the same interval.

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
  const byDelta = new RankCounts(deltas);
  const byBase = new RankCounts(baseline);
  const deltaStats = new Float64Array(options.resamples);
  const relativeStats = new Float64Array(options.resamples);
  let relativeCount = 0;
  for (let r = 0; r < options.resamples; r++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      byDelta.add(j);
      byBase.add(j);
    }
    const d = byDelta.medianAndReset();
    const b = byBase.medianAndReset();
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

/** Ranks per block of the coarse counts: a median is found by walking n/BLOCK blocks, then one block. */
const BLOCK_BITS = 8;

/**
 * A resample's counts by rank: each draw adds one to the rank of the drawn value, and the median is read
 * off the cumulative counts. Exactly the median of the drawn values, without copying or reordering them:
 * O(n) per resample with a small constant, which matters at hundreds of thousands of pairs.
 */
export class RankCounts {
  private readonly sorted: Float64Array;
  /** Rank of values[i]: the first index of its value in `sorted` (equal values share a rank). */
  private readonly rank: Int32Array;
  private readonly counts: Int32Array;
  private readonly blocks: Int32Array;

  constructor(values: ArrayLike<number>) {
    const n = values.length;
    this.sorted = Float64Array.from(values).sort();
    this.rank = new Int32Array(n);
    for (let i = 0; i < n; i++) this.rank[i] = lowerBound(this.sorted, values[i]!);
    this.counts = new Int32Array(n);
    this.blocks = new Int32Array((n >> BLOCK_BITS) + 1);
  }

  add(i: number): void {
    const r = this.rank[i]!;
    this.counts[r]!++;
    this.blocks[r >> BLOCK_BITS]!++;
  }

  /** The median of the values added (as many as there are values), then empties the counts. */
  medianAndReset(): number {
    const n = this.sorted.length;
    const mid = n >> 1;
    const upper = this.kth(mid);
    const median = n % 2 === 1 ? upper : (this.kth(mid - 1) + upper) / 2;
    this.counts.fill(0);
    this.blocks.fill(0);
    return median;
  }

  /** The k-th smallest (0-based) value added. */
  private kth(k: number): number {
    let seen = 0;
    let block = 0;
    while (seen + this.blocks[block]! <= k) seen += this.blocks[block++]!;
    let r = block << BLOCK_BITS;
    while (seen + this.counts[r]! <= k) seen += this.counts[r++]!;
    return this.sorted[r]!;
  }
}

function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
