import type { LoadedSuite } from '../config/load-suite.js';
import type { ExitCode } from '../errors/exit-codes.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import type { ApiFlavour } from '../model/api-flavour.js';
import type { RunStatus } from '../model/run.js';
import type { TraceSelection } from '../model/trace.js';
import type { TargetTally } from '../model/tally.js';
import type { BudgetOptions } from './budget.js';
import type { RunObserver } from './events.js';
import type { RunTarget } from './item-context.js';
import type { LiveGrader, LiveGradingTotals } from './live-grading.js';
import type { Subset } from './plan.js';
import type { Recorder } from './recorder.js';
import type { Shard } from './shard.js';
import type { QuotaPolicy } from './target-gate.js';

export interface RunOptions {
  suite: LoadedSuite;
  targets: RunTarget[];
  recorder: Recorder;
  /** Watch the run's events (the progress display among them); see events.ts. */
  observers: readonly RunObserver[];
  label?: string | undefined;
  api?: ApiFlavour | undefined;
  concurrency?: number | undefined;
  searchConcurrency?: number | undefined;
  repeats?: number | undefined;
  onQuota: QuotaPolicy;
  maxQuotaWaitMs: number;
  cleanup: boolean;
  resumeRunId?: number | undefined;
  /** Run only this shard of the plan (`--shard`); a resumed shard must give its own. */
  shard?: Shard | undefined;
  /** `--max-credits`: launch nothing that would take the run's credits past the cap. */
  budget?: BudgetOptions | undefined;
  /** Only these items of the plan (`--only`, `--rerun-failed`, or a resumed run of such a part). */
  subset?: Subset | undefined;
  /** `--group`: the label that, with the suite and targets, names the group the shards belong to. */
  groupLabel?: string | undefined;
  /** `--group-concurrency`, `--group-max-credits`: the group's totals, kept as the run's options (`concurrency` and `budget` are this shard's share). */
  groupLimits?: { concurrency?: number | undefined; maxCredits?: number | undefined } | undefined;
  /** Told the run's id as soon as it is created or reopened (the CLI marks it aborted on a forced exit). */
  onRunOpened?: ((runId: number) => void) | undefined;
  /** First signal: launch nothing more. */
  stop: AbortSignal;
  /** After the grace period: cancel what is still running. */
  abort: AbortSignal;
  retry?: Partial<RetryPolicy> | undefined;
  /** Timeout of one attempt of a request (ms). */
  requestTimeoutMs?: number | undefined;
  /** Largest reply body read (bytes). */
  maxReplyBytes?: number | undefined;
  /** How long the read of each target's product version may take at the start (ms); default 5 s. */
  productVersionTimeoutMs?: number | undefined;
  /**
   * Grades each question as it ends, when the suite asks (judge.during: run); made, and closed, by the
   * caller, so that a judge that cannot be configured fails before the run is opened.
   */
  grader?: LiveGrader | undefined;
  /** `--trace`: which items ask the instance to trace their requests (none when absent). */
  trace?: TraceSelection | undefined;
  /** How often the run's lease is refreshed, and after how long a silent holder is presumed gone (ms). */
  lease?: { heartbeatMs: number; staleMs: number } | undefined;
}

/** One target's share of the whole run (items finished before an interruption included), as recorded. */
export interface TargetResult extends TargetTally {
  stopped?: string | undefined;
}

export interface RunResult {
  runId: number;
  status: RunStatus;
  exitCode: ExitCode;
  targets: Record<string, TargetResult>;
  expectations: { passed: number; failed: number };
  wallMs: number;
  /** Judge calls, cache hits and judge tokens of grading during the run, when the suite asked for it. */
  grading?: LiveGradingTotals | undefined;
  /** Why the run stopped launching on its own (`--max-credits`), with the figures. */
  stoppedBy?: string | undefined;
}
