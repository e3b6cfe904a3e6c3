import { headersFor } from '../config/credentials.js';
import { createClient } from '../deepsearch/index.js';
import { HttpStatusError } from '../errors/errors.js';
import { Transport } from '../http/transport.js';
import { commitBeforeSend } from './commit-before-send.js';
import type { RunContext, RunTarget, TargetRuntime } from './item-context.js';
import type { Opening } from './open-run.js';
import { AdaptivePollSchedule } from './poll-schedule.js';
import type { RunOptions } from './run-options.js';
import { SendRecovery } from './send-recovery.js';
import { Slots } from './slots.js';
import { TargetGate } from './target-gate.js';

/** What a target's set-up needs of the opened run. */
export interface OpenedRun extends Pick<Opening, 'resumed' | 'api' | 'sendWindowMs'> {
  /** See RunLease.earlierSendsGivenUpBy. */
  earlierSendsGivenUpBy: number | undefined;
}

/** One target's side of the run: its clients under the run's limits, its poll schedule, gate, slots and lost-send recovery. */
export function targetRuntime(target: RunTarget, options: RunOptions, run: RunContext, opened: OpenedRun): TargetRuntime {
  const resolved = options.suite.resolved;
  const { resumed } = opened;
  const concurrency = options.concurrency ?? resolved.concurrency;
  const searchConcurrency = options.searchConcurrency ?? resolved.searchConcurrency;
  const shared = {
    ...(options.retry && { retry: options.retry }),
    ...(options.requestTimeoutMs !== undefined && { timeoutMs: options.requestTimeoutMs }),
    ...(options.maxReplyBytes !== undefined && { maxReplyBytes: options.maxReplyBytes }),
    beforeSend: commitBeforeSend(run.recorder),
  };
  const transportOptions = { ...shared, connections: concurrency + 2 };
  const poll = resolved.questions[0]?.poll ?? { strategy: 'adaptive' as const, intervalMs: 3000, minMs: 1000, maxMs: 15_000 };
  const client = createClient(target.connection, opened.api, transportOptions);
  const recovery = new SendRecovery(
    { runId: run.runId, target: target.name, recorder: run.recorder, client, log: run.log, sendWindowMs: opened.sendWindowMs, earlierSendsGivenUpBy: opened.earlierSendsGivenUpBy },
    { claimed: resumed.claimed.get(target.name), clock: resumed.clocks.get(target.name), lostCreates: resumed.lostCreates.get(target.name) },
  );
  return {
    ...target,
    client,
    stream: new Transport({ endpoint: target.connection.endpoint, headers: headersFor(target.connection, 'stream'), connections: searchConcurrency + 1, ...shared }),
    schedule: new AdaptivePollSchedule(poll, target.timeScale),
    gate: new TargetGate(target.name, options.onQuota, options.maxQuotaWaitMs, target.timeScale),
    recovery,
    emulatorNoted: { done: false },
    questions: new Slots(concurrency),
    searches: new Slots(searchConcurrency),
    failures: [],
    trace: options.trace,
  };
}

/** One cheap authenticated read per target: a refused token or an unreachable instance stops that target at once. */
export async function preflight(runtimes: TargetRuntime[], hasQuestions: boolean, log: (m: string) => void, stop: AbortSignal): Promise<void> {
  if (!hasQuestions) return;
  await Promise.all(
    runtimes.map(async (r) => {
      try {
        // A stop (a signal) ends the check at once: nothing runs yet that needs a grace period.
        for await (const _ of r.client.list({ pageSize: 1, signal: AbortSignal.any([AbortSignal.timeout(30_000), stop]) })) break;
      } catch (error) {
        if (stop.aborted) return;
        if (error instanceof HttpStatusError && error.status !== 401 && error.status !== 403) return;
        const reason = `target ${r.name} (${r.connection.endpoint}): ${error instanceof Error ? error.message : String(error)}`;
        r.gate.fail(reason);
        log(`${reason}; its items are skipped`);
      }
    }),
  );
}
