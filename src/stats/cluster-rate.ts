import { mulberry32 } from '../random.js';
import { nearestRank } from './percentiles.js';
import type { BootstrapOptions } from './bootstrap.js';
import { LARGE, type SignFlipResult, normalQuantile, signFlipTest } from './sign-flip.js';
import { tQuantile } from './t-quantile.js';

// Rates over clusters (a question with all its repeats and turns, or a search): a rate is
// sum(successes) / sum(trials); the items of one cluster are correlated, so the interval is Wilson's score
// interval on an effective sample size (Korn and Graubard 1998): n_eff = p (1 - p) / v, v the clustered
// (linearized ratio) variance of the rate, n_eff at most n (a design effect below 1 is not trusted) and n when
// v is 0 (every cluster alike), then scaled by (z / t(k - 1))^2 for the k - 1 degrees of freedom the variance
// has. A score works the same way, its "successes" being the sum of the scores. It replaces a percentile
// bootstrap that covered 87-89% at 10 questions and jumped to Wilson over the clusters when they were all
// alike (60/60 had a lower bound below 59/60's); docs/statistics.md has the coverage.

export interface RateEstimate {
  value: number | null;
  low: number | null;
  high: number | null;
  /** Items (the denominator) and clusters behind the rate. */
  n: number;
  clusters: number;
  method: 'wilson, effective sample size' | 'clustered standard error';
}

export const NO_RATE: RateEstimate = { value: null, low: null, high: null, n: 0, clusters: 0, method: 'wilson, effective sample size' };

/** A run's rate with its clustered interval; clusters with no trials are left out. */
export function clusteredRate(successes: ArrayLike<number>, trials: ArrayLike<number>, options: Pick<BootstrapOptions, 'confidence'>): RateEstimate {
  const s: number[] = [];
  const t: number[] = [];
  for (let i = 0; i < trials.length; i++) {
    if (trials[i]! > 0) {
      s.push(successes[i]!);
      t.push(trials[i]!);
    }
  }
  const k = t.length;
  if (k === 0) return NO_RATE;
  const n = t.reduce((a, b) => a + b, 0);
  const value = s.reduce((a, b) => a + b, 0) / n;
  const variance = clusteredVariance(s, t);
  if (value < 0 || value > 1) {
    // Not a proportion (a score outside 0..1): the t interval on the clustered standard error.
    const half = (k > 1 ? tQuantile((1 + options.confidence) / 2, k - 1) : 0) * Math.sqrt(variance);
    return { value, low: value - half, high: value + half, n, clusters: k, method: 'clustered standard error' };
  }
  let effective = variance > 0 ? Math.min(n, (value * (1 - value)) / variance) : n;
  if (k > 1) effective *= (normalQuantile((1 + options.confidence) / 2) / tQuantile((1 + options.confidence) / 2, k - 1)) ** 2;
  const [low, high] = wilson(value, effective, options.confidence);
  return { value, low, high, n, clusters: k, method: 'wilson, effective sample size' };
}

/** Linearized (delta-method) variance of sum(num) / sum(den) over clusters: k / (k - 1) * sum((num_i - value * den_i)^2) / sum(den)^2; 0 for one cluster. */
function clusteredVariance(num: readonly number[], den: readonly number[]): number {
  const k = den.length;
  if (k < 2) return 0;
  const total = den.reduce((a, x) => a + x, 0);
  const value = num.reduce((a, x) => a + x, 0) / total;
  let ss = 0;
  for (let i = 0; i < k; i++) ss += (num[i]! - value * den[i]!) ** 2;
  return ((k / (k - 1)) * ss) / (total * total);
}

/** value ± z SE, SE the square root of the clustered variance. */
function normalInterval(num: readonly number[], den: readonly number[], confidence: number): [number, number] {
  const value = num.reduce((a, x) => a + x, 0) / den.reduce((a, x) => a + x, 0);
  const se = Math.sqrt(clusteredVariance(num, den));
  const z = normalQuantile((1 + confidence) / 2);
  return [value - z * se, value + z * se];
}

export interface RateChange {
  /** Items with an outcome on both sides, and the clusters they belong to. */
  n: number;
  clusters: number;
  baseline: number | null;
  candidate: number | null;
  /** candidate - baseline, as a fraction (0.1 = 10 points). */
  change: number | null;
  low: number | null;
  high: number | null;
  /** Items whose outcome differs between the runs. */
  changedItems: number;
  test: SignFlipResult;
  /** Standard error of the change under the null hypothesis (the sign-flip test's): sqrt(sum d_i^2) / n. */
  se: number;
  /** Clustered (linearized) standard error of the change, for the test against an allowance. */
  clusteredSe: number;
}

/**
 * Paired change of a rate between two runs: per cluster, the items both sides have (`trials`) and the
 * successes of each side. The interval resamples clusters; the p-values come from the sign-flip test on
 * the clusters' differences (exact McNemar when each cluster has one item). `changed`: per cluster, the
 * items whose outcome differs (for the count shown; defaults to |difference|).
 */
