import { describe, expect, it } from 'vitest';
import { allocate, ConfirmTally, type Driver } from '../../src/report/compare/confirm-tally.js';
import type { CompareRow } from '../../src/report/compare/pairs.js';

// What a confirmation counts of a comparison against a pooled baseline (window:K): each pooled run's repeats
// are items of their own on the baseline side; the candidate's items, paired once per pooled run, count once.

const row = (over: Partial<CompareRow>): CompareRow => ({
  kind: 'question', pairing: 'paired', targetBaseline: 'default', targetCandidate: 'default', itemId: 'q1', repeat: 0, turn: 0,
  stateBaseline: 'completed', stateCandidate: 'completed', stateChange: null, errorCodeBaseline: null, errorCodeCandidate: null, comparable: true,
  latencySource: 'server', latencyBaseline: 1000, latencyCandidate: 1000, tokensBaseline: null, tokensCandidate: null, creditsBaseline: null, creditsCandidate: null,
  toolCallsBaseline: null, toolCallsCandidate: null, sourcesJaccard: null, answerSimilarity: null, countBaseline: null, countCandidate: null,
  expectBaseline: 'pass', expectCandidate: 'fail', expectChange: null, itemExpectBaseline: 'pass', itemExpectCandidate: 'fail', quarantined: false, edited: false,
  judgeScoreBaseline: null, judgeScoreCandidate: null, citationsValidBaseline: 0, citationsCheckedBaseline: 0, citationsValidCandidate: 0, citationsCheckedCandidate: 0,
  traceUrlBaseline: null, traceUrlCandidate: null,
  ...over,
});

describe('confirmation tally', () => {
  it('a pooled baseline: every pooled run\'s repeats count, the candidate\'s once', () => {
    const tally = new ConfirmTally();
    // Two pooled runs (12, 11) x 2 repeats, one of them failing its checks; the candidate's 2 repeats fail.
    for (const baselineRun of [12, 11]) {
      for (const repeat of [0, 1]) tally.addCompared(row({ baselineRun, repeat, ...(repeat === 1 && baselineRun === 11 && { itemExpectBaseline: 'fail' }) }));
    }
    expect(tally.counts('pass-rate')).toEqual([{ baselineTrials: 4, baselineSuccesses: 3, candidateTrials: 2, candidateSuccesses: 0 }]);
    expect(tally.counts('new-errors')).toEqual([{ baselineTrials: 4, baselineSuccesses: 0, candidateTrials: 2, candidateSuccesses: 0 }]);
  });

  it('one baseline run: its repeats and the candidate\'s, one each', () => {
    const tally = new ConfirmTally();
    for (const repeat of [0, 1]) tally.addCompared(row({ repeat }));
    expect(tally.counts('pass-rate')).toEqual([{ baselineTrials: 2, baselineSuccesses: 2, candidateTrials: 2, candidateSuccesses: 0 }]);
  });
});

// How a second look spends its budget: every item of it, the worst drivers first getting the remainder.
const drivers = (n: number): Driver[] => Array.from({ length: n }, (_, i) => ({ kind: 'question', target: 'prod', itemId: `q${i}`, badness: 1 - i / (n + 1) }));

describe('allocate', () => {
  it.each([
    // [drivers, budget, each driver's repeats, worst first]
    [3, 20, [7, 7, 6]],
    [100, 199, [...Array.from({ length: 99 }, () => 2), 1]],
    [5, 3, [1, 1, 1]],
    [3, 7, [3, 2, 2]],
    [4, 4, [1, 1, 1, 1]],
    [4, 12, [3, 3, 3, 3]],
    [4, 15, [4, 4, 4, 3]],
    [1, 1, [1]],
    [1, 13, [13]],
    [6, 0, []],
    [0, 10, []],
  ])('%i drivers, a budget of %i', (count, budget, expected) => {
    const plan = allocate(drivers(count), budget);
    expect(plan.map((p) => p.repeats)).toEqual(expected);
    // The worst drivers are the ones asked, in order; the budget is spent whole when any driver is there.
    expect(plan.map((p) => p.driver.itemId)).toEqual(drivers(count).slice(0, plan.length).map((d) => d.itemId));
    expect(plan.reduce((a, p) => a + p.repeats, 0)).toBe(count === 0 ? 0 : budget);
  });
});
