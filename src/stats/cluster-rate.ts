import { mulberry32 } from '../random.js';
import { nearestRank } from './percentiles.js';
import type { BootstrapOptions } from './bootstrap.js';
import { LARGE, type SignFlipResult, normalQuantile, signFlipTest } from './sign-flip.js';

// Rates over clusters (a question with all its repeats and turns, or a search): a rate is
// sum(successes) / sum(trials), and its interval comes from resampling whole clusters (a percentile
// bootstrap), since the items of one cluster are correlated. A score works the same way, its "successes"
// being the sum of the scores. When every cluster has the same rate the bootstrap has no spread to show, so
// the interval is then Wilson's score interval with the number of clusters as the sample size. Past
// LARGE clusters the bootstrap's percentiles are those of the normal distribution anyway, so the interval
// is the normal one with the clustered (linearized ratio) standard error, at a fraction of the cost.

export interface RateEstimate {
  value: number | null;
  low: number | null;
  high: number | null;
  /** Items (the denominator) and clusters behind the rate. */
  n: number;
  clusters: number;
  method: 'cluster bootstrap' | 'wilson' | 'clustered standard error';
}

export const NO_RATE: RateEstimate = { value: null, low: null, high: null, n: 0, clusters: 0, method: 'cluster bootstrap' };

/** A run's rate with its clustered interval; clusters with no trials are left out. */
export function clusteredRate(successes: ArrayLike<number>, trials: ArrayLike<number>, options: BootstrapOptions): RateEstimate {
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
  const first = s[0]! / t[0]!;
  if (s.every((x, i) => Math.abs(x / t[i]! - first) < 1e-12) && first >= 0 && first <= 1) {
    const [low, high] = wilson(value, k, options.confidence);
    return { value, low, high, n, clusters: k, method: 'wilson' };
  }
  if (k > LARGE) {
    const [low, high] = normalInterval(s, t, options.confidence);
    return { value, low, high, n, clusters: k, method: 'clustered standard error' };
  }
  const stats = resampleRatio(s, t, options);
  return { value, low: nearestRank(stats, lowP(options)), high: nearestRank(stats, highP(options)), n, clusters: k, method: 'cluster bootstrap' };
}

/**
 * value ± z SE, SE the linearized (delta-method) standard error of sum(num) / sum(den) over clusters:
 * sqrt(k / (k - 1) * sum((num_i - value * den_i)^2)) / sum(den).
 */
function normalInterval(num: readonly number[], den: readonly number[], confidence: number): [number, number] {
  const k = den.length;
  const total = den.reduce((a, x) => a + x, 0);
  const value = num.reduce((a, x) => a + x, 0) / total;
  let ss = 0;
  for (let i = 0; i < k; i++) ss += (num[i]! - value * den[i]!) ** 2;
  const se = Math.sqrt((k / (k - 1)) * ss) / total;
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
  /** Standard error of the change under the null hypothesis (the sign-flip test's), for the detectable change. */
  se: number;
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
  if (n === 0) return { n: 0, clusters: 0, baseline: null, candidate: null, change: null, low: null, high: null, changedItems: 0, test, se: 0 };
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
  };
}

/**
 * The smallest drop of a rate a gate at one-sided level `alpha` would catch 80% of the time: (z(1-alpha) +
 * z(0.8)) standard errors beyond the allowed drop, and never less than the fewest changed items that can be
 * significant at all (m items, one a cluster, all one way: 0.5^m < alpha), as a share of the items.
 */
export function detectableRateDrop(r: RateChange, alpha: number, allowedDrop: number): number | null {
  if (r.n === 0) return null;
  const fewest = Math.ceil(Math.log(alpha) / Math.log(0.5) + 1e-9) / r.n;
  return Math.max(allowedDrop + (normalQuantile(1 - alpha) + normalQuantile(0.8)) * r.se, allowedDrop + fewest);
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
