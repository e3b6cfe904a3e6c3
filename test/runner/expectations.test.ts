// Every expectation kind, passing and failing, with the reason recorded; one failure makes exit code 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { evaluateQuestion, evaluateSearch } from '../../src/runner/expectations.js';
import type { SearchRecord, TurnRecord } from '../../src/model/item.js';
import { storedItems } from '../../src/store/index.js';
import { FAST, cleanup, corpusDir, emulator, runSuite, storedItem, suite, target, type RunHandle } from './fixtures/harness.js';

const ANSWERED = 'Where is retryPolicy implemented?';

const SUITE = `
name: expectations
defaults: { api: legacy, concurrency: 8, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: contains-pass
    question: ${ANSWERED}
    expect: { contains: [GITHUB.COM/ORG/REPO, retryPolicy] }
  - id: contains-fail
    question: ${ANSWERED}
    expect: { contains: nothing-like-this }
  - id: not-contains-pass
    question: ${ANSWERED}
    expect: { notContains: "I don't know" }
  - id: not-contains-fail
    question: ${ANSWERED}
    expect: { notContains: retrypolicy }
  - id: matches-pass
    question: ${ANSWERED}
    expect: { matches: "/RETRYPOLICY\\\\(\\\\)/i" }
  - id: matches-fail
    question: ${ANSWERED}
    expect: { matches: "^nothing$" }
  - id: sources-pass
    question: ${ANSWERED}
    expect: { sourcesInclude: [github.com/org/repo, github.com/org/other] }
  - id: sources-fail
    question: ${ANSWERED}
    expect: { sourcesInclude: github.com/nope/nope }
  - id: state-pass
    question: "[[internal-error]] Where is retryPolicy?"
    expect: { state: error }
  - id: state-fail
    question: "[[internal-error]] Where is retryPolicy?"
    expect: { state: completed }
  - id: error-code-pass
    question: "[[token-limit]] Where is retryPolicy?"
    expect: { errorCode: TOKEN_LIMIT_EXCEEDED }
  - id: error-code-fail
    question: "[[internal-error]] Where is retryPolicy?"
    expect: { errorCode: TOKEN_LIMIT_EXCEEDED }
  - id: totals-pass
    question: ${ANSWERED}
    followups: [Which callers use it?]
    expect: { maxCredits: 1000000, maxTotalTokens: 100000000, maxSeconds: 100000 }
  - id: totals-fail
    question: ${ANSWERED}
    followups: [Which callers use it?]
    expect: { maxCredits: 0, maxTotalTokens: 0, maxSeconds: 0.001 }
  - id: turns-fail
    question: "[[internal-error]] Where is retryPolicy?"
    followups: [Which callers use it?]
  - id: followup-own-check
    question: ${ANSWERED}
    followups:
      - question: Which callers use it?
        expect: { contains: nothing-like-this }
searches:
  - id: exhaustive-pass
    query: retry count:all
    expect: { exhaustive: true, count: 6, minCount: 6, maxCount: 6 }
  - id: exhaustive-fail
    query: retry count:2
    expect: { exhaustive: true }
  - id: not-exhaustive-pass
    query: retry count:2
    expect: { exhaustive: false }
  - id: count-fail
    query: retry count:all
    expect: { count: 5 }
  - id: min-count-fail
    query: retry count:all
    expect: { minCount: 7 }
  - id: max-count-fail
    query: retry count:all
    expect: { maxCount: 5 }
`;

let run: RunHandle;
const checks = (id: string) => {
  const found = storedItems(run.db, run.result.runId).find((i) => i.suiteItemId === id);
  if (!found) throw new Error(`no item ${id}`);
  return found.expectations;
};
const brief = (id: string) => checks(id).map((c) => [c.name, c.passed, c.reason]);

beforeAll(async () => {
  const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
  run = await runSuite(await suite(SUITE), [target({ name: 'main', emulator: e })]);
});

afterAll(async () => {
  run?.close();
  await cleanup();
});

