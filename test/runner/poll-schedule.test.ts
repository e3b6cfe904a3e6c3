// The adaptive poll schedule: calibrated to a fixed poll's mean lag, fewer requests, and a fit that is not
// fooled by the short answers finishing first.
import { describe, expect, it } from 'vitest';
import { AdaptivePollSchedule } from '../../src/runner/poll-schedule.js';
import { mulberry32 } from '../../src/random.js';

const POLICY = { strategy: 'adaptive' as const, intervalMs: 3000, minMs: 500, maxMs: 15_000 };

/** Log-normal answer times, median 30 s, sigma 0.8, from a seeded generator. */
function answerTimes(n: number, seed: number): number[] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return 30_000 * Math.exp(0.8 * z);
  });
}

/** Polls each question from 0 until it ended, as the runner does one after another; polls and mean lag. */
function simulate(schedule: AdaptivePollSchedule, times: number[]): { polls: number; lag: number } {
  let polls = 0;
  let lag = 0;
  for (const answer of times) {
    const tracker = schedule.track();
    for (let t = 0; ; ) {
      polls++;
      if (t >= answer) {
        lag += t - answer;
        break;
      }
      t += tracker.next(polls, t);
    }
    tracker.finish(answer);
  }
  return { polls: polls / times.length, lag: lag / times.length };
}

describe('AdaptivePollSchedule', () => {
  it('polls at the interval with the fixed strategy', () => {
    const tracker = new AdaptivePollSchedule({ ...POLICY, strategy: 'fixed' }).track();
    expect([0, 5_000, 100_000].map((t) => tracker.next(1, t))).toEqual([3000, 3000, 3000]);
  });

  it('makes fewer requests than a fixed 3 s poll at no greater mean lag', () => {
    const times = answerTimes(20_000, 7);
    const fixed = simulate(new AdaptivePollSchedule({ ...POLICY, strategy: 'fixed' }), times);
    const adaptive = simulate(new AdaptivePollSchedule(POLICY), times);
    expect(adaptive.polls).toBeLessThan(fixed.polls * 0.96);
    // Aimed at 97% of the fixed poll's lag, a margin for what live runs add.
    expect(adaptive.lag).toBeLessThanOrEqual(fixed.lag);
    expect(adaptive.lag).toBeGreaterThan(fixed.lag * 0.93);
  });

  it('stays within min and max, and scales to real time on a faster emulator', () => {
    const tracker = new AdaptivePollSchedule(POLICY, 0.01).track();
    for (const t of [0, 1_000, 30_000, 300_000, 3_000_000]) {
      const real = tracker.next(1, t * 0.01);
      expect(real).toBeGreaterThanOrEqual(POLICY.minMs * 0.01 - 1e-9);
      expect(real).toBeLessThanOrEqual(POLICY.maxMs * 0.01 + 1e-9);
    }
  });

  it('counts questions still running, so the first (short) answers do not bias the fit short', () => {
    // Answers really take about 10 minutes. Twenty questions ran for a while; the five that finished
    // first were the short ones.
    const censored = new AdaptivePollSchedule(POLICY);
    const naive = new AdaptivePollSchedule(POLICY);
    const running = Array.from({ length: 20 }, () => censored.track());
    for (const tracker of running) tracker.next(3, 300_000);
    for (const short of [120_000, 150_000, 180_000, 200_000, 240_000]) {
      censored.track().finish(short);
      naive.track().finish(short);
    }
    // The naive fit believes the finished sample; the censored one knows twenty more lasted 5 minutes and more.
    expect(Math.exp(naive.fit().mu)).toBeLessThan(100_000);
    expect(Math.exp(censored.fit().mu)).toBeGreaterThan(300_000);
  });

  it('keeps a question given up on as "longer than", and forgets a finished one', () => {
    const schedule = new AdaptivePollSchedule(POLICY);
    const before = schedule.fit().mu;
    const slow = schedule.track();
    slow.next(5, 600_000);
    slow.finish(undefined);
    schedule.track().finish(40_000);
    expect(schedule.fit().mu).toBeGreaterThan(before);
  });
});
