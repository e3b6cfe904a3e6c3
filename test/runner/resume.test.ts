// Resume in process, from crashes at exact points (a recorder that dies): finished items stay, a
// conversation that exists is re-polled by its stored id, a turn that may have been sent is looked for,
// and nothing is asked twice. The SIGKILL proof with a real process is in test/e2e/run-resume-kill.test.ts.
import { hostname } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadedSuite } from '../../src/config/load-suite.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { TurnRecord } from '../../src/model/item.js';
import { executeRun } from '../../src/runner/run.js';
import { findRun, openStore, storedItems } from '../../src/store/index.js';
import { CrashError, crashingRecorder, type CrashPoint } from './fixtures/crash.js';
import {
  CapturingReporter,
  deadPid,
  asked,
  cleanup,
  emulator,
  op,
  runSuite,
  setLease,
  storedItem,
  storedRun,
  storedTurns,
  suite,
  target,
  tempDir,
  writeSuite,
} from './fixtures/harness.js';
import { loadSuite } from '../../src/config/load-suite.js';
import { client, closeAll } from '../helpers/emulator.js';

afterEach(cleanup);
afterEach(closeAll);

/** Virtual time starts now and runs fast: server timestamps are never before the local send time. */
const NOW_FAST = { timeScale: 0.0001 };

const SUITE = `
name: resume
defaults: { concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
    followups: [Which callers use retryPolicy?]
  - id: q2
    question: Where is backoffDelay implemented?
`;

const SEND_WINDOW_MS = 200;

interface Crashed {
  dbPath: string;
  runId: number;
  loaded: LoadedSuite;
}

/** Runs until the crash point, then leaves the database as a killed process would. */
async function runUntilCrash(e: RunningEmulator, loaded: LoadedSuite, point: CrashPoint, extra: { api?: 'legacy' | 'versioned'; cleanup?: boolean } = {}, sendWindowMs = SEND_WINDOW_MS): Promise<Crashed> {
  const dbPath = path.join(tempDir(), 'runs.db');
  const store = openStore(dbPath);
  const stop = new AbortController();
  const recorder = crashingRecorder(store, point, stop);
  try {
    await executeRun({
      suite: loaded,
      targets: [target({ name: 'main', emulator: e })],
      recorder,
      observers: [new CapturingReporter()],
      onQuota: 'stop',
      maxQuotaWaitMs: 1000,
      cleanup: false,
      stop: stop.signal,
      abort: new AbortController().signal,
      retry: { baseDelayMs: 1, maxDelayMs: 20 },
      // A send may land up to this long after it was made: a resume waits that long before asking again.
      requestTimeoutMs: sendWindowMs,
      ...extra,
    });
    throw new Error('the run ended without reaching its crash point');
  } catch (error) {
    if (!(error instanceof CrashError)) throw error;
  } finally {
    store.close();
  }
  expect(recorder.crashed).toBe(true);
  const check = openStore(dbPath);
  const runId = findRun(check.db, 'latest')!.id;
  expect(storedRun(check.db, runId).status).toBe('running');
  check.close();
  return { dbPath, runId, loaded };
}

const turnIs = (key: string, turn: number, state: TurnRecord['state']) => (_run: number, k: string, t: number, r: TurnRecord) => k === key && t === turn && r.state === state;

async function resume(e: RunningEmulator, crashed: Crashed, extra: { cleanup?: boolean } = {}) {
  return runSuite(crashed.loaded, [target({ name: 'main', emulator: e })], { dbPath: crashed.dbPath, resumeRunId: crashed.runId, requestTimeoutMs: SEND_WINDOW_MS, ...extra });
}