describe('expectations recorded by a run (legacy, so stats exist)', () => {
  it('fails the run with exit code 1 and counts passes and failures', () => {
    expect(run.result.exitCode).toBe(ExitCode.expectationsFailed);
    expect(run.result.status).toBe('completed');
    const all = storedItems(run.db, run.result.runId).flatMap((i) => i.expectations);
    const failed = all.filter((c) => !c.passed).length;
    const passed = all.filter((c) => c.passed).length;
    expect(run.result.expectations).toEqual({ passed, failed });
    expect(run.result.targets.main).toMatchObject({ passed, failed });
  });

  it('contains / notContains: case-insensitive substrings', () => {
    expect(brief('contains-pass')).toEqual([
      ['contains', true, 'answer contains "GITHUB.COM/ORG/REPO"'],
      ['contains', true, 'answer contains "retryPolicy"'],
    ]);
    expect(brief('contains-fail')).toEqual([['contains', false, 'answer does not contain "nothing-like-this"']]);
    expect(brief('not-contains-pass')).toEqual([['notContains', true, 'answer does not contain "I don\'t know"']]);
    expect(brief('not-contains-fail')).toEqual([['notContains', false, 'answer contains "retrypolicy"']]);
  });

  it('matches: regular expressions with flags', () => {
    expect(brief('matches-pass')).toEqual([['matches', true, 'answer matches /RETRYPOLICY\\(\\)/i']]);
    expect(brief('matches-fail')).toEqual([['matches', false, 'answer does not match /^nothing$/']]);
  });

  it('sourcesInclude: each repository among the sources, the found ones listed on failure', () => {
    expect(brief('sources-pass')).toEqual([
      ['sourcesInclude', true, 'github.com/org/repo is among the sources'],
      ['sourcesInclude', true, 'github.com/org/other is among the sources'],
    ]);
    const [failed] = brief('sources-fail');
    expect(failed?.slice(0, 2)).toEqual(['sourcesInclude', false]);
    expect(failed?.[2]).toMatch(/^github\.com\/nope\/nope is not among the sources \(.*github\.com\/org\/repo.*\)$/);
  });

  it('state and errorCode', () => {
    expect(brief('state-pass')).toEqual([['state', true, 'expected state error, got error']]);
    expect(brief('state-fail')).toEqual([['state', false, 'expected state completed, got error']]);
    expect(brief('error-code-pass')).toEqual([['errorCode', true, expect.stringMatching(/^expected error TOKEN_LIMIT_EXCEEDED, got TOKEN_LIMIT_EXCEEDED \(.+\)$/)]]);
    expect(brief('error-code-fail')).toEqual([['errorCode', false, expect.stringMatching(/^expected error TOKEN_LIMIT_EXCEEDED, got INTERNAL \(.+\)$/)]]);
    expect(storedItem(run.db, run.result.runId, 'main/question/error-code-fail/0').outcome).toBe('error');
  });

  it('maxCredits, maxTotalTokens and maxSeconds: totals over all turns', () => {
    const turns = storedItem(run.db, run.result.runId, 'main/question/totals-fail/0').turns;
    const sum = (field: 'credits' | 'totalTokens' | 'serverMs') => turns.reduce((total, t) => total + (t[field] ?? 0), 0);
    const credits = { credits: sum('credits'), tokens: sum('totalTokens'), ms: sum('serverMs'), n: turns.length };
    expect(credits.n).toBe(2);
    expect(brief('totals-pass')).toEqual([
      ['maxCredits', true, expect.stringMatching(/^\d+(\.\d+)? credits, at most 1000000 expected$/)],
      ['maxTotalTokens', true, expect.stringMatching(/^\d+ tokens, at most 100000000 expected$/)],
      ['maxSeconds', true, expect.stringMatching(/^\d+\.\d s on the server, at most 100000 s expected$/)],
    ]);
    expect(brief('totals-fail')).toEqual([
      ['maxCredits', false, `${credits.credits} credits, at most 0 expected`],
      ['maxTotalTokens', false, `${credits.tokens} tokens, at most 0 expected`],
      ['maxSeconds', false, `${(credits.ms / 1000).toFixed(1)} s on the server, at most 0.001 s expected`],
    ]);
  });

  it('a conversation cut short by an unexpected error fails a turns check; a follow-up has its own checks', () => {
    expect(brief('turns-fail')).toEqual([['turns', false, 'only 1 of 2 turns were asked: turn 0 ended error']]);
    expect(checks('followup-own-check').map((c) => [c.name, c.passed, c.turn])).toEqual([['contains', false, 1]]);
  });

  it('searches: exhaustive, count, minCount, maxCount', () => {
    expect(brief('exhaustive-pass')).toEqual([
      ['exhaustive', true, 'search was exhaustive (verdict complete)'],
      ['count', true, '6 matches (server), 6 expected'],
      ['minCount', true, '6 matches (server), at least 6 expected'],
      ['maxCount', true, '6 matches (server), at most 6 expected'],
    ]);
    expect(brief('exhaustive-fail')).toEqual([['exhaustive', false, 'search was not exhaustive (verdict limit_hit)']]);
    expect(brief('not-exhaustive-pass')).toEqual([['exhaustive', true, 'search was not exhaustive (verdict limit_hit)']]);
    expect(brief('count-fail')).toEqual([['count', false, '6 matches (server), 5 expected']]);
    expect(brief('min-count-fail')).toEqual([['minCount', false, '6 matches (server), at least 7 expected']]);
    expect(brief('max-count-fail')).toEqual([['maxCount', false, '6 matches (server), at most 5 expected']]);
  });
});

