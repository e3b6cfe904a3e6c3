import { fnv1a, mulberry32 } from '../random.js';
import { mean as meanOf } from './percentiles.js';
import { normalQuantile } from './sign-flip.js';

// Change points in a nightly series: binary segmentation of the standardized mean-shift (CUSUM) statistic,
// each split kept only when a permutation test finds it (docs/statistics.md, "Change points"); the segment
// at the series' newest end is also tested for a step in its last nights and for a creep. Under no
// change the nights are exchangeable, so the permutation test holds its level whatever the noise's shape;
// E-divisive (Matteson & James 2014; MongoDB, Apache Otava) tests its splits the same way, and its energy
// statistic at alpha = 2 is this one squared.

export interface ChangePointOptions {
  seed: number;
  /** Permutations per test (199: the smallest p-value is 0.005). */
  permutations?: number;
  /** Each split's permutation test level. */
  alpha?: number;
  /** Fewest nights on either side of a change point, except at the series' recent end (`recent`). */
  minSegment?: number;
  /** The last m nights (m = 1..recent) are also tested against all before them, so that a change is seen from its first night. */
  recent?: number;
  /** A creep starting within the last trendWindow nights is also tested for. */
  trendWindow?: number;
  confidence?: number;
  /**
   * Stop a test's shuffles once its p-value can no longer come under alpha (default true). The decision is
   * the same either way; false runs every shuffle (to check that in tests, or to time the full tests).
   */
  earlyStop?: boolean;
}

export const CHANGE_POINT_DEFAULTS = { permutations: 199, alpha: 0.05, minSegment: 3, recent: 3, trendWindow: 10, confidence: 0.95, earlyStop: true } as const;

/** Nights the method needs: a change point needs minSegment nights on either side, and a permutation test needs room. */
export function nightsNeeded(minSegment: number = CHANGE_POINT_DEFAULTS.minSegment): number {
  return Math.max(8, 2 * minSegment + 2);
}

export interface ChangePoint {
  /** Index (in the series given, nulls included) of the first value after the change. */
  index: number;
  /** Means of the segments before and after it (up to the neighbouring change points). */
  before: number;
  after: number;
  /** after - before, with its interval: pooled within-segment spread, Student t (location taken as known). */
  size: number;
  low: number;
  high: number;
  /** The permutation test's p-value of the split, when it was found. */
  p: number;
}

export interface ChangePointResult {
  changePoints: ChangePoint[];
  /** Values that were not null. */
  nights: number;
  /** Set when there were too few nights to look: nightsNeeded(). */
  tooFew?: { have: number; need: number };
}

/** Change points of `series` (null: a night without this figure, skipped), oldest first. */
export function detectChangePoints(series: ReadonlyArray<number | null>, options: ChangePointOptions): ChangePointResult {
  const o = { ...CHANGE_POINT_DEFAULTS, ...options };
  const positions: number[] = [];
  const values: number[] = [];
  series.forEach((v, i) => {
    if (v !== null && Number.isFinite(v)) {
      positions.push(i);
      values.push(v);
    }
  });
  const need = nightsNeeded(o.minSegment);
  if (values.length < need) return { changePoints: [], nights: values.length, tooFew: { have: values.length, need } };
  const splits: Array<{ at: number; p: number }> = [];
  const pending: Array<[number, number]> = [[0, values.length]];
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    const part = values.slice(from, to);
    const rng = segmentRng(o.seed, from, to, values.length);
    const split = to === values.length && o.recent > 0 ? testSplitAtEnd(part, o, rng) : testSplit(part, o, rng);
    if (split === null || split.p > o.alpha) continue;
    splits.push({ at: from + split.at, p: split.p });
    pending.push([from, from + split.at], [from + split.at, to]);
  }
  splits.sort((a, b) => a.at - b.at);
  return { changePoints: sizes(values, splits, o.confidence).map((c) => ({ ...c, index: positions[c.index]! })), nights: values.length };
}