describe('resume after a crash at a given point', () => {
  it('a question processing when the process died is re-polled by its stored id, not asked again', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'recordTurn', when: turnIs('main/question/q1/0', 0, 'processing'), at: 'next' });
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(run.result.runId).toBe(crashed.runId);
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      expect(e.counters()[op('versioned', 'addQuestion')]).toBe(1);
      expect(storedTurns(run.db, run.result.runId, 'main/question/q1/0').map((t) => t.state)).toEqual(['completed', 'completed']);
      expect(storedItems(run.db, run.result.runId).every((i) => i.itemStatus === 'done')).toBe(true);
      expect(storedRun(run.db, run.result.runId).status).toBe('completed');
    } finally {
      run.close();
    }
  });

  it('a create recorded as sending but never sent is asked on resume, once', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'recordTurn', when: turnIs('main/question/q1/0', 0, 'sending'), at: 'after' });
    expect(e.counters()[op('versioned', 'create')]).toBe(0);
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      expect(asked(e, 'versioned')).toBe(3);
    } finally {
      run.close();
    }
  });

  it('a create that reached the server before the process died is found and followed, not asked again', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'conversationCreated', when: (_r, key) => key === 'main/question/q1/0', at: 'before' });
    expect(e.counters()[op('versioned', 'create')]).toBe(1);
    const db = openStore(crashed.dbPath);
    expect(storedItem(db.db, crashed.runId, 'main/question/q1/0').conversationRef).toBeNull();
    db.close();
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode, JSON.stringify(run.reporter.logs)).toBe(ExitCode.ok);
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      expect(asked(e, 'versioned')).toBe(3);
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0').conversationRef).toBe(`users/1/conversations/${e.questionRecords()[0]!.conversationId}`);
    } finally {
      run.close();
    }
  });

  it.each(['legacy', 'versioned'] as const)('%s: a follow-up that reached the server is found in the conversation, not asked again', async (api) => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'recordTurn', when: turnIs('main/question/q1/0', 1, 'processing'), at: 'before' }, { api });
    expect(e.counters()[op(api, 'addQuestion')]).toBe(1);
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(e.counters()[op(api, 'addQuestion')]).toBe(1);
      expect(e.counters()[op(api, 'create')]).toBe(2);
      expect(storedTurns(run.db, run.result.runId, 'main/question/q1/0').map((t) => t.state)).toEqual(['completed', 'completed']);
    } finally {
      run.close();
    }
  });

  it('a follow-up recorded as sending but never sent is asked on resume, once', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'recordTurn', when: turnIs('main/question/q1/0', 1, 'sending'), at: 'after' });
    expect(e.counters()[op('versioned', 'addQuestion')]).toBe(0);
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(e.counters()[op('versioned', 'addQuestion')]).toBe(1);
      expect(e.questionRecords().map((q) => q.text)).toEqual([
        'Where is retryPolicy implemented?',
        'Which callers use retryPolicy?',
        'Where is backoffDelay implemented?',
      ]);
    } finally {
      run.close();
    }
  });

  /** Two repeats of one question; the process dies once the second's create is recorded as sending, before it is sent. */
  const crashedBeforeSecondRepeat = async (e: RunningEmulator) => {
    const loaded = await suite(`
name: repeats
defaults: { concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q
    question: Where is retryPolicy implemented?
    repeats: 2
`);
    return runUntilCrash(e, loaded, { method: 'recordTurn', when: turnIs('main/question/q/1', 0, 'sending'), at: 'after' });
  };

  it('a repeat never sent does not adopt the conversation of another repeat with the same text', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await crashedBeforeSecondRepeat(e);
    expect(e.counters()[op('versioned', 'create')]).toBe(1);
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      // Repeat 1 is asked: two conversations, one per repeat.
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      const refs = storedItems(run.db, run.result.runId).map((i) => i.conversationRef);
      expect(new Set(refs).size).toBe(2);
    } finally {
      run.close();
    }
  });

  // Servers name a conversation with the owner's numeric id (users/1/... here, users/476/... on a real one)
  // though the create said users/~self; a record of another server or an older dsbench may hold another form.
  it.each(['users/~self/conversations/', 'users/-/conversations/', ''])('a repeat never sent does not adopt another repeat\'s conversation recorded as %s<id>', async (form) => {
    const e = await emulator(NOW_FAST);
    const crashed = await crashedBeforeSecondRepeat(e);
    const first = e.questionRecords()[0]!.conversationId;
    const stored = openStore(crashed.dbPath);
    // The store never writes these forms itself: the raw file stands in for such a record.
    stored.db.prepare('UPDATE items SET conversation_ref = ? WHERE run_id = ? AND key = ?').run(`${form}${first}`, crashed.runId, 'main/question/q/0');
    stored.close();
    const run = await resume(e, crashed);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      const ids = storedItems(run.db, run.result.runId).map((i) => i.conversationRef?.split('/').pop());
      expect(new Set(ids).size).toBe(2);
    } finally {
      run.close();
    }
  });

  it('--cleanup on resume deletes the conversation of an item that finished just before the crash', async () => {
    const e = await emulator(NOW_FAST);
    const finished = (_run: number, key: string) => key === 'main/question/q2/0';
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'itemFinished', when: finished, at: 'after' }, { cleanup: true });
    // q1 was deleted as it finished; q2 finished, and the process died before deleting it.
    expect(e.counters()[op('versioned', 'delete')]).toBe(1);
    const run = await resume(e, crashed, { cleanup: true });
    try {
      expect(e.counters()[op('versioned', 'delete')]).toBe(2);
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      expect(storedItems(run.db, run.result.runId).map((i) => i.deletedAt !== null)).toEqual([true, true]);
    } finally {
      run.close();
    }
  });

  it('--cleanup on resume takes a conversation already deleted on the server (404) as deleted, without complaint', async () => {
    const e = await emulator(NOW_FAST);
    const finished = (_run: number, key: string) => key === 'main/question/q2/0';
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'itemFinished', when: finished, at: 'after' }, { cleanup: true });
    const db = new Database(crashed.dbPath, { readonly: true });
    const ref = storedItem(db, crashed.runId, 'main/question/q2/0').conversationRef!;
    db.close();
    await client(e, 'versioned').delete(ref);
    const run = await resume(e, crashed, { cleanup: true });
    try {
      expect(storedItems(run.db, run.result.runId).map((i) => i.deletedAt !== null)).toEqual([true, true]);
      expect(run.reporter.logs.filter((l) => l.includes('could not delete'))).toEqual([]);
    } finally {
      run.close();
    }
  });

  it('finished items and their turns are kept as they were', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'recordTurn', when: turnIs('main/question/q2/0', 0, 'processing'), at: 'next' });
    const before = openStore(crashed.dbPath);
    const q1Before = { item: storedItem(before.db, crashed.runId, 'main/question/q1/0'), turns: storedTurns(before.db, crashed.runId, 'main/question/q1/0') };
    before.close();
    expect(q1Before.item.itemStatus).toBe('done');
    const run = await resume(e, crashed);
    try {
      expect(storedItem(run.db, run.result.runId, 'main/question/q1/0')).toEqual(q1Before.item);
      expect(storedTurns(run.db, run.result.runId, 'main/question/q1/0')).toEqual(q1Before.turns);
      expect(e.counters()[op('versioned', 'create')]).toBe(2);
      expect(run.result.targets.main?.counts).toEqual({ completed: 2 });
    } finally {
      run.close();
    }
  });
});

