import { setMaxListeners } from 'node:events';
import type { RunTally } from '../model/tally.js';
import { CreditBudget } from './budget.js';
import { deleteConversation } from './cleanup.js';
import type { RunContext, TargetRuntime } from './item-context.js';
import { DEFAULT_LEASE, LeaseKeeper } from './lease-keeper.js';
import { LiveGrading } from './live-grading.js';
import { openRun, planOf, targetOf, type Opening } from './open-run.js';
import type { WorkItem } from './plan.js';
import type { RunOptions, RunResult } from './run-options.js';
import { runVerdict } from './run-verdict.js';
import { schedule, type Spend } from './schedule.js';
import { storageWatch } from './storage-watch.js';
import { recordProductVersions } from './product-versions.js';
import { preflight, targetRuntime } from './target-setup.js';
import { RunEvents } from './run-events.js';
import { apiFlavourOf } from '../model/api-flavour.js';

export type { RunTarget } from './item-context.js';
export type { LiveGrader, LiveGradingTotals } from './live-grading.js';
export type { RunOptions, RunResult, TargetResult } from './run-options.js';
export type { RunEvent, RunObserver } from './events.js';

/**
 * Runs a suite on its targets: opens the run (or resumes it) under its lease, sets each target up, schedules
 * the items under per-target limits, follows each to its end through the recorder, and decides the run's
 * status and exit code.
 */
export async function executeRun(given: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const { suite } = given;
  const events = new RunEvents(given.observers);
  const log = (message: string) => events.log(message);
  const items = planOf(given);
  // A resumed run keeps the API it started with: its stored conversation refs belong to that flavour.
  const { lease, ...opened } = openRun(given, items, apiFlavourOf({ given: given.api, suite: suite.resolved.questions[0]?.api }), log);
  const { runId } = opened;
  if (lease.takeover) log(lease.takeover);
  // A database that cannot be written any more stops the run at once: nothing more is launched and what
  // runs is cancelled on the server (its observations could not be recorded).
  const storage = storageWatch(given.recorder);
  // The budget stops launching as a signal does, but the run's verdict is its own (exit code 10).
  const overBudget = new AbortController();
  const budget = given.budget && new CreditBudget(given.budget, creditsRecorded(given.recorder.tally(runId)));
  // Losing the lease (another process took it over after our heartbeat went silent) stops launching.
  const keeper = new LeaseKeeper(lease, runId, (given.lease ?? DEFAULT_LEASE).heartbeatMs, log);
  const stop = AbortSignal.any([given.stop, keeper.lost, storage.broken, overBudget.signal]);
  const abort = AbortSignal.any([given.abort, storage.broken]);
  // Every running item listens on these two signals at once: many listeners are expected, not a leak.
  setMaxListeners(0, stop, abort);
  const run: RunContext = { runId, recorder: storage.recorder, events, signals: { stop, abort }, cleanup: given.cleanup, log };
  try {
    given.onRunOpened?.(runId);
    const spend = budget && { budget, stop: () => overBudget.abort() };
    const grading = given.grader && new LiveGrading(given.grader, { runId, recorder: run.recorder, abort, log });
    const runtimes = new Map(given.targets.map((t) => [t.name, targetRuntime(t, given, run, { ...opened, earlierSendsGivenUpBy: lease.earlierSendsGivenUpBy })]));
    await followRun(given, run, opened, items, runtimes, grading, spend);
    const stoppedBy = spend?.budget.stopped;
    const verdict = runVerdict({ runId, recorder: run.recorder, runtimes, stopped: stop.aborted, storageFault: storage.fault(), lost: keeper.lost, stoppedBy });
    return {
      runId,
      status: verdict.status,
      exitCode: verdict.exitCode,
      targets: verdict.targets,
      expectations: verdict.expectations,
      wallMs: Math.round(performance.now() - started),
      ...(grading && { grading: grading.totals }),
      ...(stoppedBy !== undefined && { stoppedBy }),
    };
  } finally {
    keeper.release();
  }
}

/** Credits a run recorded so far: its items', and those of attempts stopped on an interruption. */
function creditsRecorded(tally: RunTally): number {
  return Object.values(tally.targets).reduce((sum, t) => sum + (t.credits ?? 0) + (t.rerunAfterInterruption.credits ?? 0), 0);
}

/**
 * Checks the targets, runs the pending items and the deletes a resumed --cleanup still owes, waits for their
 * gradings, and looks for late landings of lost creates; the targets' clients are closed whatever happens.
 */
async function followRun(
  options: RunOptions,
  run: RunContext,
  opened: Opening,
  items: Iterable<WorkItem>,
  runtimes: Map<string, TargetRuntime>,
  grading: LiveGrading | undefined,
  spend: Spend | undefined,
): Promise<void> {
  const { runId, recorder, events, signals, log } = run;
  const { resumed } = opened;
  try {
    await preflight([...runtimes.values()], options.suite.resolved.questions.length > 0, log, signals.stop);
    // After the preflight: a target it stopped is asked nothing more, its version neither.
    await recordProductVersions([...runtimes.values()].filter((r) => !r.gate.stopped), run, options.productVersionTimeoutMs);
    const pending = (item: WorkItem) => !resumed.done.has(item.key);
    let total = 0;
    let alreadyDone = 0;
    for (const item of items) {
      total++;
      if (!pending(item)) alreadyDone++;
    }
    events.emit({ type: 'run-started', runId, total, alreadyDone, targets: options.targets.map((t) => t.name) });
    await Promise.all([
      ...schedule(items, pending, runtimes, { run, resumeOf: (key) => resumed.unfinished.get(key), grading, spend }),
      ...resumed.toDelete.map((item) => {
        const r = runtimes.get(targetOf(item.key)) as TargetRuntime;
        // A target refused at preflight would only time out on each delete.
        if (r.gate.stopped) return undefined;
        return r.questions.run(() => deleteConversation({ runId, recorder, client: r.client, log }, item.key, item.conversationRef));
      }),
    ]);
    await grading?.settled();
    if (!signals.stop.aborted) {
      const live = [...runtimes.values()].filter((r) => !r.gate.stopped);
      await Promise.all(live.map((r) => r.recovery.checkUnowned(signals.abort)));
    }
  } finally {
    // Each close waits for its requests in flight: the lease is released only after it (see RunLease.earlierSendsGivenUpBy).
    await Promise.allSettled([...runtimes.values()].flatMap((r) => [r.client.close(), r.stream.close()]));
    events.emit({ type: 'run-ended', runId });
  }
}
