// A whole run in process on both API flavours: every item, turn, source, search and expectation is
// recorded with stable keys, the run completes and the result counts add up.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { iterateSearches, runTargets, storedItems } from '../../src/store/queries.js';
import { FAST, asked, cleanup, corpusDir, emulator, op, runSuite, storedItem, storedRun, storedTurns, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const suiteText = (api: 'legacy' | 'versioned') => `
name: happy
defaults:
  api: ${api}
  concurrency: 2
  tags: [nightly]
  poll: { strategy: fixed, interval: 1s }
questions:
  - id: retry-policy
    question: Where is the retryPolicy of fetch implemented?
    followups:
      - Which status codes does retryPolicy retry?
      - question: How is backoffDelay computed?
        expect:
          contains: backoffDelay
    tags: [http]
    repeats: 2
    expect:
      contains: [backoffDelay]
      notContains: "I don't know"
      matches: "/github\\\\.com\\\\/org\\\\/repo/"
      sourcesInclude: [github.com/org/repo]
      state: completed
  - id: plain
    question: Where is parseSuite defined?
  - id: token-limit
    question: "[[token-limit]] Explain every function of the parser."
    tags: [errors]
    expect:
      state: error
      errorCode: TOKEN_LIMIT_EXCEEDED
searches:
  - id: retry-count
    query: retry count:all
    tags: [search]
    expect:
      exhaustive: true
      minCount: 1
`;

describe.each(['legacy', 'versioned'] as const)('a suite with follow-ups, tags, repeats and searches (%s)', (api) => {
  it('records every item, turn, expectation and search, and completes with exit code 0', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const loaded = await suite(suiteText(api));
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })]);
    try {
      const { result, db } = run;
      expect(result.exitCode, JSON.stringify(result)).toBe(ExitCode.ok);
      expect(result.status).toBe('completed');
      expect(storedRun(db, result.runId).status).toBe('completed');
      expect(storedRun(db, result.runId).endedAt).not.toBeNull();

      // Plan: repeat 0 of everything, then repeat 1 of the question that repeats; stable keys.
      const all = storedItems(db, result.runId);
      expect(all.map((i) => i.itemKey)).toEqual([
        'main/question/retry-policy/0',
        'main/question/plain/0',
        'main/question/token-limit/0',
        'main/search/retry-count/0',
        'main/question/retry-policy/1',
      ]);
      expect(all.every((i) => i.itemStatus === 'done' && i.startedAt !== null && i.endedAt !== null)).toBe(true);
      expect(storedItem(db, result.runId, 'main/question/retry-policy/0').tags).toEqual(['nightly', 'http']);
      expect(storedItem(db, result.runId, 'main/search/retry-count/0').tags).toEqual(['nightly', 'search']);
      expect(Object.fromEntries(all.map((i) => [i.itemKey, i.outcome]))).toEqual({
        'main/question/retry-policy/0': 'completed',
        'main/question/plain/0': 'completed',
        'main/question/token-limit/0': 'error',
        'main/search/retry-count/0': 'complete',
        'main/question/retry-policy/1': 'completed',
      });

      // Result counts per target: the expected error is an outcome, not a failure.
      expect(result.targets.main?.counts).toEqual({ completed: 3, error: 1, complete: 1 });
      expect(result.expectations.failed).toBe(0);
      expect(result.expectations.passed).toBeGreaterThan(10);

      // Turns: three per repeat of the conversation with follow-ups, in order, all with their server latency.
      for (const repeat of [0, 1]) {
        const key = `main/question/retry-policy/${repeat}`;
        const rows = storedTurns(db, result.runId, key);
        expect(rows.map((t) => [t.turn, t.state])).toEqual([
          [0, 'completed'],
          [1, 'completed'],
          [2, 'completed'],
        ]);
        expect(rows.map((t) => t.text)).toEqual([
          'Where is the retryPolicy of fetch implemented?',
          'Which status codes does retryPolicy retry?',
          'How is backoffDelay computed?',
        ]);
        for (const t of rows) {
          expect(t.answer).toEqual(expect.stringContaining('github.com/org/repo'));
          // The versioned API titles the conversation, so only a lone answered question gets it.
          if (api === 'legacy' || t.turn === 0) expect(t.title).toEqual(expect.any(String));
          expect(t.sentAt).toEqual(expect.any(String));
          expect(t.observedEndAt).toEqual(expect.any(String));
          expect(t.wallMs).toEqual(expect.any(Number));
          expect(t.serverMs).toBeGreaterThan(0);
          expect(t.polls).toBeGreaterThanOrEqual(1);
        }
        const ref = storedItem(db, result.runId, key).conversationRef;
        expect(ref).toEqual(expect.any(String));
      }
      // Each repeat is its own conversation.
      expect(storedItem(db, result.runId, 'main/question/retry-policy/0').conversationRef).not.toBe(
        storedItem(db, result.runId, 'main/question/retry-policy/1').conversationRef,
      );

      const first = storedTurns(db, result.runId, 'main/question/retry-policy/0')[0]!;
      const { sources, suggestedFollowups: followups } = first;
      if (api === 'legacy') {
        expect(followups.length).toBeGreaterThan(0);
        // Legacy: sources and every stats field; latency from stats.time_millis.
        expect(sources.length).toBeGreaterThan(0);
        expect(sources).toContainEqual(expect.objectContaining({ label: 'github.com/org/repo' }));
        for (const column of ['timeMillis', 'toolCalls', 'totalInputTokens', 'promptTokens', 'completionTokens', 'totalTokens', 'credits'] as const) {
          expect(first[column], column).toEqual(expect.any(Number));
        }
        expect(first.serverMsSource).toBe('stats.time_millis');
        expect(first.questionId).toEqual(expect.any(String));
        expect(result.targets.main?.credits).toBeGreaterThan(0);
      } else {
        // Versioned: no sources and no stats (NULL, never 0); latency from the timestamps.
        expect(sources).toEqual([]);
        expect(followups).toEqual([]);
        for (const column of ['timeMillis', 'toolCalls', 'totalInputTokens', 'promptTokens', 'completionTokens', 'totalTokens', 'credits'] as const) {
          expect(first[column], column).toBeNull();
        }
        expect(first.serverMsSource).toBe('timestamps');
        // Not measured, not zero: the versioned API reports no credits.
        expect(result.targets.main?.credits).toBeNull();
      }

      // The expected error is recorded with its normalized and raw codes.
      const [failed] = storedTurns(db, result.runId, 'main/question/token-limit/0');
      expect(failed).toMatchObject({ state: 'error', errorCode: 'TOKEN_LIMIT_EXCEEDED' });
      expect(failed!.errorRawCode).toEqual(expect.any(String));

      // Expectations with their reasons, per turn.
      const checks = storedItem(db, result.runId, 'main/question/retry-policy/0').expectations;
      expect(checks.map((c) => [c.name, c.passed, c.turn])).toEqual([
        ['contains', true, 2], // the follow-up's own check
        ['contains', true, 2],
        ['notContains', true, 2],
        ['matches', true, 2],
        ['sourcesInclude', true, 2],
        ['state', true, 2],
      ]);
      expect(checks.every((c) => c.reason.length > 0)).toBe(true);
      expect(checks.find((c) => c.name === 'state')?.reason).toBe('expected state completed, got completed');
      expect(storedItem(db, result.runId, 'main/question/token-limit/0').expectations.map((c) => [c.name, c.passed, c.reason])).toEqual([
        ['state', true, 'expected state error, got error'],
        ['errorCode', true, expect.stringMatching(/^expected error TOKEN_LIMIT_EXCEEDED, got TOKEN_LIMIT_EXCEEDED/)],
      ]);
      // No expectations: nothing recorded.
      expect(storedItem(db, result.runId, 'main/question/plain/0').expectations).toEqual([]);

      // The search: verdict, the server's and the client's counts, repositories and files.
      const [search] = [...iterateSearches(db, result.runId)];
      expect(search).toMatchObject({ itemKey: 'main/search/retry-count/0', query: 'retry count:all', verdict: 'complete', exhaustive: true, repositories: 2, files: 3, error: null });
      expect(search!.matchCount).toBe(search!.counted);
      expect(search!.counted).toBeGreaterThan(0);
      expect(search!.wallMs).toBeGreaterThanOrEqual(0);
      expect(storedItem(db, result.runId, 'main/search/retry-count/0').expectations.map((c) => [c.name, c.passed])).toEqual([
        ['exhaustive', true],
        ['minCount', true],
      ]);

      // The emulator was asked exactly the planned turns: 2 x 3 + 1 + 1.
      expect(asked(e, api)).toBe(8);
      expect(e.counters()[op(api, 'create')]).toBe(4);
      expect(e.counters()['stream.search']).toBe(1);
    } finally {
      run.close();
    }
  });
});

