// Failed requests: a 500 on create is looked for and asked again once it provably did not act; 429 and 503,
// and any 5xx of a poll, are retried transparently; a create whose outcome is unknown is looked for, never asked twice.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { iterateSearches, storedItems } from '../../src/store/queries.js';
import { asked, cleanup, corpusDir, emulator, FAST, op, runSuite, storedItem, storedTurns, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const ONE = (api: 'legacy' | 'versioned', followups = '') => `
name: faults
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
${followups}  - id: q2
    question: Where is backoffDelay implemented?
`;

describe.each(['legacy', 'versioned'] as const)('client errors (%s)', (api) => {
  it('a 500 on create may have acted: looked for, not there once its send window passed, asked again; the run completes', async () => {
    const e = await emulator();
    e.injectFault({ operation: op(api, 'create'), kind: '500' });
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: e })], { requestTimeoutMs: 300 });
    try {
      const { db, result } = run;
      const logs = run.reporter.logs.join('\n');
      expect(result.exitCode, logs).toBe(ExitCode.ok);
      expect(storedItems(db, result.runId).map((i) => [i.itemKey, i.outcome])).toEqual([
        ['main/question/q1/0', 'completed'],
        ['main/question/q2/0', 'completed'],
      ]);
      const endpoint = api === 'legacy' ? 'legacy.create (POST /.api/deepsearch/v1)' : 'versioned.CreateConversation (POST ';
      expect(logs).toContain(endpoint);
      expect(logs).toContain('failed with HTTP 500');
      // The look after the window and the decision, in one line.
      expect(logs).toMatch(
        /main\/question\/q1\/0: looked at 0 conversations (through every page|back to \S+ on the server's clock): none is this question; turn 0 is not on the server 0\.3 s after its attempt failed: it did not act; asking it again/,
      );
      // The refused create, then the real ones: one question each on the server.
      expect(e.counters()[op(api, 'create')]).toBe(3);
      expect(e.questionRecords()).toHaveLength(2);
    } finally {
      run.close();
    }
  });

  it('a poll failing with 500 more times than the attempt limit is retried until it passes: the item completes', async () => {
    const e = await emulator();
    e.injectFault({ operation: op(api, 'get'), kind: '500', times: 8 });
    const run = await runSuite(await suite(ONE(api)), [target({ name: 'main', emulator: e })]);
    try {
      expect(run.result.exitCode, JSON.stringify(run.reporter.logs)).toBe(ExitCode.ok);
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(['completed', 'completed']);
      expect(e.faultCounters()[`${op(api, 'get')}.500`]).toBe(8);
      expect(asked(e, api)).toBe(2);
    } finally {
      run.close();
    }
  });

  it('429 and 503 on create, poll and follow-up are retried transparently', async () => {
    const e = await emulator();
    for (const name of ['create', 'get', 'addQuestion'] as const) {
      e.injectFault({ operation: op(api, name), kind: '429', retryAfterSeconds: 0 });
      e.injectFault({ operation: op(api, name), kind: '503' });
    }
    const run = await runSuite(await suite(ONE(api, '    followups: [Who calls it?]\n')), [target({ name: 'main', emulator: e })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(['completed', 'completed']);
      expect(storedTurns(run.db, run.result.runId, 'main/question/q1/0').map((t) => t.state)).toEqual(['completed', 'completed']);
      expect(e.faultCounters()).toMatchObject({ [`${op(api, 'create')}.429`]: 1, [`${op(api, 'create')}.503`]: 1 });
      // Two refused attempts, then the two real creates: nothing was created twice.
      expect(e.counters()[op(api, 'create')]).toBe(4);
      expect(e.questionRecords()).toHaveLength(3);
    } finally {
      run.close();
    }
  });

  it('a create whose connection breaks after the server acted is found by listing and followed, not asked again', async () => {
    // Virtual time starts now and runs fast, so the server's createdAt is not before the local send time.
    const e = await emulator({ timeScale: 0.0001 });
    e.injectFault({ operation: op(api, 'create'), kind: 'resetAfterAction' });
    const run = await runSuite(await suite(ONE(api, '    followups: [Who calls it?]\n')), [target({ name: 'main', emulator: e })]);
    try {
      const { db, result } = run;
      expect(result.exitCode, JSON.stringify(run.reporter.logs)).toBe(ExitCode.ok);
      expect(e.faultCounters()[`${op(api, 'create')}.resetAfterAction`]).toBe(1);
      // q1's create was received once (and q2's once): no question was asked twice.
      expect(e.counters()[op(api, 'create')]).toBe(2);
      expect(e.questionRecords().map((q) => q.text)).toEqual(['Where is retryPolicy implemented?', 'Who calls it?', 'Where is backoffDelay implemented?']);
      expect(e.counters()[op(api, 'list')]).toBeGreaterThanOrEqual(2); // the preflight, then the search for the lost create
      const q1 = storedItem(db, result.runId, 'main/question/q1/0');
      expect(q1.outcome).toBe('completed');
      expect(q1.conversationRef).toBe(api === 'legacy' ? String(e.questionRecords()[0]!.conversationId) : `users/1/conversations/${e.questionRecords()[0]!.conversationId}`);
      expect(storedTurns(db, result.runId, 'main/question/q1/0').map((t) => t.state)).toEqual(['completed', 'completed']);
      expect(run.reporter.logs.some((l) => l.includes('following it instead of asking again'))).toBe(true);
    } finally {
      run.close();
    }
  });

  it('a follow-up whose connection breaks after the server acted is found in the conversation', async () => {
    const e = await emulator({ timeScale: 0.0001 });
    e.injectFault({ operation: op(api, 'addQuestion'), kind: 'resetAfterAction' });
    const run = await runSuite(await suite(ONE(api, '    followups: [Who calls it?]\n')), [target({ name: 'main', emulator: e })]);
    try {
      expect(run.result.exitCode, JSON.stringify(run.reporter.logs)).toBe(ExitCode.ok);
      expect(e.counters()[op(api, 'addQuestion')]).toBe(1);
      expect(storedTurns(run.db, run.result.runId, 'main/question/q1/0').map((t) => t.state)).toEqual(['completed', 'completed']);
    } finally {
      run.close();
    }
  });
});

