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
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  return sorted[Math.min(rank, n) - 1]!;
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
