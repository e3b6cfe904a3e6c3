import { describe, expect, it } from 'vitest';
import { ConfirmTally } from '../../src/report/compare/confirm-tally.js';
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
