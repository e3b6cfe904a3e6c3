// Consistency of a question over its repeats (tau-bench's pass^k, Codex's pass@k), with the unbiased
// estimators over n repeats of which c passed:
//   pass@k = 1 - C(n-c, k) / C(n, k)   the chance that at least one of k repeats passes
//   pass^k = C(c, k) / C(n, k)         the chance that all k repeats pass
//   flip rate = 2 c (n - c) / (n (n - 1))   the chance that two repeats drawn without replacement disagree
// A question is stable when all its repeats agree, flaky when both outcomes occur. A suite's pass^k is the
// mean over its questions with at least k repeats.

export interface QuestionConsistency {
  repeats: number;
  passed: number;
  passAtK: number | null;
  passHatK: number | null;
  flipRate: number | null;
  label: 'stable' | 'flaky' | 'single';
}

/** C(n, k) as a float; exact for the small n of repeats. */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

export function passHatK(n: number, c: number, k: number): number | null {
  return n < k || k < 1 ? null : binomial(c, k) / binomial(n, k);
}

export function passAtK(n: number, c: number, k: number): number | null {
  return n < k || k < 1 ? null : 1 - binomial(n - c, k) / binomial(n, k);
}

export function consistency(n: number, c: number, k: number): QuestionConsistency {
  return {
    repeats: n,
    passed: c,
    passAtK: passAtK(n, c, k),
    passHatK: passHatK(n, c, k),
    flipRate: n < 2 ? null : (2 * c * (n - c)) / (n * (n - 1)),
    label: n < 2 ? 'single' : c === 0 || c === n ? 'stable' : 'flaky',
  };
}

/** The k a run is judged at: the fewest repeats any checked question has (1 when none has two). */
export function defaultK(repeatCounts: Iterable<number>): number {
  let k = Infinity;
  for (const n of repeatCounts) if (n > 0) k = Math.min(k, n);
  return Number.isFinite(k) ? k : 1;
}