describe('a lost create that never reached the server', () => {
  it('is looked for, again once its send could no longer land, then asked again: once on the server', async () => {
    const e = await emulator({ ...FAST });
    // reset: the socket is destroyed before the handler acts; for a create that is an unknown outcome too.
    e.injectFault({ operation: op('versioned', 'create'), kind: 'reset' });
    const run = await runSuite(await suite(ONE('versioned')), [target({ name: 'main', emulator: e })], { requestTimeoutMs: 300 });
    try {
      const logs = run.reporter.logs.join('\n');
      expect(run.result.exitCode, logs).toBe(ExitCode.ok);
      expect(e.questionRecords()).toHaveLength(2);
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0').outcome).toBe('completed');
      expect(logs).toContain('the outcome is unknown');
      // What the first look saw and the wait, in one line.
      expect(logs).toMatch(/q1\/0: looked at 0 conversations .*: none is this question; turn 0 is not on the server yet, but its send could still be landing: looking again in 0\.\d s/);
      expect(logs).toContain('it did not act; asking it again');
    } finally {
      run.close();
    }
  });
});

describe('search failures', () => {
  const SEARCHES = `
name: searches
defaults: { searchConcurrency: 1 }
searches:
  - id: s1
    query: retry count:all
  - id: s2
    query: retry count:all
    expect: { exhaustive: true }
  - id: s3
    query: retry count:all
`;

  it('an HTTP 500 on the stream is recorded as http_error with the status; exit code 3', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    e.streamFaults.enqueue('status500');
    const run = await runSuite(await suite(SEARCHES), [target({ name: 'main', emulator: e })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.unreachable);
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(['http_error', 'complete', 'complete']);
      const row = [...iterateSearches(run.db, run.result.runId)].find((s) => s.itemKey === 'main/search/s1/0');
      expect(row).toMatchObject({ verdict: 'http_error', httpStatus: 500, error: expect.stringContaining('500') });
    } finally {
      run.close();
    }
  });

  it('a stream cut before done is truncated: not a pass (exit 3, as dsbench search), and fails an exhaustive expectation', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    e.streamFaults.enqueue('cutBeforeDone', 'cutBeforeDone');
    const run = await runSuite(await suite(SEARCHES), [target({ name: 'main', emulator: e })]);
    try {
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(['truncated', 'truncated', 'complete']);
      expect(run.result.expectations.failed).toBeGreaterThan(0);
      expect(run.result.exitCode).toBe(ExitCode.unreachable);
    } finally {
      run.close();
    }
  });

  it('a 401 on the stream stops the target: later searches are skipped', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    e.streamFaults.enqueue('status401');
    const run = await runSuite(await suite(SEARCHES), [target({ name: 'main', emulator: e })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.unreachable);
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(['http_error', 'skipped', 'skipped']);
      expect(e.counters()['stream.search']).toBe(1);
    } finally {
      run.close();
    }
  });
});