describe('expectations on the versioned API', () => {
  it('credits and tokens are not measured (no stats), which fails the check rather than passing it silently', async () => {
    const e = await emulator();
    const versioned = await runSuite(
      await suite(`
name: versioned
defaults: { poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q
    question: ${ANSWERED}
    expect: { maxCredits: 10, maxTotalTokens: 10, maxSeconds: 100000, sourcesInclude: github.com/org/repo }
`),
      [target({ name: 'v', emulator: e })],
    );
    try {
      expect(versioned.result.exitCode).toBe(ExitCode.expectationsFailed);
      expect(storedItem(versioned.db, versioned.result.runId, 'v/question/q/0').expectations.map((c) => [c.name, c.passed, c.reason])).toEqual([
        ['sourcesInclude', true, 'github.com/org/repo is among the answer links (the API gave no sources)'],
        ['maxCredits', false, 'not measured: the API reported no credits (the versioned API has no stats)'],
        ['maxTotalTokens', false, 'not measured: the API reported no tokens (the versioned API has no stats)'],
        ['maxSeconds', true, expect.stringMatching(/ s on the server, at most 100000 s expected$/)],
      ]);
    } finally {
      versioned.close();
    }
  });
});

describe('evaluate functions on their own', () => {
  const turn = (over: Partial<TurnRecord>): TurnRecord => ({ state: 'completed', text: 'q', answer: 'An answer', polls: 1, ...over });

  it('a question never asked fails one check', () => {
    expect(evaluateQuestion({ contains: ['x'] }, [], [])).toEqual([{ name: 'asked', passed: false, reason: 'the question was never asked' }]);
  });

  it('an expected timeout passes on a timed-out turn and excuses the missing follow-ups', () => {
    const results = evaluateQuestion({ state: 'timeout' }, [{ text: 'f', expect: {} }], [turn({ state: 'timeout', answer: undefined })]);
    expect(results).toEqual([{ name: 'state', passed: true, reason: 'expected state timeout, got timeout', turn: 0 }]);
  });

  it('maxSeconds is not measured when a turn lacks the server latency', () => {
    const results = evaluateQuestion({ maxSeconds: 10 }, [], [turn({ serverMs: undefined })]);
    expect(results).toEqual([{ name: 'maxSeconds', passed: false, reason: 'not measured: the server gave no latency for every turn' }]);
  });

  it('a search without a server count is judged on the client count', () => {
    const record: SearchRecord = { query: 'q', params: {}, verdict: 'complete', counted: 3, countedByType: {}, repositories: 1, files: 1, wallMs: 1, skipped: [] };
    expect(evaluateSearch({ count: 3 }, record)).toEqual([{ name: 'count', passed: true, reason: '3 matches (client), 3 expected' }]);
  });
});