/**
 * Each segment's shuffles draw from a generator of their own, seeded by the series' seed and the segment's
 * bounds, so that a test's result does not depend on how many draws the tests before it took (they stop
 * early); the whole series' from the series' seed itself, as before segments had their own.
 */
function segmentRng(seed: number, from: number, to: number, n: number): () => number {
  return mulberry32(from === 0 && to === n ? seed : fnv1a([seed, from, to]));
}

/** The best split of `x` and its permutation p-value; null when x is too short or constant. */
function testSplit(x: number[], o: Required<ChangePointOptions>, rng: () => number): { at: number; p: number } | null {
  const { minSegment, permutations } = o;
  if (x.length < 2 * minSegment) return null;
  const mean = meanOf(x) ?? 0;
  const observed = maxStatistic(x, minSegment, mean);
  if (observed.value <= 1e-12 * (Math.abs(x[0]!) + 1)) return null;
  const shuffled = x.slice();
  // Stop as soon as the p-value cannot come under alpha (Besag & Clifford 1991): the same decision, most
  // series being null, at a tenth of the work.
  const enough = stopAfter(o);
  let atLeast = 0;
  for (let r = 0; r < permutations; r++) {
    shuffle(shuffled, rng);
    // A tolerance so that ties with the observed maximum (e.g. a rate's few distinct values) count against it.
    if (maxStatistic(shuffled, minSegment, mean).value >= observed.value * (1 - 1e-9)) atLeast++;
    if (atLeast >= enough) return { at: observed.at, p: 1 };
  }
  return { at: observed.at, p: (atLeast + 1) / (permutations + 1) };
}

/**
 * The segment that ends the series, where a change is newest: three statistics, each with its permutation
 * p-value, combined by Fisher's function (-sum of w log p, weights END_WEIGHTS), that sum itself calibrated
 * over the same permutations (nonparametric combination, Pesarin 2001), so exchangeable nights keep the
 * level. The best split anywhere (as testSplit); the last m nights against all before (m = 1..recent),
 * which sees a step from its first night; a creep starting within the last trendWindow nights (a hinge).
 * A recent step or creep moves all three at once, and Fisher's sum adds up their evidence where the
 * smallest p-value alone (Tippett's min-p) would keep only one.
 */
function testSplitAtEnd(x: number[], o: Required<ChangePointOptions>, rng: () => number): { at: number; p: number } | null {
  const { minSegment, permutations, recent, trendWindow } = o;
  const n = x.length;
  if (n < 2 * minSegment) return null;
  const creepFrom = Math.max(minSegment, n - trendWindow);
  // The mean is the same in every permutation: computed once.
  const mean = meanOf(x) ?? 0;
  const values = END_WEIGHTS.map(() => new Float64Array(permutations + 1));
  const record = (v: readonly number[], r: number) => {
    values[0]![r] = maxStatistic(v, minSegment, mean).value;
    values[1]![r] = endStatistic(v, recent, mean).value;
    values[2]![r] = trendStatistic(v, creepFrom, mean).value;
  };
  record(x, 0);
  if (Math.max(values[0]![0]!, values[1]![0]!, values[2]![0]!) <= 1e-12 * (Math.abs(x[0]!) + 1)) return null;
  const shuffled = x.slice();
  // The early stop (as testSplit's): a shuffle whose three statistics are each at least the observed ones
  // has each of its p-values (upperShares, whose tolerance is monotone in the value) at most the observed
  // ones, so a Fisher sum at least the observed one, whatever the other shuffles. With the observed row
  // counted, `enough` of them put p above alpha. Exactly at least: within the tolerance would not do, as
  // a value just under the observed one can count fewer values at least as large.
  const enough = stopAfter(o);
  let dominating = 0;
  for (let r = 1; r <= permutations; r++) {
    shuffle(shuffled, rng);
    record(shuffled, r);
    if (values.every((v) => v[r]! >= v[0]!) && ++dominating >= enough) return { at: maxStatistic(x, minSegment, mean).at, p: 1 };
  }
  // Each permutation's p-value for each statistic, then Fisher's weighted sum; row 0 is the nights as observed.
  const shares = values.map((v) => upperShares(v));
  const combined = shares[0]!.map((_, r) => -shares.reduce((sum, share, i) => sum + END_WEIGHTS[i]! * Math.log(share[r]!), 0));
  const p = combined.filter((c) => c >= combined[0]! * (1 - 1e-9)).length / (permutations + 1);
  // The night: the best split (largest standardized CUSUM) among the nights of the statistic with the
  // smallest weighted Bonferroni p-value (p times the sum of the weights over its own), and also among the
  // whole series' when that statistic would be kept on its own by that test: a step the whole series
  // shows that clearly is placed where the whole series puts it (the maximum likelihood split), a creep
  // at the split of its means. The last nights' statistic places among the last recent + 1 splits: a step
  // recent + 1 nights old still moves it, and is placed at its own first night, not a night late.
  const total = END_WEIGHTS.reduce((a, b) => a + b, 0);
  const weighted = shares.map((share, i) => (share[0]! * total) / END_WEIGHTS[i]!);
  const ranges: Array<[number, number]> = [[minSegment, n - minSegment], [Math.max(1, n - recent - 1), n - 1], [creepFrom, n - 2]];
  const best = weighted.reduce((b, w, i) => (w < weighted[b]! ? i : b), 0);
  return { at: bestSplitIn(x, weighted[0]! <= o.alpha ? [ranges[best]!, ranges[0]!] : [ranges[best]!]), p };
}