describe('how long a resume waits for a send of the process before it', () => {
  // Long enough that the bounds below are told apart on a loaded machine.
  const WINDOW_MS = 2000;
  const crashAfterSending = { method: 'recordTurn', when: turnIs('main/question/q1/0', 0, 'sending'), at: 'after' } as const;

  /**
   * Resumes a run that died just after recording a create as being sent (never sent), its send dated half a
   * window back (as if the resume came that much later): how long the resume took. A window counted from the
   * takeover takes about one window; from the send, half of one (too early: asked twice had it landed late);
   * two from the send, one and a half.
   */
  async function resumeAfterCrash(leaveLease: (crashed: Crashed) => void, sendTimeKnown = true): Promise<{ ms: number; creates: number }> {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), crashAfterSending, {}, WINDOW_MS);
    leaveLease(crashed);
    // The store records a send's time as it happens: dating it back takes the raw file.
    const db = new Database(crashed.dbPath);
    const moved = db.prepare("UPDATE turns SET sent_at = ? WHERE run_id = ? AND state = 'sending'").run(sendTimeKnown ? new Date(Date.now() - WINDOW_MS / 2).toISOString() : null, crashed.runId);
    db.close();
    expect(moved.changes).toBe(1);
    const begun = performance.now();
    const run = await runSuite(crashed.loaded, [target({ name: 'main', emulator: e })], { dbPath: crashed.dbPath, resumeRunId: crashed.runId, requestTimeoutMs: WINDOW_MS });
    const ms = performance.now() - begun;
    try {
      expect(run.result.exitCode, JSON.stringify(run.reporter.logs)).toBe(ExitCode.ok);
      return { ms, creates: e.counters()[op('versioned', 'create')] ?? 0 };
    } finally {
      run.close();
    }
  }

  // The send may still land up to a request timeout after it was given up; the process gave it up when its
  // own timeout ran out or, at the latest, when it ended: before the resume took the lease.
  it.each([
    ['released the lease', () => undefined],
    ['is provably gone (same host, pid not running)', (c: Crashed) => setLease(c.dbPath, c.runId, { pid: deadPid(), host: hostname(), heartbeatAgoMs: 0 })],
  ])('one request timeout after taking the run over, not two after the send, when the process %s', async (_why, leaveLease) => {
    const { ms, creates } = await resumeAfterCrash(leaveLease);
    expect(creates).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(WINDOW_MS - 50);
    expect(ms).toBeLessThan(1.3 * WINDOW_MS);
  });

  it('a send of unknown time (no sent_at): one request timeout after taking the run over', async () => {
    const { ms, creates } = await resumeAfterCrash(() => undefined, false);
    expect(creates).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(WINDOW_MS - 50);
  });

  // A pid that is not running, but on another host: only the host tells that it may be alive.
  it('two request timeouts after the send when the holder only went silent (it may be alive on another host)', async () => {
    const { ms, creates } = await resumeAfterCrash((c) => setLease(c.dbPath, c.runId, { pid: deadPid(), host: 'ci-runner-7', heartbeatAgoMs: 120_000 }));
    expect(creates).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(1.5 * WINDOW_MS - 50);
  });
});

