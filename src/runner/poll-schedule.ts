import type { PollPolicy } from '../config/suite.js';
import type { PollSchedule } from '../deepsearch/wait.js';

/** Prior belief about answer times until enough questions finished: the documented typical run. */
const PRIOR = { mu: Math.log(30_000), sigma: 0.8, weight: 5 };
const EM_ROUNDS = 25;
/**
 * The schedule aims a little under a fixed poll's mean lag: live runs add what the model leaves out
 * (replies that take time, timers that fire late), and measured lags came out 1-2% above the model's.
 */
const LAG_MARGIN = 0.97;
/** Questions given up on (timed out) stay in the fit as "longer than this"; the oldest are dropped past this many. */
const MAX_CENSORED = 10_000;

/** One question's polling: its schedule, and `finish` once it ended (with the server's latency) or was given up. */
export interface PollTracker {
  next: PollSchedule;
  finish(serverMs: number | undefined): void;
}

/**
 * Learns the distribution of answer times (log-normal) and polls with interval d(t) = c / sqrt(h(t)),
 * h the hazard: for a given mean detection lag this makes the fewest requests (minimize the integral of
 * S/d subject to the integral of f·d/2 being the lag). c is set so that the mean lag is no more than that
 * of a fixed poll every `intervalMs`.
 *
 * The fit counts the questions still running, as "longer than so far" (right-censored): when many start
 * together the first to finish are the short ones, and a fit of finished questions alone would be biased
 * short until the run is nearly over. It is the maximum-likelihood fit with a prior, found by EM.
 *
 * All times here are server time; `timeScale` converts to real time for an emulator that runs faster.
 */
export class AdaptivePollSchedule {
  private sumLog = 0;
  private sumLogSq = 0;
  private count = 0;
  /** Server ms each running question has lasted so far, as of its last poll. */
  private readonly running = new Map<object, number>();
  private readonly givenUp: number[] = [];
  private fitted: { mu: number; sigma: number; c: number; count: number } | undefined;

  constructor(
    private readonly policy: PollPolicy,
    private readonly timeScale = 1,
  ) {}

  /** Feeds the server latency (ms) of a finished question. */
  private observe(serverMs: number): void {
    if (!(serverMs > 0) || !Number.isFinite(serverMs)) return;
    const log = Math.log(serverMs);
    this.sumLog += log;
    this.sumLogSq += log * log;
    this.count++;
  }

  /** A schedule for one question, whose elapsed time (real ms since it was sent) feeds the fit while it runs. */
  track(): PollTracker {
    const id = {};
    this.running.set(id, 0);
    return {
      next: (_polls, elapsedRealMs) => {
        const t = elapsedRealMs / this.timeScale;
        this.running.set(id, t);
        return this.delayAt(t) * this.timeScale;
      },
      finish: (serverMs) => {
        const lasted = this.running.get(id);
        this.running.delete(id);
        if (serverMs !== undefined) this.observe(serverMs);
        else if (lasted !== undefined && lasted > 0) {
          this.givenUp.push(lasted);
          if (this.givenUp.length > MAX_CENSORED) this.givenUp.shift();
        }
      },
    };
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
    // Refitting costs a few ms, so it waits until the finished sample has grown by a tenth.
    if (this.fitted && this.count - this.fitted.count < Math.max(1, this.fitted.count / 10)) return this.fitted;
    const { mu, sigma } = this.maximumLikelihood();
    this.fitted = { mu, sigma, c: this.scale(mu, sigma), count: this.count };
    return this.fitted;
  }

  /**
   * EM for a normal fit of log times where some are only known to exceed a bound: each round replaces a
   * censored value by its expectation (and that of its square) under the current fit, given that it
   * exceeds its bound, then refits from the completed sums.
   */
  private maximumLikelihood(): { mu: number; sigma: number } {
    const bounds = [...this.running.values(), ...this.givenUp].filter((t) => t > 0).map(Math.log);
    const known = this.count + PRIOR.weight;
    const known1 = this.sumLog + PRIOR.weight * PRIOR.mu;
    const known2 = this.sumLogSq + PRIOR.weight * (PRIOR.sigma ** 2 + PRIOR.mu ** 2);
    let mu = known1 / known;
    let sigma = Math.max(0.05, Math.sqrt(Math.max(0, known2 / known - mu * mu)));
    for (let round = 0; round < EM_ROUNDS && bounds.length > 0; round++) {
      let s1 = known1;
      let s2 = known2;
      for (const bound of bounds) {
        const alpha = (bound - mu) / sigma;
        const tail = 1 - normalCdf(alpha);
        // Inverse Mills ratio; far in the tail it tends to alpha.
        const lambda = tail > 1e-12 ? normalPdf(alpha) / tail : alpha;
        s1 += mu + sigma * lambda;
        s2 += mu * mu + 2 * mu * sigma * lambda + sigma * sigma * (1 + alpha * lambda);
      }
      mu = s1 / (known + bounds.length);
      sigma = Math.max(0.05, Math.sqrt(Math.max(0, s2 / (known + bounds.length) - mu * mu)));
    }
    return { mu, sigma };
  }

  /**
   * c such that the expected detection lag of the schedule, clamps included, is LAG_MARGIN of that of a
   * fixed poll every intervalMs under the same distribution.
   */
  private scale(mu: number, sigma: number): number {
    const { minMs, maxMs, intervalMs } = this.policy;
    const target = LAG_MARGIN * expectedLag(() => intervalMs, mu, sigma);
    // The lag is close to proportional to c (exactly so without the clamps), so rescaling c by
    // target / lag converges in a few rounds, each one walk of the schedule.
    let c = intervalMs / 100;
    for (let round = 0; round < 12; round++) {
      const lag = expectedLag((t) => intervalAt(t, c, mu, sigma, minMs, maxMs), mu, sigma);
      if (!(lag > 0)) break;
      const ratio = target / lag;
      c *= ratio;
      if (Math.abs(ratio - 1) < 1e-3) break;
    }
    return c;
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
  // 14 halvings of at most max - min: well under a second.
  for (let i = 0; i < 14; i++) {
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