/**
 * Shuffles at least as extreme as the observed nights after which p > alpha whatever the rest (Besag &
 * Clifford 1991): the fewest d with (d + 1) / (permutations + 1) > alpha, as the decision compares them
 * (floor(alpha * (permutations + 1)) but for its rounding, e.g. 0.29 * 100 = 28.999...).
 */
function stopAfter(o: Required<ChangePointOptions>): number {
  if (!o.earlyStop) return Infinity;
  let d = Math.max(0, Math.floor(o.alpha * (o.permutations + 1)) - 1);
  while (d <= o.permutations && (d + 1) / (o.permutations + 1) <= o.alpha) d++;
  return d;
}

/** The split k in the given ranges with the largest standardized CUSUM. */
function bestSplitIn(x: readonly number[], ranges: ReadonlyArray<[number, number]>): number {
  const n = x.length;
  const mean = x.reduce((a, b) => a + b, 0) / n;
  let s = 0;
  let best = { at: -1, value: -1 };
  for (let k = 1; k < n; k++) {
    s += x[k - 1]! - mean;
    if (!ranges.some(([from, to]) => k >= from && k <= to)) continue;
    const value = Math.abs(s) / Math.sqrt((k * (n - k)) / n);
    if (value > best.value) best = { at: k, value };
  }
  return best.at;
}

/**
 * Fisher weights of the best split anywhere, the last nights' step and the recent creep (chosen by bench/nights
 * --series): the creep weighs half, as it has 10 nights to be found where a step has 3.
 */
const END_WEIGHTS = [1, 2, 0.5] as const;

/** For each value, the share of values (itself included) at least as large: its permutation p-value. */
function upperShares(values: Float64Array): number[] {
  const sorted = Float64Array.from(values).sort();
  return Array.from(values, (v) => {
    const cut = v * (1 - 1e-9);
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! >= cut) hi = mid;
      else lo = mid + 1;
    }
    return (sorted.length - lo) / sorted.length;
  });
}

/** max over m = 1..recent of the standardized CUSUM at the split before the last m nights. */
function endStatistic(x: readonly number[], recent: number, mean: number): { at: number; value: number } {
  const n = x.length;
  let tail = 0;
  let best = { at: -1, value: -1 };
  for (let m = 1; m <= Math.min(recent, n - 1); m++) {
    tail += x[n - m]! - mean;
    const value = Math.abs(tail) / Math.sqrt((m * (n - m)) / n);
    if (value > best.value) best = { at: n - m, value };
  }
  return best;
}

