// Quota and entitlement exhaustion under --on-quota stop, continue and wait.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { quotaSnapshots, storedItems } from '../../src/store/queries.js';
import { FAST, asked, cleanup, emulator, op, runSuite, storedRun, storedTurns, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const ordered = (api: 'legacy' | 'versioned', first: string, poll = '{ strategy: fixed, interval: 1s }', followup = true) => `
name: quota
defaults: { api: ${api}, concurrency: 1, poll: ${poll} }
questions:
  - id: q0
    question: "${first}"
  - id: q1
    question: Where is retryPolicy implemented?
  - id: q2
    question: Where is backoffDelay implemented?
${followup ? '    followups: [Who calls it?]\n' : ''}`;

describe('--on-quota stop', () => {
  it.each([
    ['versioned', '[[quota-exceeded]] Where is retryPolicy?', 'QUOTA_EXCEEDED'],
    // The legacy API reports quota and entitlement exhaustion as RateLimitExceeded.
    ['legacy', '[[entitlement-exceeded]] Where is retryPolicy?', 'RATE_LIMITED'],
    // The legacy API's only limit kind in public clients: it must stop a run as a quota does.
    ['legacy', '[[rate-limited]] Where is retryPolicy?', 'RATE_LIMITED'],
  ] as const)('%s: %s stops launching on the target; the rest is skipped with the reason; exit code 4', async (api, text, code) => {
    const e = await emulator();
    const run = await runSuite(await suite(ordered(api, text)), [target({ name: 'main', emulator: e })], { onQuota: 'stop' });
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.aborted);
      expect(result.status).toBe('aborted');
      expect(storedRun(db, result.runId).status).toBe('aborted');
      expect(asked(e, api)).toBe(1);
      const reason = `${code} on target main: stopped launching (--on-quota stop)`;
      expect(storedItems(db, result.runId).map((i) => [i.itemKey, i.itemStatus, i.outcome, i.message])).toEqual([
        ['main/question/q0/0', 'done', 'error', null],
        ['main/question/q1/0', 'skipped', 'skipped', reason],
        ['main/question/q2/0', 'skipped', 'skipped', reason],
      ]);
      expect(storedTurns(db, result.runId, 'main/question/q0/0')[0]).toMatchObject({ state: 'error', errorCode: code });
      expect(result.targets.main).toMatchObject({ counts: { error: 1, skipped: 2 }, stopped: reason });
      expect(run.reporter.logs).toContain(reason);
    } finally {
      run.close();
    }
  });

  it('a small quota.limit: the first answer uses it up, the next is refused, the rest skipped', async () => {
    const e = await emulator({ ...FAST, quota: { limit: 1 } });
    const run = await runSuite(await suite(ordered('legacy', 'Where is parseSuite defined?')), [target({ name: 'main', emulator: e })]);
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.aborted);
      expect(storedItems(db, result.runId).map((i) => i.outcome)).toEqual(['completed', 'error', 'skipped']);
      expect(storedTurns(db, result.runId, 'main/question/q1/0')).toMatchObject([{ state: 'error', errorCode: 'RATE_LIMITED' }]);
      expect(asked(e, 'legacy')).toBe(2);
      const snapshots = quotaSnapshots(db, result.runId);
      expect(snapshots.length).toBeGreaterThanOrEqual(2);
      expect(snapshots[0]).toMatchObject({ target: 'main', quotaLimit: 1, resetTime: expect.any(String) });
    } finally {
      run.close();
    }
  });

  it('a quota stop on one target leaves the other running', async () => {
    const [limited, free] = await Promise.all([emulator({ ...FAST, quota: { limit: 1 } }), emulator()]);
    const run = await runSuite(await suite(ordered('legacy', 'Where is parseSuite defined?')), [
      target({ name: 'limited', emulator: limited }),
      target({ name: 'free', emulator: free }),
    ]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.aborted);
      expect(run.result.targets.free).toMatchObject({ counts: { completed: 3 }, credits: expect.any(Number), passed: 0, failed: 0, questions: { counts: { completed: 3 } } });
      expect(run.result.targets.limited?.counts).toEqual({ completed: 1, error: 1, skipped: 1 });
      expect(asked(free, 'legacy')).toBe(4);
    } finally {
      run.close();
    }
  });
});

