// A question past its timeout is cancelled on the server and recorded as timed out, with its wall time.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { START, cleanup, emulator, op, runSuite, storedItem, storedTurns, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

/** Questions take a minute of real time: any small timeout fires first. */
const SLOW = { timeScale: 1, sigma: 0, medianMs: 60_000, startTime: START };

describe.each(['legacy', 'versioned'] as const)('timeout (%s)', (api) => {
  it('cancels the question on the server and records timeout with the wall time', async () => {
    const e = await emulator(SLOW);
    const loaded = await suite(`
name: timeouts
defaults: { api: ${api}, poll: { strategy: fixed, interval: 50ms, min: 10ms } }
questions:
  - id: slow
    question: Where is retryPolicy implemented?
    followups: [Which callers use it?]
    timeout: 300ms
    expect: { state: timeout }
  - id: slow-unexpected
    question: Where is backoffDelay implemented?
    timeout: 200ms
`);
    const started = performance.now();
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })]);
    try {
      const { db, result } = run;
      // Well before the minute the answers take, however busy the machine.
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(storedItem(db, result.runId, 'main/question/slow/0')).toMatchObject({ itemStatus: 'done', outcome: 'timeout' });
      const [turn, ...rest] = storedTurns(db, result.runId, 'main/question/slow/0');
      expect(rest).toEqual([]); // the follow-up is never asked
      expect(turn).toMatchObject({ turn: 0, state: 'timeout', clientError: 'no answer within 300 ms; cancelled on the server' });
      // The timeout counts from the item's start (the create's request included), not from the send: the
      // item's time to the observed end is at least 300 ms (less 1 ms of ISO truncation).
      const startedAt = storedItem(db, result.runId, 'main/question/slow/0').startedAt as string;
      expect(Date.parse(turn!.observedEndAt as string) - Date.parse(startedAt)).toBeGreaterThanOrEqual(299);
      expect(turn!.wallMs).toBeLessThan(30_000);
      // At real pace the timeout is the local clock's: on a busy machine the first poll may already be past it.
      expect(turn!.polls).toBeGreaterThanOrEqual(1);
      expect(turn!.observedEndAt).toEqual(expect.any(String));
      // The expected timeout passes and excuses the follow-up that was never asked.
      expect(storedItem(db, result.runId, 'main/question/slow/0').expectations.map((c) => [c.name, c.passed])).toEqual([['state', true]]);
      expect(storedItem(db, result.runId, 'main/question/slow-unexpected/0').outcome).toBe('timeout');
      expect(result.targets.main?.counts).toEqual({ timeout: 2 });
      expect(result.exitCode).toBe(ExitCode.ok);

      // On the server: both cancelled, nothing left processing.
      expect(e.counters()[op(api, 'cancel')]).toBe(2);
      expect(e.counters()[op(api, 'addQuestion')]).toBe(0);
      expect(e.questionRecords().map((q) => q.outcome)).toEqual(['cancelled', 'cancelled']);
    } finally {
      run.close();
    }
  });
});

describe('timeout on a faster emulator', () => {
  it('is judged on the server clock, so a rehearsal times out where the instance would', async () => {
    // Answers take 10 emulated minutes, 6 real seconds at this scale; the 2-minute timeout is 1.2 real seconds at the least.
    const e = await emulator({ timeScale: 0.01, sigma: 0, medianMs: 600_000, startTime: START });
    const loaded = await suite(`
name: scaled-timeouts
defaults: { api: versioned, poll: { strategy: fixed, interval: 10s } }
questions:
  - id: slow
    question: Where is retryPolicy implemented?
    timeout: 2m
`);
    const started = performance.now();
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })]);
    try {
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_200);
      expect(storedTurns(run.db, run.result.runId, 'main/question/slow/0')[0]).toMatchObject({ state: 'timeout', clientError: 'no answer within 120 s; cancelled on the server' });
      // Cancelled on the server once it had run 2 emulated minutes there, long before its answer was due.
      const [question] = e.questionRecords();
      expect(question?.outcome).toBe('cancelled');
      expect(question!.endedAtVirtualMs! - question!.createdAtVirtualMs).toBeGreaterThanOrEqual(120_000);
      expect(question!.endedAtVirtualMs! - question!.createdAtVirtualMs).toBeLessThan(600_000);
    } finally {
      run.close();
    }
  });
});
