// A whole run in process on both API flavours: every item, turn, source, search and expectation is
// recorded with stable keys, the run completes and the result counts add up.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { iterateSearches, runTargets } from '../../src/store/queries.js';
import {
  FAST,
  asked,
  cleanup,
  corpusDir,
  emulator,
  expectations,
  item,
  items,
  op,
  runRow,
  runSuite,
  suite,
  target,
  turns,
} from './fixtures/harness.js';

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
      expect(runRow(db, result.runId).status).toBe('completed');
      expect(runRow(db, result.runId).ended_at).not.toBeNull();

      // Plan: repeat 0 of everything, then repeat 1 of the question that repeats; stable keys.
      const all = items(db, result.runId);
      expect(all.map((i) => i.key)).toEqual([
        'main/question/retry-policy/0',
        'main/question/plain/0',
        'main/question/token-limit/0',
        'main/search/retry-count/0',
        'main/question/retry-policy/1',
      ]);
      expect(all.every((i) => i.status === 'done' && i.started_at !== null && i.ended_at !== null)).toBe(true);
      expect(JSON.parse(item(db, result.runId, 'main/question/retry-policy/0').tags_json)).toEqual(['nightly', 'http']);
      expect(JSON.parse(item(db, result.runId, 'main/search/retry-count/0').tags_json)).toEqual(['nightly', 'search']);
      expect(Object.fromEntries(all.map((i) => [i.key, i.outcome]))).toEqual({
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
        const rows = turns(db, result.runId, key);
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
          expect(t.sent_at).toEqual(expect.any(String));
          expect(t.observed_end_at).toEqual(expect.any(String));
          expect(t.wall_ms).toEqual(expect.any(Number));
          expect(t.server_ms).toBeGreaterThan(0);
          expect(t.polls).toBeGreaterThanOrEqual(1);
        }
        const ref = item(db, result.runId, key).conversation_ref;
        expect(ref).toEqual(expect.any(String));
      }
      // Each repeat is its own conversation.
      expect(item(db, result.runId, 'main/question/retry-policy/0').conversation_ref).not.toBe(
        item(db, result.runId, 'main/question/retry-policy/1').conversation_ref,
      );

      const first = turns(db, result.runId, 'main/question/retry-policy/0')[0]!;
      const sources = db.prepare('SELECT label, link FROM sources WHERE run_id = ? AND item_key = ? AND turn = 0').all(result.runId, 'main/question/retry-policy/0');
      const followups = db.prepare('SELECT text FROM suggested_followups WHERE run_id = ? AND item_key = ? AND turn = 0').all(result.runId, 'main/question/retry-policy/0');
      if (api === 'legacy') {
        expect(followups.length).toBeGreaterThan(0);
        // Legacy: sources and every stats field; latency from stats.time_millis.
        expect(sources.length).toBeGreaterThan(0);
        expect(sources).toContainEqual(expect.objectContaining({ label: 'github.com/org/repo' }));
        for (const column of ['time_millis', 'tool_calls', 'total_input_tokens', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'credits']) {
          expect(first[column], column).toEqual(expect.any(Number));
        }
        expect(first.server_ms_source).toBe('stats.time_millis');
        expect(first.question_id).toEqual(expect.any(String));
        expect(result.targets.main?.credits).toBeGreaterThan(0);
      } else {
        // Versioned: no sources and no stats (NULL, never 0); latency from the timestamps.
        expect(sources).toEqual([]);
        expect(followups).toEqual([]);
        for (const column of ['time_millis', 'tool_calls', 'total_input_tokens', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'credits']) {
          expect(first[column], column).toBeNull();
        }
        expect(first.server_ms_source).toBe('timestamps');
        // Not measured, not zero: the versioned API reports no credits.
        expect(result.targets.main?.credits).toBeNull();
      }

      // The expected error is recorded with its normalized and raw codes.
      const [failed] = turns(db, result.runId, 'main/question/token-limit/0');
      expect(failed).toMatchObject({ state: 'error', error_code: 'TOKEN_LIMIT_EXCEEDED' });
      expect(failed!.error_raw_code).toEqual(expect.any(String));

      // Expectations with their reasons, per turn.
      const checks = expectations(db, result.runId, 'main/question/retry-policy/0');
      expect(checks.map((c) => [c.name, c.passed, c.turn])).toEqual([
        ['contains', 1, 2], // the follow-up's own check
        ['contains', 1, 2],
        ['notContains', 1, 2],
        ['matches', 1, 2],
        ['sourcesInclude', 1, 2],
        ['state', 1, 2],
      ]);
      expect(checks.every((c) => c.reason.length > 0)).toBe(true);
      expect(checks.find((c) => c.name === 'state')?.reason).toBe('expected state completed, got completed');
      expect(expectations(db, result.runId, 'main/question/token-limit/0').map((c) => [c.name, c.passed, c.reason])).toEqual([
        ['state', 1, 'expected state error, got error'],
        ['errorCode', 1, expect.stringMatching(/^expected error TOKEN_LIMIT_EXCEEDED, got TOKEN_LIMIT_EXCEEDED/)],
      ]);
      // No expectations: nothing recorded.
      expect(expectations(db, result.runId, 'main/question/plain/0')).toEqual([]);

      // The search: verdict, the server's and the client's counts, repositories and files.
      const [search] = [...iterateSearches(db, result.runId)];
      expect(search).toMatchObject({ itemKey: 'main/search/retry-count/0', query: 'retry count:all', verdict: 'complete', exhaustive: true, repositories: 2, files: 3, error: null });
      expect(search!.matchCount).toBe(search!.counted);
      expect(search!.counted).toBeGreaterThan(0);
      expect(search!.wallMs).toBeGreaterThanOrEqual(0);
      expect(expectations(db, result.runId, 'main/search/retry-count/0').map((c) => [c.name, c.passed])).toEqual([
        ['exhaustive', 1],
        ['minCount', 1],
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
      expect(items(run.db, run.result.runId).map((i) => i.key)).toEqual([
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
