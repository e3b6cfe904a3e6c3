// The run's lease: a second process on a held run is refused at once (exit 7) naming the holder; a dead or
// silent holder is taken over and the takeover logged; other runs and reports are never blocked.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { RunHeldError } from '../../src/errors/errors.js';
import { findRun, leaseHolder, listRuns, openStore } from '../../src/store/index.js';
import { PACED, SLOW } from '../helpers/emulator.js';
import { asked, CapturingReporter, cleanup, deadPid, emulator, op, runSuite, setLease, storedTurns, suite, target, tempDir } from './fixtures/harness.js';

afterEach(cleanup);

/** Resolves once `done()` holds, looking every 5 ms. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const SUITE = `
name: lease
defaults: { concurrency: 2, poll: { strategy: fixed, interval: 20ms } }
questions:
  - { id: q1, question: Where is retryPolicy implemented? }
  - { id: q2, question: Where is backoffDelay implemented? }
  - { id: q3, question: Where is parseRetryAfter implemented? }
  - { id: q4, question: Where is isRetryableStatus implemented? }
`;


/** A run of SUITE finished in a fresh database, whose lease the tests then set as another process left it. */
async function finishedRun() {
  const e = await emulator(PACED);
  const loaded = await suite(SUITE);
  const dbPath = path.join(tempDir(), 'runs.db');
  const done = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath });
  done.close();
  return { e, loaded, dbPath, done };
}