describe('resume of runs that ended early', () => {
  it('items skipped by a quota stop run on resume; done ones stay', async () => {
    const e = await emulator({ ...NOW_FAST, quota: { limit: 1 } });
    const loaded = await suite(SUITE.replace('questions:', 'questions:\n  - id: q0\n    question: Where is parseSuite defined?'));
    const first = await runSuite(loaded, [target({ name: 'main', emulator: e })]);
    first.close();
    expect(first.result.exitCode).toBe(ExitCode.aborted);
    expect(first.result.targets.main?.counts).toEqual({ completed: 1, error: 1, skipped: 1 });
    const created = e.counters()[op('versioned', 'create')] ?? 0;
    const again = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath: first.dbPath, resumeRunId: first.result.runId, onQuota: 'continue' });
    try {
      // Only the skipped item is run again (the quota is still used up, so it is refused too).
      expect(e.counters()[op('versioned', 'create')]).toBe(created + 1);
      expect(again.result.targets.main?.counts).toEqual({ completed: 1, error: 2 });
      expect(again.result.status).toBe('completed');
    } finally {
      again.close();
    }
  });
});

describe('resume guards', () => {
  it('refuses a completed run, an unknown run, a changed suite, other targets and another API, naming what is wrong', async () => {
    const e = await emulator(NOW_FAST);
    const file = writeSuite(SUITE);
    const loaded = await loadSuite(file);
    const done = await runSuite(loaded, [target({ name: 'main', emulator: e })]);
    done.close();
    const store = openStore(done.dbPath);
    const attempt = (resumeRunId: number, s: LoadedSuite, targets = [target({ name: 'main', emulator: e })], api?: 'legacy' | 'versioned') =>
      executeRun({
        suite: s,
        targets,
        api,
        recorder: store.recorder,
        observers: [],
        onQuota: 'stop',
        maxQuotaWaitMs: 0,
        cleanup: false,
        resumeRunId,
        stop: new AbortController().signal,
        abort: new AbortController().signal,
      }).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    try {
      const completed = await attempt(done.result.runId, loaded);
      expect(completed).toBeInstanceOf(UsageError);
      expect(completed?.message).toBe(`run ${done.result.runId} completed; there is nothing to resume`);

      const unknown = await attempt(99, loaded);
      expect(unknown).toBeInstanceOf(UsageError);
      expect(unknown?.message).toContain('there is no run 99');

      // A completed run made resumable again, as no command does: the raw file.
      store.db.prepare("UPDATE runs SET status = 'aborted' WHERE id = ?").run(done.result.runId);
      const changed = await attempt(done.result.runId, await loadSuite(writeSuite(`${SUITE}\n# edited\n`, 'suite.yaml', path.dirname(file))));
      expect(changed).toBeInstanceOf(UsageError);
      expect(changed?.message).toContain(`the suite ${file} changed since run ${done.result.runId} started`);

      const other = await attempt(done.result.runId, loaded, [target({ name: 'main', emulator: e }), target({ name: 'second', emulator: e })]);
      expect(other).toBeInstanceOf(UsageError);
      expect(other?.message).toContain('resume with the same --target and --repeats');

      const otherApi = await attempt(done.result.runId, loaded, undefined, 'legacy');
      expect(otherApi).toBeInstanceOf(UsageError);
      expect(otherApi?.message).toBe(`run ${done.result.runId} used the versioned API; its conversations cannot be followed with --api legacy`);
      expect(asked(e, 'versioned')).toBe(3);
    } finally {
      store.close();
    }
  });
});