/**
 * max over k >= from of the standardized slope of a hinge at k (0 before night k, then 1, 2, ...): a level
 * that starts to creep on night k. Its projection on the centred series over its norm, as the CUSUM's.
 */
function trendStatistic(x: readonly number[], from: number, mean: number): { at: number; value: number } {
  const n = x.length;
  let sumY = 0;
  let sumTY = 0;
  let best = { at: -1, value: -1 };
  for (let k = n - 1; k >= from; k--) {
    const y = x[k]! - mean;
    sumY += y;
    sumTY += k * y;
    const m = n - k;
    if (m < 2) continue;
    // hinge h_t = t - k + 1 for t >= k: sum h = m(m+1)/2, sum h^2 = m(m+1)(2m+1)/6
    const sh = (m * (m + 1)) / 2;
    const norm = Math.sqrt((m * (m + 1) * (2 * m + 1)) / 6 - (sh * sh) / n);
    const value = Math.abs(sumTY - (k - 1) * sumY) / norm;
    if (value > best.value) best = { at: k, value };
  }
  return best;
}

function shuffle(x: number[], rng: () => number): void {
  for (let i = x.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = x[i]!;
    x[i] = x[j]!;
    x[j] = t;
  }
}

/** max over k of |S_k - k mean| / sqrt(k (n - k) / n): the standardized CUSUM (a two-sample z up to the spread). */
function maxStatistic(x: readonly number[], minSegment: number, mean: number): { at: number; value: number } {
  const n = x.length;
  const scale = splitScales(n);
  let s = 0;
  let at = -1;
  let best = -1;
  for (let k = 1; k <= n - minSegment; k++) {
    s += x[k - 1]! - mean;
    if (k < minSegment) continue;
    const value = Math.abs(s) * scale[k]!;
    if (value > best) {
      best = value;
      at = k;
    }
  }
  return { at, value: best };
}

const scalesOf = new Map<number, Float64Array>();

/** 1 / sqrt(k (n - k) / n) for k = 0..n: the standardizing factors of a series of n nights, computed once per length. */
function splitScales(n: number): Float64Array {
  let scale = scalesOf.get(n);
  if (!scale) {
    scale = Float64Array.from({ length: n + 1 }, (_, k) => (k > 0 && k < n ? 1 / Math.sqrt((k * (n - k)) / n) : 0));
    scalesOf.set(n, scale);
  }
  return scale;
}

function sizes(values: readonly number[], splits: ReadonlyArray<{ at: number; p: number }>, confidence: number): ChangePoint[] {
  const bounds = [0, ...splits.map((s) => s.at), values.length];
  const segments = bounds.slice(1).map((end, i) => {
    const part = values.slice(bounds[i], end);
    const mean = part.reduce((a, b) => a + b, 0) / part.length;
    return { n: part.length, mean, ss: part.reduce((a, v) => a + (v - mean) ** 2, 0) };
  });
  const df = values.length - segments.length;
  const sd = Math.sqrt(segments.reduce((a, s) => a + s.ss, 0) / Math.max(1, df));
  const t = studentQuantile(1 - (1 - confidence) / 2, Math.max(1, df));
  return splits.map((split, i) => {
    const a = segments[i]!;
    const b = segments[i + 1]!;
    const half = t * sd * Math.sqrt(1 / a.n + 1 / b.n);
    const size = b.mean - a.mean;
    return { index: split.at, before: a.mean, after: b.mean, size, low: size - half, high: size + half, p: split.p };
  });
}

/** Student t quantile by the Cornish-Fisher expansion in 1/df (Abramowitz & Stegun 26.7.5; within 1% for df >= 3). */
export function studentQuantile(p: number, df: number): number {
  const z = normalQuantile(p);
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3);
}
