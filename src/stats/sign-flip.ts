import { mulberry32 } from '../random.js';

// Paired sign-flip (randomization) test on per-cluster differences d_i = candidate_i - baseline_i. Under the
// null hypothesis that nothing changed, baseline and candidate are exchangeable within a cluster, so each
// d_i is as likely to carry either sign; the test statistic is S = sum d_i, and its null distribution that
// of sum s_i d_i over independent fair signs s_i. Resampling whole clusters keeps repeats and turns of one
// question together. With one item per cluster and 0/1 outcomes this is exactly McNemar's exact test.
// - Integer differences (outcome counts): the null distribution is computed exactly by convolution, while
//   it stays small (EXACT_BUDGET steps); past that, by the normal approximation (mean 0, variance sum d_i^2)
//   with a continuity correction.
// - Other differences (pass^k, scores): Monte Carlo with `resamples` seeded draws, p = (1 + hits) / (1 + R);
//   past LARGE clusters, the normal approximation (no continuity correction).

export interface SignFlipResult {
  /** Sum of the differences. */
  statistic: number;
  /** P(S <= observed): small when the candidate is lower. */
  pLower: number;
  /** P(S >= observed): small when the candidate is higher. */
  pUpper: number;
  /** P(|S| >= |observed|). */
  pTwoSided: number;
  method: 'exact' | 'normal' | 'monte-carlo';
}

const EXACT_BUDGET = 20_000_000;
/** Clusters beyond which resampling gives way to the normal approximation (here and in cluster-rate.ts). */
export const LARGE = 5_000;

export function signFlipTest(diffs: ArrayLike<number>, options: { resamples: number; seed: number }): SignFlipResult {
  const d = Array.from(diffs).filter((x) => x !== 0);
  const statistic = d.reduce((s, x) => s + x, 0);
  if (d.length === 0) return { statistic: 0, pLower: 1, pUpper: 1, pTwoSided: 1, method: 'exact' };
  const integers = d.every((x) => Number.isInteger(x));
  const range = d.reduce((s, x) => s + Math.abs(x), 0);
  if (integers && d.length * (2 * range + 1) <= EXACT_BUDGET) return exact(d, statistic, range);
  if (integers) return normal(d, statistic, 0.5);
  if (d.length > LARGE) return normal(d, statistic, 0);
  return monteCarlo(d, statistic, options);
}

/** The exact null distribution of sum s_i d_i, as probabilities of each sum from -range to +range. */
function exact(d: number[], statistic: number, range: number): SignFlipResult {
  let dist = new Float64Array(2 * range + 1);
  dist[range] = 1;
  let reach = 0;
  for (const x of d) {
    const a = Math.abs(x);
    const next = new Float64Array(dist.length);
    for (let s = range - reach; s <= range + reach; s++) {
      const p = dist[s]!;
      if (p === 0) continue;
      next[s + a] = next[s + a]! + p / 2;
      next[s - a] = next[s - a]! + p / 2;
    }
    dist = next;
    reach += a;
  }
  let lower = 0;
  let upper = 0;
  let two = 0;
  for (let i = 0; i < dist.length; i++) {
    const s = i - range;
    const p = dist[i]!;
    if (s <= statistic) lower += p;
    if (s >= statistic) upper += p;
    if (Math.abs(s) >= Math.abs(statistic)) two += p;
  }
  return { statistic, pLower: clamp(lower), pUpper: clamp(upper), pTwoSided: clamp(two), method: 'exact' };
}

function normal(d: number[], statistic: number, continuity: number): SignFlipResult {
  const sd = Math.sqrt(d.reduce((s, x) => s + x * x, 0));
  const lower = normalCdf((statistic + continuity) / sd);
  const upper = 1 - normalCdf((statistic - continuity) / sd);
  return { statistic, pLower: clamp(lower), pUpper: clamp(upper), pTwoSided: clamp(2 * Math.min(lower, upper)), method: 'normal' };
}

function monteCarlo(d: number[], statistic: number, options: { resamples: number; seed: number }): SignFlipResult {
  const random = mulberry32(options.seed);
  const eps = 1e-9 * d.reduce((s, x) => s + Math.abs(x), 0);
  let lower = 0;
  let upper = 0;
  let two = 0;
  for (let r = 0; r < options.resamples; r++) {
    let s = 0;
    for (const x of d) s += random() < 0.5 ? x : -x;
    if (s <= statistic + eps) lower++;
    if (s >= statistic - eps) upper++;
    if (Math.abs(s) >= Math.abs(statistic) - eps) two++;
  }
  const p = (hits: number): number => (1 + hits) / (1 + options.resamples);
  return { statistic, pLower: p(lower), pUpper: p(upper), pTwoSided: p(two), method: 'monte-carlo' };
}

const clamp = (p: number): number => Math.min(1, Math.max(0, p));

/** Standard normal distribution function (Abramowitz and Stegun 7.1.26 on erf, error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Quantile of the standard normal distribution (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a probability strictly between 0 and 1 is needed, got ${p}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const e = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const tail = 0.02425;
  if (p < tail) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((e[0]! * q + e[1]!) * q + e[2]!) * q + e[3]!) * q + 1);
  }
  if (p > 1 - tail) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}