describe('--on-quota continue', () => {
  it('runs every item; refused questions are recorded as errors', async () => {
    const e = await emulator();
    const run = await runSuite(await suite(ordered('versioned', '[[quota-exceeded]] Where is retryPolicy?')), [target({ name: 'main', emulator: e })], {
      onQuota: 'continue',
    });
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(run.result.status).toBe('completed');
      expect(storedItems(run.db, run.result.runId).map((i) => i.outcome)).toEqual(['error', 'completed', 'completed']);
      expect(asked(e, 'versioned')).toBe(4);
      expect(run.result.targets.main?.stopped).toBeUndefined();
    } finally {
      run.close();
    }
  });
});

describe('--on-quota wait', () => {
  /** Polls every 20 ms of real time, so q0 and q1 end well before the reset; one answer uses the whole quota. */
  const REAL_POLL = '{ strategy: fixed, interval: 20ms, min: 10ms }';
  /** Real time on the emulator (time scale 1, starting now) so its reset time is a real instant; answers in 50 ms. */
  const realTime = (resetInMs: number) => ({
    timeScale: 1,
    sigma: 0,
    medianMs: 50,
    agent: { minMs: 10, rejectAfterMs: 20 },
    quota: { limit: 1, resetTime: new Date(Date.now() + resetInMs).toISOString() },
  });

  /** The three questions under --on-quota wait. */
  const runWaiting = async (e: RunningEmulator, maxQuotaWaitMs: number) =>
    runSuite(await suite(ordered('versioned', 'Where is parseSuite defined?', REAL_POLL, false)), [target({ name: 'main', emulator: e })], { onQuota: 'wait', maxQuotaWaitMs });

  it('holds launches until the reset time, then continues', async () => {
    const e = await emulator(realTime(1_500));
    const reset = Date.parse(e.options.quota.resetTime as string);
    const run = await runWaiting(e, 60_000);
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.ok);
      const all = storedItems(db, result.runId);
      // q0 used the quota, q1 was refused, q2 waited for the reset and was answered.
      expect(all.map((i) => i.outcome)).toEqual(['completed', 'error', 'completed']);
      expect(Date.parse(all[2]!.startedAt!)).toBeGreaterThanOrEqual(reset);
      expect(Date.parse(all[1]!.endedAt!)).toBeLessThan(reset);
      expect(run.reporter.logs.some((l) => l.startsWith('QUOTA_EXCEEDED on target main: waiting until'))).toBe(true);
      expect(e.counters()[op('versioned', 'create')]).toBe(3);
    } finally {
      run.close();
    }
  });

  it('on a time-scaled emulator, waits for the reset in scaled time (100 s virtual at 0.01 is 1 s real)', async () => {
    const t0 = Date.now();
    const e = await emulator({ ...realTime(0), timeScale: 0.01, startTime: new Date(t0).toISOString(), quota: { limit: 1, resetTime: new Date(t0 + 100_000).toISOString() } });
    // Far below the 100 s of virtual time to the reset: only the scaled wait is allowed.
    const run = await runWaiting(e, 10_000);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      const all = storedItems(run.db, run.result.runId);
      expect(all.map((i) => i.outcome)).toEqual(['completed', 'error', 'completed']);
      expect(Date.parse(all[2]!.startedAt!)).toBeGreaterThanOrEqual(t0 + 1_000);
      expect(run.reporter.logs.some((l) => /waiting until .+ \(server time, \d+(\.\d)? s of real time at time scale 0\.01\)/.test(l))).toBe(true);
    } finally {
      run.close();
    }
  });

  it('stops when the reset is later than --max-quota-wait', async () => {
    const e = await emulator(realTime(60 * 60_000));
    const run = await runWaiting(e, 100);
    try {
      expect(run.result.exitCode).toBe(ExitCode.aborted);
      const all = storedItems(run.db, run.result.runId);
      expect(all.map((i) => i.outcome)).toEqual(['completed', 'error', 'skipped']);
      expect(all[2]!.message).toMatch(
        /^QUOTA_EXCEEDED on target main: the quota resets at .+ \(server time\), later than --max-quota-wait allows; stopped launching \(raise --max-quota-wait, or --resume this run after the reset\)$/,
      );
    } finally {
      run.close();
    }
  });
});