describe('the lease of a run', () => {
  it('refuses a second process on a run that is being run, at once, naming the holder; it asks nothing', async () => {
    const e = await emulator(PACED);
    const loaded = await suite(SUITE);
    const dbPath = path.join(tempDir(), 'runs.db');
    let opened!: (id: number) => void;
    const runOpened = new Promise<number>((resolve) => (opened = resolve));
    const first = runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, onRunOpened: (id) => opened(id) });
    const runId = await runOpened;
    const askedBefore = asked(e, 'versioned');
    const second = runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: runId });
    const refused = await second.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RunHeldError);
    const held = refused as RunHeldError;
    expect(held.exitCode).toBe(ExitCode.runHeld);
    expect(held.message).toMatch(new RegExp(`^run ${runId} is held by another dsbench \\(pid ${process.pid} on host ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) since \\d{4}-`));
    expect(asked(e, 'versioned')).toBeLessThanOrEqual(askedBefore + 2);

    const run = await first;
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(asked(e, 'versioned')).toBe(4);
      // Released at the end: a later resume is told the run is complete, not that it is held.
      expect(leaseHolder(run.db, run.result.runId)).toBeUndefined();
    } finally {
      run.close();
    }
  });

  it('does not block another run or a report on the same database', async () => {
    const e = await emulator(PACED);
    const loaded = await suite(SUITE);
    const dbPath = path.join(tempDir(), 'runs.db');
    let opened!: (id: number) => void;
    const runOpened = new Promise<number>((resolve) => (opened = resolve));
    const first = runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, onRunOpened: (id) => opened(id) });
    const heldId = await runOpened;
    const store = openStore(dbPath);
    expect(listRuns(store.db).map((r) => r.id)).toContain(heldId);
    store.close();
    const other = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath });
    other.close();
    expect(other.result.exitCode).toBe(ExitCode.ok);
    expect(other.result.runId).not.toBe(heldId);
    (await first).close();
  });

  it('takes over the lease of a process that is gone, and logs it', async () => {
    const { e, loaded, dbPath, done } = await finishedRun();
    const pid = deadPid();
    setLease(dbPath, done.result.runId, { pid, host: hostname(), heartbeatAgoMs: 0 });
    const reporter = new CapturingReporter();
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: done.result.runId, reporter });
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(reporter.logs.join('\n')).toContain(`took over run ${done.result.runId} from pid ${pid} on host ${hostname()}`);
      expect(reporter.logs.join('\n')).toContain(`process ${pid} is gone`);
      expect(asked(e, 'versioned')).toBe(4);
    } finally {
      run.close();
    }
  });

  it('takes over a lease whose heartbeat is stale, and refuses one of another host that is fresh', async () => {
    const { e, loaded, dbPath, done } = await finishedRun();
    const runId = done.result.runId;

    setLease(dbPath, runId, { pid: 1, host: 'ci-runner-7', heartbeatAgoMs: 1000 });
    await expect(runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: runId })).rejects.toThrow(
      /held by another dsbench \(pid 1 on host ci-runner-7\).*last heartbeat 1 s ago/,
    );

    setLease(dbPath, runId, { pid: 1, host: 'ci-runner-7', heartbeatAgoMs: 120_000 });
    const reporter = new CapturingReporter();
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: runId, reporter });
    run.close();
    expect(run.result.exitCode).toBe(ExitCode.ok);
    expect(reporter.logs.join('\n')).toMatch(/took over run \d+ from pid 1 on host ci-runner-7 .*its heartbeat stopped 120 s ago/);
  });

  it('bounds the earlier processes\' sends by the takeover only when no holder of the run ever went silent', async () => {
    const { dbPath, done } = await finishedRun();
    const runId = done.result.runId;
    const store = openStore(dbPath);
    try {
      const released = store.recorder.acquireLease(runId, 60_000);
      expect(released.earlierSendsGivenUpBy).toBeTypeOf('number');
      released.release();
      // Silent on another host: it may be alive and sending, even after the process that took it over released the run.
      setLease(dbPath, runId, { pid: deadPid(), host: 'ci-runner-7', heartbeatAgoMs: 120_000 });
      const fromSilent = store.recorder.acquireLease(runId, 60_000);
      expect(fromSilent.takeover).toMatch(/its heartbeat stopped 120 s ago/);
      expect(fromSilent.earlierSendsGivenUpBy).toBeUndefined();
      fromSilent.release();
      const after = store.recorder.acquireLease(runId, 60_000);
      expect(after.takeover).toBeUndefined();
      expect(after.earlierSendsGivenUpBy).toBeUndefined();
      after.release();
    } finally {
      store.close();
    }
  });

  it('cancels nothing after a takeover, even when nothing was written since (its item times out between polls)', async () => {
    // Questions process for a minute; after the first poll saw it processing, the next ones see no change and
    // write nothing, until the item's 1 s timeout sends its cancel.
    const e = await emulator(SLOW);
    const loaded = await suite(SUITE.replace('concurrency: 2, poll: { strategy: fixed, interval: 20ms }', 'concurrency: 1, timeout: 1s, poll: { strategy: fixed, interval: 200ms }'));
    const dbPath = path.join(tempDir(), 'runs.db');
    let opened!: (id: number) => void;
    const runOpened = new Promise<number>((resolve) => (opened = resolve));
    const running = runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, lease: { heartbeatMs: 60_000, staleMs: 60_000 }, onRunOpened: (id) => opened(id) });
    const runId = await runOpened;
    // A second poll went out only once what the first one recorded was committed: nothing is left to commit.
    await until(() => (e.counters()[op('versioned', 'get')] ?? 0) >= 2);
    setLease(dbPath, runId, { pid: 1, host: 'ci-runner-7', heartbeatAgoMs: 0 });
    await expect(running).rejects.toMatchObject({ exitCode: ExitCode.runHeld });
    expect(e.counters()[op('versioned', 'cancel')] ?? 0).toBe(0);
    expect(e.counters()[op('versioned', 'create')]).toBe(1);
  });

  it('stops when another process took its lease over: asks, cancels and records nothing more, and leaves the run to it (exit 7)', async () => {
    // Each question processes 400 ms: the takeover comes while q1's first turn is processing, its follow-up not yet asked.
    const e = await emulator(PACED);
    const loaded = await suite(SUITE.replace('concurrency: 2', 'concurrency: 1').replace('Where is retryPolicy implemented? }', 'Where is retryPolicy implemented?, followups: [Which callers use it?] }'));
    const dbPath = path.join(tempDir(), 'runs.db');
    let opened!: (id: number) => void;
    const runOpened = new Promise<number>((resolve) => (opened = resolve));
    const reporter = new CapturingReporter();
    const running = runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, reporter, lease: { heartbeatMs: 20, staleMs: 60_000 }, onRunOpened: (id) => opened(id) });
    const runId = await runOpened;
    await until(() => (e.counters()[op('versioned', 'create')] ?? 0) >= 1);
    setLease(dbPath, runId, { pid: 1, host: 'ci-runner-7', heartbeatAgoMs: 0 });
    const recorded = () => {
      const db = new Database(dbPath, { readonly: true });
      try {
        return storedTurns(db, runId).length;
      } finally {
        db.close();
      }
    };
    const turnsAtTakeover = recorded();
    await expect(running).rejects.toMatchObject({ exitCode: ExitCode.runHeld, message: expect.stringContaining(`run ${runId} was taken over by another dsbench (pid 1 on host ci-runner-7`) });
    expect(e.counters()[op('versioned', 'create')]).toBe(1);
    expect(e.counters()[op('versioned', 'addQuestion')] ?? 0).toBe(0);
    expect(e.counters()[op('versioned', 'cancel')] ?? 0).toBe(0);
    expect(recorded()).toBe(turnsAtTakeover);
    const db = new Database(dbPath, { readonly: true });
    try {
      expect(leaseHolder(db, runId)?.pid).toBe(1);
      expect(findRun(db, runId)?.status).toBe('running');
    } finally {
      db.close();
    }
  });
});
