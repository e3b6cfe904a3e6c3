// Descriptive statistics used by every report. Definitions (docs/statistics.md carries the same):
// - percentile p of n values: nearest rank. Sort ascending; the value at rank ceil(p/100 * n) (1-based),
//   rank at least 1. It is always an observed value: p50 of [1, 2, 3, 4] is 2, p90 of 10 values the 9th.
// - median (used for paired deltas in comparisons): the middle value, or the mean of the two middle values
//   when n is even: median of [1, 2, 3, 4] is 2.5.
// - mean: arithmetic mean. Empty input gives null everywhere (a report shows an empty cell, never 0).

/** Nearest-rank percentile of values already sorted ascending; null when empty. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  return sorted[rankIndex(n, p)]!;
}

/** The 0-based rank nearestRank reads for percentile `p` of `n` values (n > 0). */
function rankIndex(n: number, p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, got ${p}`);
  return Math.min(Math.max(1, Math.ceil((p / 100) * n - 1e-9)), n) - 1;
}

/**
 * Nearest-rank percentiles `ps` of `values` (no NaN), exactly what sorting and nearestRank give, found by
 * selection (linear on average, not a sort): `values` is reordered. Summaries take three percentiles of
 * every group, where a sort was most of their time.
 */
export function selectPercentiles(values: Float64Array, ps: readonly number[]): Array<number | null> {
  const n = values.length;
  if (n === 0) return ps.map(() => null);
  const ks = ps.map((p) => rankIndex(n, p));
  // Largest rank first: each selection leaves the smaller values before it, where the next one looks.
  const order = ks.map((_, i) => i).sort((a, b) => ks[b]! - ks[a]!);
  const out: Array<number | null> = new Array<number | null>(ps.length);
  let hi = n;
  for (const i of order) {
    const k = ks[i]!;
    select(values, k, 0, hi);
    out[i] = signedZero(values, k);
    hi = k + 1;
  }
  return out;
}

/** Leaves the k-th smallest of values[lo, hi) at k, the values before it no larger and those after no smaller. */
function select(a: Float64Array, k: number, lo: number, hi: number): void {
  let right = hi - 1;
  // Median-of-three pivots; past this many rounds (an input built against them), sort what is left.
  for (let rounds = 0; right > lo; rounds++) {
    if (rounds === 64) {
      a.subarray(lo, right + 1).sort();
      return;
    }
    const mid = (lo + right) >>> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[right]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    // Now [lo, j] <= pivot, [i, right] >= pivot, and anything between equals it.
    if (k <= j) right = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/**
 * The value at rank k, with the sign a sort would give a zero: comparisons treat -0 and 0 as equal, a
 * sort puts every -0 before every 0.
 */
function signedZero(a: Float64Array, k: number): number {
  const v = a[k]!;
  if (v !== 0) return v;
  let below = 0;
  let negativeZeros = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x < 0) below++;
    else if (x === 0 && Object.is(x, -0)) negativeZeros++;
  }
  return k >= below && k < below + negativeZeros ? -0 : 0;
}

/** Nearest-rank percentiles of unsorted values (copied, not modified). */
export function percentiles(values: ArrayLike<number>, ps: readonly number[]): Array<number | null> {
  const sorted = Float64Array.from(values).sort();
  return ps.map((p) => nearestRank(sorted, p));
}

export function percentile(values: ArrayLike<number>, p: number): number | null {
  return percentiles(values, [p])[0]!;
}

/** Median of values already sorted ascending (mean of the two middle ones when n is even). */
export function sortedMedian(sorted: ArrayLike<number>): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function median(values: ArrayLike<number>): number | null {
  return sortedMedian(Float64Array.from(values).sort());
}

export function sum(values: ArrayLike<number>): number | null {
  if (values.length === 0) return null;
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i]!;
  return total;
}

export function mean(values: ArrayLike<number>): number | null {
  const total = sum(values);
  return total === null ? null : total / values.length;
}

/** Running count, sum and mean without keeping the values. */
export class RunningSum {
  count = 0;
  total = 0;

  add(value: number | null | undefined): void {
    if (value === null || value === undefined || Number.isNaN(value)) return;
    this.count++;
    this.total += value;
  }

  get sum(): number | null {
    return this.count === 0 ? null : this.total;
  }

  get mean(): number | null {
    return this.count === 0 ? null : this.total / this.count;
  }
}

/** A growable array of doubles: 8 bytes a value, no per-value object. */
export class NumberColumn {
  private data: Float64Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Float64Array(Math.max(1, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** The values, sorted ascending (a view: valid until the next push). */
  sorted(): Float64Array {
    return this.data.subarray(0, this.length).sort();
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Rounds for display in reports (CSV keeps full precision). */
export function round(value: number | null, digits = 1): number | null {
  if (value === null) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
