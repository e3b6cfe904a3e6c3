// The median of a cluster resample, counting only the values near the median. A resample's median lies
// within a few standard deviations of the whole sample's median rank, so each drawn cluster adds its values
// below a window of ranks as one count and only its values inside the window, as (distinct value, how many)
// steps: per resample, one step per draw plus the few distinct values in the window, instead of one per
// value (tied values, common in counts such as tool calls or in unchanged metrics, cost one step). When a
// resample's median falls outside the window it is counted in full from its draws: the median is always
// exactly the one counting every value gives.

/** Half-widths of the window, in standard deviations of a resample's count below the median. */
const WIDTH_SDS = 8;

export class WindowedMedian {
  /** The distinct values inside the window, ascending: a resample's counts are kept per distinct value. */
  private readonly distinct: Float64Array;
  /** Per cluster: its values ranked below the window, its values inside it, and where its (distinct value, multiplicity) steps start. */
  private readonly below: Int32Array;
  private readonly insideSize: Int32Array;
  private readonly insideStart: Int32Array;
  private readonly insideValue: Int32Array;
  private readonly insideTimes: Int32Array;
  private readonly sizes: Int32Array;
  private readonly counts: Int32Array;
  /** Every value counted, for a resample whose median falls outside the window. */
  private readonly full: RankCounts;
  private belowDrawn = 0;
  private insideDrawn = 0;
  private total = 0;
  /** Resamples whose median fell outside the window (counted in full). */
  fallbacks = 0;

  /** `starts`: the first value of each cluster, ascending from 0. `widthSds` narrows the window (tests). */
  constructor(values: ArrayLike<number>, starts: ArrayLike<number>, widthSds = WIDTH_SDS) {
    const n = values.length;
    const clusters = starts.length;
    this.full = new RankCounts(values);
    const { rank, sorted } = this.full;
    this.sizes = new Int32Array(clusters);
    let largest = 0;
    for (let c = 0; c < clusters; c++) {
      this.sizes[c] = (c + 1 < clusters ? starts[c + 1]! : n) - starts[c]!;
      largest = Math.max(largest, this.sizes[c]!);
    }
    const half = Math.ceil(widthSds * belowSd(rank, starts, this.sizes, n >> 1)) + 2 * largest + 8;
    const lo = n === 0 ? 0 : lowerBound(sorted, sorted[Math.max(0, (n >> 1) - half)]!);
    const hi = Math.min(n, (n >> 1) + half + 1);
    // A rank is the first index of its value, so the window's distinct values are the ranks where the value changes.
    const denseOf = new Int32Array(Math.max(0, hi - lo));
    const distinct: number[] = [];
    for (let r = lo; r < hi; r++) {
      if (r === lo || sorted[r] !== sorted[r - 1]) distinct.push(sorted[r]!);
      denseOf[r - lo] = distinct.length - 1;
    }
    this.distinct = Float64Array.from(distinct);
    this.below = new Int32Array(clusters);
    this.insideSize = new Int32Array(clusters);
    this.insideStart = new Int32Array(clusters + 1);
    const steps = { value: [] as number[], times: [] as number[] };
    const mine: number[] = [];
    for (let c = 0; c < clusters; c++) {
      this.insideStart[c] = steps.value.length;
      mine.length = 0;
      for (let j = starts[c]!; j < starts[c]! + this.sizes[c]!; j++) {
        if (rank[j]! < lo) this.below[c]!++;
        else if (rank[j]! < hi) mine.push(denseOf[rank[j]! - lo]!);
      }
      this.insideSize[c] = mine.length;
      mine.sort((a, b) => a - b);
      for (let k = 0; k < mine.length; k++) {
        if (k > 0 && mine[k] === mine[k - 1]) steps.times[steps.times.length - 1]!++;
        else {
          steps.value.push(mine[k]!);
          steps.times.push(1);
        }
      }
    }
    this.insideStart[clusters] = steps.value.length;
    this.insideValue = Int32Array.from(steps.value);
    this.insideTimes = Int32Array.from(steps.times);
    this.counts = new Int32Array(Math.max(1, distinct.length));
  }

  addCluster(c: number): void {
    this.total += this.sizes[c]!;
    this.belowDrawn += this.below[c]!;
    const end = this.insideStart[c + 1]!;
    for (let k = this.insideStart[c]!; k < end; k++) this.counts[this.insideValue[k]!]! += this.insideTimes[k]!;
    this.insideDrawn += this.insideSize[c]!;
  }

  /** The median of the clusters added since the last call; `draws` lists them (read only when the window misses). */
  medianAndReset(draws: ArrayLike<number>, drawCount: number, starts: ArrayLike<number>): number {
    const mid = this.total >> 1;
    const even = this.total % 2 === 0;
    const first = even ? mid - 1 : mid;
    let median: number;
    if (first >= this.belowDrawn && mid < this.belowDrawn + this.insideDrawn) {
      const upper = this.kth(mid - this.belowDrawn);
      median = even ? (this.kth(first - this.belowDrawn) + upper) / 2 : upper;
    } else {
      this.fallbacks++;
      for (let k = 0; k < drawCount; k++) {
        const c = draws[k]!;
        for (let j = starts[c]!; j < starts[c]! + this.sizes[c]!; j++) this.full.add(j);
      }
      median = this.full.medianAndReset();
    }
    this.counts.fill(0);
    this.belowDrawn = 0;
    this.insideDrawn = 0;
    this.total = 0;
    return median;
  }

  private kth(k: number): number {
    let r = 0;
    let seen = 0;
    while (seen + this.counts[r]! <= k) seen += this.counts[r++]!;
    return this.distinct[r]!;
  }
}

/** Ranks per block of the coarse counts: a median is found by walking n/BLOCK blocks, then one block. */
const BLOCK_BITS = 8;

/**
 * A resample's counts by rank: each value drawn adds one to its rank, and the median is read
 * off the cumulative counts. Exactly the median of the drawn values, without copying or reordering them:
 * O(n) per resample with a small constant, which matters at hundreds of thousands of pairs.
 */
export class RankCounts {
  readonly sorted: Float64Array;
  /** Rank of values[i]: the first index of its value in `sorted` (equal values share a rank). */
  readonly rank: Int32Array;
  private readonly counts: Int32Array;
  private readonly blocks: Int32Array;
  private total = 0;

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
    this.total++;
  }

  /** The median of the values added (a cluster resample adds about as many as there are), then empties the counts. */
  medianAndReset(): number {
    const n = this.total;
    const mid = n >> 1;
    const upper = this.kth(mid);
    const median = n % 2 === 1 ? upper : (this.kth(mid - 1) + upper) / 2;
    this.counts.fill(0);
    this.blocks.fill(0);
    this.total = 0;
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

/** The first index of `value` in `sorted` (equal values share it as their rank). */
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

/** Standard deviation over resamples of (values drawn below rank m) - (values drawn) / 2: how far a resample's median rank strays. */
function belowSd(rank: Int32Array, starts: ArrayLike<number>, sizes: Int32Array, m: number): number {
  const clusters = sizes.length;
  if (clusters === 0) return 0;
  let sum = 0;
  let squares = 0;
  for (let c = 0; c < clusters; c++) {
    let d = -sizes[c]! / 2;
    for (let j = starts[c]!; j < starts[c]! + sizes[c]!; j++) if (rank[j]! < m) d++;
    sum += d;
    squares += d * d;
  }
  const mean = sum / clusters;
  return Math.sqrt(clusters * Math.max(0, squares / clusters - mean * mean));
}