describe('several targets', () => {
  it('runs the same suite on each, with keys and counts per target', async () => {
    const [a, b] = await Promise.all([emulator(), emulator()]);
    const loaded = await suite(`
name: two
defaults: { poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q1
    question: Where is parseSuite defined?
  - id: q2
    question: Where is openStore defined?
    followups: [And where is it closed?]
`);
    const run = await runSuite(loaded, [target({ name: 'alpha', emulator: a }), target({ name: 'beta', emulator: b })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(storedItems(run.db, run.result.runId).map((i) => i.itemKey)).toEqual([
        'alpha/question/q1/0',
        'alpha/question/q2/0',
        'beta/question/q1/0',
        'beta/question/q2/0',
      ]);
      expect(run.result.targets).toMatchObject({
        alpha: { counts: { completed: 2 }, credits: null, passed: 0, failed: 0, questions: { counts: { completed: 2 } }, searches: { counts: {} } },
        beta: { counts: { completed: 2 }, credits: null, passed: 0, failed: 0 },
      });
      expect(asked(a, 'versioned')).toBe(3);
      expect(asked(b, 'versioned')).toBe(3);
      const targets = runTargets(run.db, run.result.runId).map(({ name, url, api, emulated }) => ({ name, url, api, emulated }));
      expect(targets).toEqual([
        { name: 'alpha', url: a.url, api: 'versioned', emulated: false },
        { name: 'beta', url: b.url, api: 'versioned', emulated: false },
      ]);
    } finally {
      run.close();
    }
  });
});
