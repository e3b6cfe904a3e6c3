import type { PollSchedule } from '../deepsearch/wait.js';

export interface PollPolicy {
  strategy: 'adaptive' | 'fixed';
  /** Fixed interval; for the adaptive strategy, the fixed poll whose mean detection lag it matches (interval / 2). */
  intervalMs: number;
  minMs: number;
  maxMs: number;
}

/** Prior belief about answer times until enough questions finished: the documented typical run. */
const PRIOR = { mu: Math.log(30_000), sigma: 0.8, weight: 5 };

/**
 * Learns the distribution of answer times (log-normal, fitted to finished questions with a prior) and
 * polls with interval d(t) = c / sqrt(h(t)), h the hazard: for a given mean detection lag this makes
 * the fewest requests (minimize the integral of S/d subject to the integral of f·d/2 being the lag).
 * c is set so that the mean lag equals that of a fixed poll every `intervalMs`.
 *
 * All times here are server time; `timeScale` converts to real time for an emulator that runs faster.
 */
export class AdaptivePollSchedule {
  private sumLog = 0;
  private sumLogSq = 0;
  private count = 0;
  private fitted: { mu: number; sigma: number; c: number; count: number } | undefined;

  constructor(
    private readonly policy: PollPolicy,
    private readonly timeScale = 1,
  ) {}

  /** Feeds the server latency (ms) of a finished question. */
  observe(serverMs: number): void {
    if (!(serverMs > 0) || !Number.isFinite(serverMs)) return;
    const log = Math.log(serverMs);
    this.sumLog += log;
    this.sumLogSq += log * log;
    this.count++;
  }

  /** A schedule for one question; `elapsedMs` is real time since it was sent. */
  schedule(): PollSchedule {
    return (_polls, elapsedRealMs) => this.delayAt(elapsedRealMs / this.timeScale) * this.timeScale;
  }

  /** Delay (server ms) before the next poll at server time `t` since the question was sent. */
  delayAt(t: number): number {
    const { minMs, maxMs, intervalMs } = this.policy;
    if (this.policy.strategy === 'fixed') return intervalMs;
    const { mu, sigma, c } = this.fit();
    return intervalAt(t, c, mu, sigma, minMs, maxMs);
  }

  /** The current fit, for logs and tests. */
  fit(): { mu: number; sigma: number; c: number } {
    // Refitting costs a few ms, so it waits until the sample has grown by a tenth.
    if (this.fitted && this.count - this.fitted.count < Math.max(1, this.fitted.count / 10)) return this.fitted;
    const n = this.count + PRIOR.weight;
    const mu = (this.sumLog + PRIOR.weight * PRIOR.mu) / n;
    const meanSq = (this.sumLogSq + PRIOR.weight * (PRIOR.sigma ** 2 + PRIOR.mu ** 2)) / n;
    const sigma = Math.max(0.05, Math.sqrt(Math.max(0, meanSq - mu * mu)));
    this.fitted = { mu, sigma, c: this.scale(mu, sigma), count: this.count };
    return this.fitted;
  }

  /**
   * c such that the expected detection lag of the schedule, clamps included, equals that of a fixed poll
   * every intervalMs under the same distribution. The lag grows with c, so bisection finds it.
   */
  private scale(mu: number, sigma: number): number {
    const { minMs, maxMs, intervalMs } = this.policy;
    const target = expectedLag(() => intervalMs, mu, sigma);
    let lo = 1e-6;
    let hi = 1e6;
    for (let i = 0; i < 40; i++) {
      const mid = Math.sqrt(lo * hi);
      if (expectedLag((t) => intervalAt(t, mid, mu, sigma, minMs, maxMs), mu, sigma) > target) hi = mid;
      else lo = mid;
    }
    return lo;
  }
}

/** Expected lag from an answer's end to the poll that sees it, walking the poll times t(k+1) = t(k) + d(t(k)). */
function expectedLag(interval: (t: number) => number, mu: number, sigma: number): number {
  const end = Math.exp(mu + 4.5 * sigma);
  let lag = 0;
  for (let t = 0, steps = 0; t < end && steps < 100_000; steps++) {
    const b = t + interval(t);
    // An answer ending in (t, b] is seen at b: its lag is b - T.
    lag += b * (logNormalCdf(b, mu, sigma) - logNormalCdf(t, mu, sigma)) - partialMean(t, b, mu, sigma);
    t = b;
  }
  return lag;
}

function logNormalCdf(t: number, mu: number, sigma: number): number {
  return t <= 0 ? 0 : normalCdf((Math.log(t) - mu) / sigma);
}

/** Integral of t·f(t) over (a, b] for a log-normal. */
function partialMean(a: number, b: number, mu: number, sigma: number): number {
  const shifted = (t: number) => (t <= 0 ? 0 : normalCdf((Math.log(t) - mu - sigma * sigma) / sigma));
  return Math.exp(mu + (sigma * sigma) / 2) * (shifted(b) - shifted(a));
}

/**
 * The interval d from t with d = c / sqrt(h(t + d/2)): the hazard at the interval's middle, not its start,
 * so an interval that begins where answers are still rare does not jump over where they become common.
 * d - c/sqrt(h(t + d/2)) grows with d while the hazard rises, so bisection on [min, max] finds the root.
 */
function intervalAt(t: number, c: number, mu: number, sigma: number, minMs: number, maxMs: number): number {
  const excess = (d: number) => {
    const h = hazard(Math.max(t + d / 2, 1), mu, sigma);
    return d - (h > 0 ? c / Math.sqrt(h) : Infinity);
  };
  if (excess(minMs) >= 0) return minMs;
  if (excess(maxMs) <= 0) return maxMs;
  let lo = minMs;
  let hi = maxMs;
  for (let i = 0; i < 20; i++) {
    const mid = (lo + hi) / 2;
    if (excess(mid) < 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function hazard(t: number, mu: number, sigma: number): number {
  const z = (Math.log(t) - mu) / sigma;
  const density = normalPdf(z) / (sigma * t);
  const survival = 1 - normalCdf(z);
  return survival > 1e-12 ? density / survival : density / 1e-12;
}

function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** Abramowitz-Stegun 7.1.26 through erf: ample precision for a poll interval. */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}