describe('expectations of a resumed conversation', () => {
  const SUITE_OF = (api: 'legacy' | 'versioned') => `
name: resumed-expectations
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q
    question: Where is retryPolicy implemented?
    followups:
      - question: Which callers use retryPolicy?
        expect: { contains: retryPolicy, sourcesInclude: ${api === 'legacy' ? 'github.com/org/repo' : 'github.com/org/other'} }
      - Where is retryPolicy tested?
    expect: { contains: retryPolicy, maxSeconds: 100000${api === 'legacy' ? ', maxCredits: 100000, maxTotalTokens: 100000000' : ''} }
`;

  async function crashAtLastTurn(api: 'legacy' | 'versioned') {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE_OF(api)), { method: 'recordTurn', when: turnIs('main/question/q/0', 2, 'processing'), at: 'next' }, { api });
    return { e, crashed };
  }

  async function check(e: RunningEmulator, api: 'legacy' | 'versioned', run: Awaited<ReturnType<typeof runSuite>>) {
    const checks = storedItem(run.db, run.result.runId, 'main/question/q/0').expectations;
    expect(run.result.exitCode, JSON.stringify(checks)).toBe(ExitCode.ok);
    expect(checks.map((c) => [c.name, c.turn])).toEqual([
      ['contains', 1],
      ['sourcesInclude', 1],
      ['contains', 2],
      ...(api === 'legacy' ? [['maxCredits', null], ['maxTotalTokens', null]] : []),
      ['maxSeconds', null],
    ]);
    expect(asked(e, api)).toBe(3);
    // Credits are summed over all three turns, not only the one finished after the resume.
    const reported = storedTurns(run.db, run.result.runId).flatMap((t) => (t.credits === null ? [] : [t.credits]));
    const credits = reported.length === 0 ? null : reported.reduce((sum, c) => sum + c, 0);
    // The versioned API reports no credits: not measured (null), not 0.
    expect(run.result.targets.main?.credits).toBe(credits);
    if (api === 'legacy') expect(credits).toBeGreaterThan(0);
  }

  it.each(['legacy', 'versioned'] as const)('%s: are judged on every turn, with the turns the store gives back', async (api) => {
    const { e, crashed } = await crashAtLastTurn(api);
    const run = await resume(e, crashed);
    try {
      await check(e, api, run);
    } finally {
      run.close();
    }
  });
});

describe('a resumed run under --max-credits', () => {
  it('counts the credits of the turns finished before the crash once: the budget adds only what the resumed item cost after', async () => {
    const e = await emulator(NOW_FAST);
    const crashed = await runUntilCrash(e, await suite(SUITE), { method: 'recordTurn', when: turnIs('main/question/q1/0', 1, 'processing'), at: 'before' }, { api: 'legacy' });
    // Only the legacy API reports credits. q1 runs on within the cap; q2 is expected to cost more than any cap, so the budget stops there and
    // says what it counted as recorded.
    const budget = { maxCredits: 1e9, expected: (item: { key: string }) => (item.key === 'main/question/q2/0' ? 1e12 : undefined) };
    const run = await runSuite(crashed.loaded, [target({ name: 'main', emulator: e })], { dbPath: crashed.dbPath, resumeRunId: crashed.runId, requestTimeoutMs: SEND_WINDOW_MS, budget });
    try {
      expect(run.result.exitCode).toBe(ExitCode.budgetExceeded);
      const recorded = run.result.targets.main?.credits as number;
      expect(recorded).toBeGreaterThan(0);
      expect(storedTurns(run.db, run.result.runId, 'main/question/q1/0').map((t) => t.state)).toEqual(['completed', 'completed']);
      expect(run.result.stoppedBy).toContain(`stopped launching: ${Math.round(recorded * 100) / 100} credits recorded + 0 expected`);
    } finally {
      run.close();
    }
  });
});
