import { normalCdf, normalQuantile, signFlipTest, type SignFlipResult } from './sign-flip.js';
import { type ClusterCounts, stratifiedExactTest, type StratifiedExactResult } from './stratified-exact.js';

// A second look at a gate (`dsbench confirm`) without raising its false-alarm rate: a two-look
// group-sequential test with Lan-DeMets alpha spending of the O'Brien-Fleming type (Lan and DeMets 1983,
// Biometrika 70:659-663). The first look may call a regression only at the level spent at its information
// fraction t (alpha*(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)), small early); the second at what is left,
// alpha - alpha*(t). The two levels add up to alpha, so by the union bound the chance of a false alarm at
// either look is at most alpha whatever the correlation of the looks: the re-asked items share the
// baseline with the first look, and which questions are re-asked depends on the first look's data, so the
// usual Brownian-motion correlation of the looks cannot be assumed (docs/statistics.md).

export interface TwoLookLevels {
  /** The false-alarm rate of the whole two-look decision. */
  alpha: number;
  /** Information at the first look over information at the second, fixed before looking (items asked / items asked + budget). */
  informationFraction: number;
  /** One-sided level of the first look. */
  first: number;
  /** One-sided level of the second look. */
  second: number;
}

/** Alpha spent by time t of an O'Brien-Fleming-type Lan-DeMets spending function (one-sided alpha). */
export function obrienFlemingSpent(alpha: number, t: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be between 0 and 1, got ${alpha}`);
  if (t <= 0) return 0;
  if (t >= 1) return alpha;
  return 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t));
}

export function twoLookLevels(alpha: number, informationFraction: number): TwoLookLevels {
  const t = Math.min(1, Math.max(0, informationFraction));
  const first = obrienFlemingSpent(alpha, t);
  return { alpha, informationFraction: t, first, second: alpha - first };
}

/** The information fraction of a first look over `asked` items when a confirmation may add up to `budget` more. */
export function informationFraction(asked: number, budget: number): number {
  return asked + budget <= 0 ? 1 : asked / (asked + budget);
}

export type { ClusterCounts } from './stratified-exact.js';

/**
 * Sign-flip test over questions of the change of a rate when the sides have different numbers of repeats
 * (the candidate's re-asked ones added): each question's difference of its two rates, questions with no
 * trial on a side left out. Exchangeable signs under no change, as in the paired test of one look.
 */
export function clusterRateTest(clusters: readonly ClusterCounts[], options: { resamples: number; seed: number }): SignFlipResult & { questions: number; change: number | null } {
  const diffs: number[] = [];
  for (const c of clusters) {
    if (c.baselineTrials > 0 && c.candidateTrials > 0) diffs.push(c.candidateSuccesses / c.candidateTrials - c.baselineSuccesses / c.baselineTrials);
  }
  const change = diffs.length === 0 ? null : diffs.reduce((a, x) => a + x, 0) / diffs.length;
  return { ...signFlipTest(diffs, options), questions: diffs.length, change };
}

/**
 * The second look's test of a 0/1 rate (pass, error): the exact conditional test stratified by question
 * (stratified-exact.ts), which the re-asked items strengthen; the mean of the questions' changes for display.
 */
export function conditionalRateTest(clusters: readonly ClusterCounts[]): StratifiedExactResult & { change: number | null } {
  const diffs = clusters.filter((c) => c.baselineTrials > 0 && c.candidateTrials > 0).map((c) => c.candidateSuccesses / c.candidateTrials - c.baselineSuccesses / c.baselineTrials);
  return { ...stratifiedExactTest(clusters), change: diffs.length === 0 ? null : diffs.reduce((a, x) => a + x, 0) / diffs.length };
}