export function pairedRateChange(
  trials: ArrayLike<number>,
  baseline: ArrayLike<number>,
  candidate: ArrayLike<number>,
  options: BootstrapOptions,
  changed?: ArrayLike<number>,
): RateChange {
  const t: number[] = [];
  const d: number[] = [];
  const b: number[] = [];
  let changedItems = 0;
  for (let i = 0; i < trials.length; i++) {
    if (!(trials[i]! > 0)) continue;
    t.push(trials[i]!);
    b.push(baseline[i]!);
    d.push(candidate[i]! - baseline[i]!);
    changedItems += changed ? changed[i]! : Math.abs(candidate[i]! - baseline[i]!);
  }
  const n = t.reduce((a, x) => a + x, 0);
  const test = signFlipTest(d, options);
  if (n === 0) return { n: 0, clusters: 0, baseline: null, candidate: null, change: null, low: null, high: null, changedItems: 0, test, se: 0, clusteredSe: 0 };
  const sumB = b.reduce((a, x) => a + x, 0);
  const change = test.statistic / n;
  let low: number | null;
  let high: number | null;
  if (t.length > LARGE) [low, high] = normalInterval(d, t, options.confidence);
  else {
    const stats = resampleRatio(d, t, options);
    low = nearestRank(stats, lowP(options));
    high = nearestRank(stats, highP(options));
  }
  return {
    n,
    clusters: t.length,
    baseline: sumB / n,
    candidate: (sumB + test.statistic) / n,
    change,
    low,
    high,
    changedItems,
    test,
    se: Math.sqrt(d.reduce((a, x) => a + x * x, 0)) / n,
    clusteredSe: Math.sqrt(clusteredVariance(d, t)),
  };
}

/**
 * Whether the change is worse than `allowed` (a drop of more than `allowed` for 'drop', a rise for 'rise')
 * at one-sided level `alpha`. Allowed 0: the sign-flip test. Above 0 the null is a change of exactly the
 * allowance, which the sign-flip test cannot take, so the sign-flip test must reject 0 and the one-sided
 * t bound (k - 1 degrees of freedom, clustered standard error) must lie beyond the allowance.
 */
export function worseThanAllowed(r: RateChange, bad: 'drop' | 'rise', allowed: number, alpha: number): boolean {
  if (r.change === null) return false;
  const worse = bad === 'drop' ? -r.change : r.change;
  if ((bad === 'drop' ? r.test.pLower : r.test.pUpper) >= alpha || worse <= 0) return false;
  if (allowed <= 0) return true;
  return worse - allowedBound(r, alpha) > allowed + 1e-12;
}

/** How far the one-sided bound of the change sits from the estimate: t(1 - alpha, k - 1) clustered standard errors. */
function allowedBound(r: RateChange, alpha: number): number {
  return r.clusters > 1 ? tQuantile(1 - alpha, r.clusters - 1) * r.clusteredSe : Infinity;
}

/**
 * The smallest drop of a rate (spread over the items) that the gate at one-sided level `alpha` catches 80%
 * of the time, from the variance under that drop, not the null's: V + a n d, V = n^2 se^2 as observed,
 * each item newly failing adding a = 1 to the sign-flip test's sum of squared differences (with an
 * allowance, the clustered variance, to which it adds 2 p - 1 on average, p the baseline's rate). The drop d
 * is caught 80% of the time when n (d - allowed) = (z(1 - alpha) + z(0.8)) sqrt(V + a n d) (t quantiles on
 * k - 1 degrees of freedom with an allowance), solved by bisection; checked by simulation in
 * test/stats/power.test.ts. Never less than the fewest changed items that can be
 * significant at all (m items, one a cluster, all one way: 0.5^m < alpha), as a share of the items.
 */
export function detectableRateDrop(r: RateChange, alpha: number, allowedDrop: number, bad: 'drop' | 'rise' = 'drop'): number | null {
  if (r.n === 0) return null;
  const fewest = Math.ceil(Math.log(alpha) / Math.log(0.5) + 1e-9) / r.n;
  const df = Math.max(1, r.clusters - 1);
  const z = allowedDrop > 0 ? tQuantile(1 - alpha, df) + tQuantile(0.8, df) : normalQuantile(1 - alpha) + normalQuantile(0.8);
  const v = (r.n * (allowedDrop > 0 ? r.clusteredSe : r.se)) ** 2;
  const good = bad === 'drop' ? (r.baseline ?? 1) : 1 - (r.baseline ?? 0);
  const added = allowedDrop > 0 ? Math.min(1, Math.max(0, 2 * good - 1)) : 1;
  return Math.max(drop80(r.n, v, added, z, allowedDrop), allowedDrop + fewest);
}

/**
 * The drop d with n (d - allowed) = z sqrt(v + added n d): n items, v the null sum of squared cluster
 * differences, `added` what each newly failing item adds to it, z the two quantiles summed. At most 1.
 */
export function drop80(n: number, v: number, added: number, z: number, allowed: number): number {
  const short = (d: number): boolean => n * (d - allowed) < z * Math.sqrt(v + added * n * d);
  if (short(1)) return 1;
  let lo = allowed;
  let hi = 1;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (short(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** R cluster resamples of sum(num) / sum(den), sorted ascending. */
function resampleRatio(num: readonly number[], den: readonly number[], options: BootstrapOptions): Float64Array {
  const k = den.length;
  const random = mulberry32(options.seed);
  const stats = new Float64Array(options.resamples);
  for (let r = 0; r < options.resamples; r++) {
    let a = 0;
    let b = 0;
    for (let j = 0; j < k; j++) {
      const c = Math.floor(random() * k);
      a += num[c]!;
      b += den[c]!;
    }
    stats[r] = a / b;
  }
  return stats.sort();
}

/** Wilson's score interval for a proportion p over n trials. */
export function wilson(p: number, n: number, confidence: number): [number, number] {
  const z = normalQuantile((1 + confidence) / 2);
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

const lowP = (o: BootstrapOptions): number => ((1 - o.confidence) / 2) * 100;
const highP = (o: BootstrapOptions): number => ((1 + o.confidence) / 2) * 100;
