import { setMaxListeners } from 'node:events';
import type { LoadedSuite } from '../config/load-suite.js';
import { headersFor, type Connection } from '../config/credentials.js';
import { ConversationSet, createClient, type DeepSearchClient } from '../deepsearch/index.js';
import { DsbenchError, HttpStatusError, isHeldElsewhere, LeaseLostError, StorageError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { redact } from '../http/redact.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { DEFAULT_TIMEOUT_MS, Transport } from '../http/transport.js';
import { VERSION } from '../version.js';
import { deleteConversation, isLeftToDelete } from './cleanup.js';
import { planItems, planPart, type Subset, type WorkItem } from './plan.js';
import { AdaptivePollSchedule } from './poll-schedule.js';
import { runQuestion, type ItemSummary } from './question-runner.js';
import { emptyTargetTally, type RunTally, type TargetTally } from '../model/tally.js';
import type { Recorder } from './recorder.js';
import { commitBeforeSend } from './commit-before-send.js';
import { storageWatch } from './storage-watch.js';
import type { ResumeItem, RunStatus, TargetInfo } from '../model/run.js';
import type { RunLease } from '../model/lease.js';
import type { TurnRecord } from '../model/item.js';
import type { Reporter } from './reporters/index.js';
import type { EmulatorNoted } from './emulator-note.js';
import { runSearchItem } from './search-runner.js';
import { CreatesInFlight } from './creates-in-flight.js';
import { recordUnowned } from './unowned.js';
import { ServerClock } from './server-clock.js';
import { Slots, type ItemSlot } from './slots.js';
import { LandingWatch } from './landing-watch.js';
import { formatShard, runGroupId, shardPlan, type Shard } from './shard.js';
import { TargetGate, type QuotaPolicy } from './target-gate.js';
import { runExitCode } from '../model/verdict.js';
import { STOPPED_ON_INTERRUPT } from './stopped.js';
import { CreditBudget, type BudgetOptions } from './budget.js';
import type { Env } from '../config/credentials.js';
import type { ResolvedQuestion } from '../config/resolve-suite.js';
import { RunGrading, type GradingTotals } from '../grade/run-grading.js';
import type { GradeStore } from '../model/grading.js';

export interface RunTarget {
  name: string;
  connection: Connection;
  emulated: boolean;
  /** Real time per server time; below 1 only for an emulator that runs faster, so polling keeps pace. */
  timeScale: number;
}

export interface RunOptions {
  suite: LoadedSuite;
  targets: RunTarget[];
  recorder: Recorder;
  reporter: Reporter;
  label?: string | undefined;
  api?: 'legacy' | 'versioned' | undefined;
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
  /** Where grades go; with it, items are graded as they end when the suite asks (judge.during: run). */
  grades?: GradeStore | undefined;
  /** Where the judge's endpoint, token and model are read (DSBENCH_JUDGE_*). */
  env?: Env | undefined;
  /** Why the judge cannot grade (its check before the run failed and the run goes on): its turns are recorded as not graded. */
  judgeUnavailable?: string | undefined;
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
  grading?: GradingTotals | undefined;
  /** Why the run stopped launching on its own (`--max-credits`), with the figures. */
  stoppedBy?: string | undefined;
}

interface TargetRuntime {
  target: RunTarget;
  client: DeepSearchClient;
  stream: Transport;
  schedule: AdaptivePollSchedule;
  gate: TargetGate;
  questions: Slots;
  searches: Slots;
  /** Exit codes of items that ended in an exception (a bug, or a fault of the recorder). */
  failures: ExitCode[];
  /** Conversations that items of this run own: a lost send is never matched to one of them. */
  claimed: ConversationSet;
  /** First questions whose create was lost (outcome unknown), by text, with the earliest such send. */
  lostCreates: Map<string, number>;
  creates: CreatesInFlight;
  landings: LandingWatch;
  clock: ServerClock;
  emulatorNoted: EmulatorNoted;
}

/**
 * Runs a suite on its targets: plans suite x targets x repeats, schedules items under per-target limits,
 * follows each to its end through the recorder, and decides the run's status and exit code.
 */
export async function executeRun(given: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const { reporter, suite } = given;
  const log = (message: string) => reporter.onLog?.(redact(message));
  const resolved = suite.resolved;
  const items = planOf(given);
  // Before the run is opened: a judge that cannot be configured is a usage error, with nothing asked.
  const grading =
    given.grades && resolved.judge.during === 'run'
      ? RunGrading.create({ suite: resolved, store: given.grades, targets: given.targets, env: given.env ?? process.env, retry: given.retry, timeoutMs: given.requestTimeoutMs, judgeUnavailable: given.judgeUnavailable })
      : undefined;
  // A resumed run keeps the API it started with: its stored conversation refs belong to that flavour.
  const { runId, resumed, api, sendWindowMs, lease } = openRun(given, items, given.api ?? resolved.questions[0]?.api ?? 'versioned');
  if (lease.takeover) log(lease.takeover);
  // Losing the lease (another process took it over after our heartbeat went silent) stops launching.
  const lost = new AbortController();
  // A database that cannot be written any more stops the run at once: nothing more is launched and what
  // runs is cancelled on the server (its observations could not be recorded).
  const storage = storageWatch(given.recorder);
  // The budget stops launching as a signal does, but the run's verdict is its own (exit code 10).
  const overBudget = new AbortController();
  const budget = given.budget && new CreditBudget(given.budget, creditsRecorded(given.recorder.tally(runId)));
  const options: RunOptions = {
    ...given,
    recorder: storage.recorder,
    stop: AbortSignal.any([given.stop, lost.signal, storage.broken, overBudget.signal]),
    abort: AbortSignal.any([given.abort, storage.broken]),
  };
  // Every running item listens on these two signals at once: many listeners are expected, not a leak.
  setMaxListeners(0, options.stop, options.abort);
  const heartbeat = setInterval(() => {
    try {
      const other = lease.heartbeat();
      if (other === undefined) return;
      log(`lost the lease of run ${runId}: ${other}; stopping, asking and recording nothing more`);
      // Its running items are the other process's now: their next commit fails (RunLease.fence), and the run with this.
      lost.abort(new LeaseLostError(runId, other));
      clearInterval(heartbeat);
    } catch (error) {
      log(`could not refresh the lease of run ${runId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }, (options.lease ?? LEASE).heartbeatMs).unref();
  try {
    options.onRunOpened?.(runId);
    const spend = budget && { budget, stop: () => overBudget.abort() };
    return await followRun(options, { runId, resumed, api, sendWindowMs, earlierSendsGivenUpBy: lease.earlierSendsGivenUpBy, items, started, log, lost: lost.signal, grading, storageFault: storage.fault, spend });
  } finally {
    await grading?.close();
    clearInterval(heartbeat);
    if (!lost.signal.aborted) {
      try {
        lease.release();
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        // The run's own outcome stands (a failed store is reported by it): a lease left behind goes stale,
        // and a resume takes it over from a process that is gone.
        log(`could not release the lease of run ${runId}: ${error.message}`);
      }
    }
  }
}

const LEASE = { heartbeatMs: 10_000, staleMs: 60_000 };

/** The run's items: suite x targets x repeats, made as they are iterated, or the shard's share of them. */
function planOf(given: RunOptions): Iterable<WorkItem> {
  const targets = given.targets.map((t) => t.name);
  const all = planItems(given.suite.resolved, targets, given.repeats);
  const plan = given.subset ? planPart(all, given.subset.keep) : all;
  // A shard's share is chosen over the whole plan at once; it is a fraction of it.
  return given.shard ? shardPlan([...plan], given.shard) : plan;
}

/**
 * What a resumed run keeps of the items recorded before: whether each is done, and the state of those it
 * picks up again. A done item's turns are never read back, so this stays small for a half-done 100,000.
 */
interface Resumed {
  done: Set<string>;
  /** Items not done that got as far as a turn or a conversation: the rest start as new ones. */
  unfinished: Map<string, ResumeItem>;
  /** Conversations the run owns, per target: a lost send is never matched to one of them. */
  claimed: Map<string, ConversationSet>;
  /** Done items whose conversation --cleanup has still to delete. */
  toDelete: Array<ResumeItem & { conversationRef: string }>;
  /** What each target's clock said in the run before, as the server times of the creates it recorded. */
  clocks: Map<string, ServerClock>;
  /** Each target's given-up creates: text to its earliest send, local epoch ms. */
  lostCreates: Map<string, Map<string, number>>;
}

function nothingResumed(): Resumed {
  return { done: new Set(), unfinished: new Map(), claimed: new Map(), toDelete: [], clocks: new Map(), lostCreates: new Map() };
}

interface OpenedRun {
  runId: number;
  resumed: Resumed;
  api: Api;
  sendWindowMs: number;
  /** See RunLease.earlierSendsGivenUpBy. */
  earlierSendsGivenUpBy: number | undefined;
  items: Iterable<WorkItem>;
  started: number;
  log: (message: string) => void;
  lost: AbortSignal;
  grading: RunGrading | undefined;
  /** The first storage failure of the run, once there is one. */
  storageFault: () => DsbenchError | undefined;
  spend: Spend | undefined;
}

/** The run's budget, and how it stops the run. */
interface Spend {
  budget: CreditBudget;
  stop: () => void;
}

/** Credits a run recorded so far: its items', and those of attempts stopped on an interruption. */
function creditsRecorded(tally: RunTally): number {
  return Object.values(tally.targets).reduce((sum, t) => sum + (t.credits ?? 0) + (t.rerunAfterInterruption.credits ?? 0), 0);
}

async function followRun(options: RunOptions, opened: OpenedRun): Promise<RunResult> {
  const { recorder, reporter } = options;
  const { runId, resumed, api, items, started, log } = opened;
  const resolved = options.suite.resolved;
  const runtimes = new Map(options.targets.map((t) => [t.name, runtime(t, options, api, resolved, resumed)]));

  try {
    await preflight([...runtimes.values()], resolved.questions.length > 0, log, options.stop);
    const pending = (item: WorkItem) => !resumed.done.has(item.key);
    let total = 0;
    let alreadyDone = 0;
    for (const item of items) {
      total++;
      if (!pending(item)) alreadyDone++;
    }
    reporter.onRunStart?.({ runId, total, alreadyDone, targets: options.targets.map((t) => t.name) });
    const ctx: LaunchContext = { options, runId, sendWindowMs: opened.sendWindowMs, earlierSendsGivenUpBy: opened.earlierSendsGivenUpBy, log, grading: opened.grading, grades: new Set(), spend: opened.spend };
    await Promise.all([
      ...workers(items, pending, runtimes, (item, r, slot) => launch(item, r, resumed.unfinished.get(item.key), ctx, slot)),
      ...resumed.toDelete.map((item) => {
        const r = runtimes.get(targetOf(item.key)) as TargetRuntime;
        // A target refused at preflight would only time out on each delete.
        if (r.gate.stopped) return undefined;
        return r.questions.run(() => deleteConversation({ runId, recorder, client: r.client, log }, item.key, item.conversationRef));
      }),
    ]);
    await Promise.all(ctx.grades);
    if (!options.stop.aborted) {
      const live = [...runtimes.values()].filter((r) => !r.gate.stopped);
      await recordUnowned(live.map((r) => ({ name: r.target.name, client: r.client, landings: r.landings, lostCreates: r.lostCreates })), runId, recorder, options.abort, log);
    }
  } finally {
    // Each close waits for its requests in flight: the lease is released only after it (see RunLease.earlierSendsGivenUpBy).
    await Promise.allSettled([...runtimes.values()].flatMap((r) => [r.client.close(), r.stream.close()]));
    reporter.onRunEnd?.();
  }

  const fault = opened.storageFault();
  if (fault) {
    try {
      // Resumable as any aborted run, when the database still takes this one small write.
      recorder.setRunStatus(runId, 'aborted', new Date().toISOString());
    } catch {
      // The run stays `running`; a resume takes it all the same.
    }
    throw new DsbenchError(
      `${fault.message}\nRun ${runId} stopped: nothing more was launched and running questions were cancelled on the server; ` +
        `once the database can be written, continue it with dsbench run --resume ${runId}.`,
      fault.exitCode,
      { cause: fault },
    );
  }
  // Taken over: the run, its status and its verdict are the other process's (exit 7), however far this one got.
  if (opened.lost.aborted) throw opened.lost.reason;
  // The verdict reads what was recorded, so a resumed run counts the items finished before its interruption.
  const tally = recorder.tally(runId);
  const targets = Object.fromEntries(
    [...runtimes].map(([name, r]) => [name, { ...(tally.targets[name] ?? emptyTargetTally()), ...(r.gate.stopped && { stopped: r.gate.stopped.reason }) }]),
  );
  const stoppedBy = opened.spend?.budget.stopped;
  const exitCode = runExitCode({
    signalled: options.stop.aborted && stoppedBy === undefined,
    stops: [
      ...[...runtimes.values()].flatMap((r) => [...(r.gate.stopped ? [r.gate.stopped.exitCode] : []), ...r.failures]),
      ...(stoppedBy !== undefined ? [ExitCode.budgetExceeded] : []),
    ],
    items: tally.items,
    failedChecks: tally.checks.failed,
  });
  const status: RunStatus = options.stop.aborted || exitCode === ExitCode.aborted ? 'aborted' : exitCode === ExitCode.unreachable ? 'failed' : 'completed';
  recorder.setRunStatus(runId, status, new Date().toISOString(), stoppedBy !== undefined ? 'budget' : undefined);
  return {
    runId,
    status,
    exitCode,
    targets,
    expectations: tally.checks,
    wallMs: Math.round(performance.now() - started),
    ...(opened.grading && { grading: opened.grading.totals }),
    ...(stoppedBy !== undefined && { stoppedBy }),
  };
}

function targetOf(key: string): string {
  return key.slice(0, key.indexOf('/'));
}

type Api = 'legacy' | 'versioned';

interface Opening {
  runId: number;
  resumed: Resumed;
  api: Api;
  /** The longest request timeout of the processes that sent this run's requests: how long a send may still land. */
  sendWindowMs: number;
}

function openRun(options: RunOptions, items: Iterable<WorkItem>, api: Api): Opening & { lease: RunLease } {
  const { recorder, suite } = options;
  const staleMs = (options.lease ?? LEASE).staleMs;
  if (options.resumeRunId === undefined) {
    const targets: TargetInfo[] = options.targets.map((t) => ({ name: t.name, url: t.connection.endpoint, api, emulated: t.emulated }));
    const runOptions = {
      api,
      concurrency: options.concurrency ?? suite.resolved.concurrency,
      searchConcurrency: options.searchConcurrency ?? suite.resolved.searchConcurrency,
      repeats: options.repeats,
      onQuota: options.onQuota,
      maxQuotaWaitMs: options.maxQuotaWaitMs,
      cleanup: options.cleanup,
      // A resume waits this long after a send of this process before it may ask the turn again.
      requestTimeoutMs: ownWindow(options),
      ...(options.subset?.only && { only: options.subset.only }),
      ...(options.subset?.rerunOf !== undefined && { rerunOf: options.subset.rerunOf }),
      // A resume without --max-credits keeps the cap the run started with.
      ...(options.budget && { maxCredits: options.budget.maxCredits }),
      // Kept with the run so that its report judges the thresholds it was started with.
      ...(Object.keys(suite.resolved.thresholds).length > 0 && { thresholds: suite.resolved.thresholds }),
    };
    const info = {
      label: options.label,
      suiteName: suite.resolved.name,
      suitePath: suite.path,
      suiteHash: suite.sha256,
      dsbenchVersion: VERSION,
      options: runOptions,
      startedAt: new Date().toISOString(),
      rerunOf: options.subset?.rerunOf,
      ...(options.shard && {
        group: {
          id: runGroupId({ suiteHash: suite.sha256, targets, label: options.groupLabel ?? '' }),
          label: options.groupLabel ?? '',
          shardIndex: options.shard.index,
          shardCount: options.shard.count,
        },
      }),
    };
    const runId = recorder.createRun(info, targets, items);
    return { runId, resumed: nothingResumed(), api, sendWindowMs: ownWindow(options), lease: recorder.acquireLease(runId, staleMs) };
  }
  if (!recorder.loadRunInfo(options.resumeRunId)) throw new UsageError(`there is no run ${options.resumeRunId} in this database; list runs with dsbench runs`);
  // Taken before the run's state is read: what a live holder writes meanwhile must not be missed.
  const lease = recorder.acquireLease(options.resumeRunId, staleMs);
  try {
    return { ...resumeRun(options, items, api), lease };
  } catch (error) {
    lease.release();
    throw error;
  }
}

function ownWindow(options: RunOptions): number {
  return options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
}

function resumeRun(options: RunOptions, items: Iterable<WorkItem>, api: Api): Opening {
  const { recorder, suite } = options;
  const state = recorder.loadRunInfo(options.resumeRunId as number);
  if (!state) throw new UsageError(`there is no run ${options.resumeRunId} in this database; list runs with dsbench runs`);
  const storedShard = state.info.group && { index: state.info.group.shardIndex, count: state.info.group.shardCount };
  if ((storedShard && formatShard(storedShard)) !== (options.shard && formatShard(options.shard))) {
    throw new UsageError(
      storedShard
        ? `run ${state.runId} is shard ${formatShard(storedShard)} of a split run; resume it with --shard ${formatShard(storedShard)} (or without --shard)`
        : `run ${state.runId} is not a shard; resume it without --shard`,
    );
  }
  if (state.status === 'completed') throw new UsageError(`run ${state.runId} completed; there is nothing to resume`);
  if (state.info.suiteHash !== suite.sha256) {
    throw new UsageError(`the suite ${suite.path} changed since run ${state.runId} started; resuming would mix results of two suites. Start a new run instead`);
  }
  // Item keys are unique on both sides, so the same count and every planned key stored means the same items;
  // looked up one at a time rather than held (a set of 100,000 keys is about 8 MB).
  let planned = 0;
  let unknown: string | undefined;
  for (const item of items) {
    planned++;
    if (unknown === undefined && !recorder.hasItem(state.runId, item.key)) unknown = item.key;
  }
  if (unknown !== undefined || state.itemCount !== planned) {
    throw new UsageError(`run ${state.runId} planned other items (targets or --repeats differ: ${unknown ?? 'count differs'}); resume with the same --target and --repeats`);
  }
  for (const stored of state.targets) {
    const given = options.targets.find((t) => t.name === stored.name);
    if (given && !stored.emulated && given.connection.endpoint !== stored.url) {
      throw new UsageError(`run ${state.runId} started on ${stored.name}=${stored.url}, not ${given.connection.endpoint}: its conversations live there; resume on the same instance`);
    }
  }
  const storedApi = state.targets[0]?.api ?? api;
  if (options.api !== undefined && options.api !== storedApi) {
    throw new UsageError(`run ${state.runId} used the ${storedApi} API; its conversations cannot be followed with --api ${options.api}`);
  }
  recorder.setRunStatus(state.runId, 'running', new Date().toISOString());
  const before = Number(state.info.options.requestTimeoutMs);
  const sendWindowMs = Math.max(ownWindow(options), Number.isFinite(before) ? before : DEFAULT_TIMEOUT_MS);
  const resumed = nothingResumed();
  // What dsbench itself stopped on the interruption is run again; the stopped attempt stays on record, and
  // its conversation stays the run's own, so no lookup of a lost send ever takes it.
  const requeued = recorder.requeueStopped(state.runId, STOPPED_ON_INTERRUPT, new Date().toISOString());
  for (const item of requeued) {
    if (item.conversationRef === null) continue;
    const claimed = resumed.claimed.get(item.target) ?? new Set<string>();
    resumed.claimed.set(item.target, claimed.add(item.conversationRef));
  }
  if (requeued.length > 0) {
    options.reporter.onLog?.(
      `run ${state.runId}: running again ${requeued.length} item${requeued.length === 1 ? '' : 's'} dsbench stopped when the run was interrupted ` +
        `(${requeued.map((i) => i.key).slice(0, 5).join(', ')}${requeued.length > 5 ? ', ...' : ''}); the stopped attempts are kept (docs/restarts.md)`,
    );
  }
  recorder.resumeItems(state.runId, (item) => {
    if (item.conversationRef !== undefined) {
      const target = targetOf(item.key);
      const claimed = resumed.claimed.get(target) ?? new ConversationSet();
      resumed.claimed.set(target, claimed.add(item.conversationRef));
    }
    if (item.status === 'done') {
      resumed.done.add(item.key);
      if (options.cleanup && isLeftToDelete(item)) resumed.toDelete.push(item);
    } else if (item.turns.length > 0 || item.conversationRef !== undefined) resumed.unfinished.set(item.key, item);
  });
  // Without them a dead process's sends have no reply before them on this process's clock, and their
  // lookups would read every page back to conversations of earlier runs asking the same questions.
  recorder.serverTimesSeen(state.runId, (target, server, receivedAt) => {
    let clock = resumed.clocks.get(target);
    if (!clock) resumed.clocks.set(target, (clock = new ServerClock()));
    clock.observe(server, receivedAt);
  });
  // An earlier process's given-up creates: this process's end-of-run check looks for their late landing too.
  recorder.lostCreates(state.runId, (target, text, sentAt) => {
    let lost = resumed.lostCreates.get(target);
    if (!lost) resumed.lostCreates.set(target, (lost = new Map()));
    lost.set(text, sentAt);
  });
  return { runId: state.runId, resumed, api: storedApi, sendWindowMs };
}

function runtime(
  target: RunTarget,
  options: RunOptions,
  api: 'legacy' | 'versioned',
  resolved: LoadedSuite['resolved'],
  resumed: Resumed,
): TargetRuntime {
  const claimed = resumed.claimed.get(target.name) ?? new ConversationSet();
  const clock = resumed.clocks.get(target.name) ?? new ServerClock();
  const lostCreates = resumed.lostCreates.get(target.name) ?? new Map<string, number>();
  const concurrency = options.concurrency ?? resolved.concurrency;
  const searchConcurrency = options.searchConcurrency ?? resolved.searchConcurrency;
  const shared = {
    ...(options.retry && { retry: options.retry }),
    ...(options.requestTimeoutMs !== undefined && { timeoutMs: options.requestTimeoutMs }),
    ...(options.maxReplyBytes !== undefined && { maxReplyBytes: options.maxReplyBytes }),
    beforeSend: commitBeforeSend(options.recorder),
  };
  const transportOptions = { ...shared, connections: concurrency + 2 };
  const poll = resolved.questions[0]?.poll ?? { strategy: 'adaptive' as const, intervalMs: 3000, minMs: 1000, maxMs: 15_000 };
  const client = createClient(target.connection, api, transportOptions);
  return {
    target,
    client,
    stream: new Transport({ endpoint: target.connection.endpoint, headers: headersFor(target.connection, 'stream'), connections: searchConcurrency + 1, ...shared }),
    schedule: new AdaptivePollSchedule(poll, target.timeScale),
    gate: new TargetGate(target.name, options.onQuota, options.maxQuotaWaitMs, target.timeScale),
    questions: new Slots(concurrency),
    searches: new Slots(searchConcurrency),
    failures: [],
    claimed,
    lostCreates,
    creates: new CreatesInFlight(),
    landings: new LandingWatch(client, clock, claimed),
    clock,
    emulatorNoted: { done: false },
  };
}

/** One cheap authenticated read per target: a refused token or an unreachable instance stops that target at once. */
async function preflight(runtimes: TargetRuntime[], hasQuestions: boolean, log: (m: string) => void, stop: AbortSignal): Promise<void> {
  if (!hasQuestions) return;
  await Promise.all(
    runtimes.map(async (r) => {
      try {
        // A stop (a signal) ends the check at once: nothing runs yet that needs a grace period.
        for await (const _ of r.client.list({ pageSize: 1, signal: AbortSignal.any([AbortSignal.timeout(30_000), stop]) })) break;
      } catch (error) {
        if (stop.aborted) return;
        if (error instanceof HttpStatusError && error.status !== 401 && error.status !== 403) return;
        const reason = `target ${r.target.name} (${r.target.connection.endpoint}): ${error instanceof Error ? error.message : String(error)}`;
        r.gate.fail(reason);
        log(`${reason}; its items are skipped`);
      }
    }),
  );
}

interface LaunchContext {
  options: RunOptions;
  runId: number;
  sendWindowMs: number;
  earlierSendsGivenUpBy: number | undefined;
  log: (m: string) => void;
  grading: RunGrading | undefined;
  /** Gradings still running; the run waits for them before its verdict. */
  grades: Set<Promise<void>>;
  spend: Spend | undefined;
}

/**
 * Items are made from the plan as slots free up, one limit at a time, each limit walking the plan for its
 * own items: neither the plan nor a promise per item is held (100,000 items would be about 25 MB and
 * 1.6 KB each). An item waiting for a send to land gives its slot up meanwhile (`ItemSlot`), so another
 * item starts; it takes a slot again before any new item does.
 */
function workers(
  items: Iterable<WorkItem>,
  pending: (item: WorkItem) => boolean,
  runtimes: Map<string, TargetRuntime>,
  run: (item: WorkItem, r: TargetRuntime, slot: ItemSlot) => Promise<void>,
): Promise<void>[] {
  const slotsOf = (item: WorkItem, r: TargetRuntime) => (item.kind === 'question' ? r.questions : r.searches);
  return [...runtimes.values()].flatMap((owner) =>
    [owner.questions, owner.searches].map(async (slots) => {
      const running = new Set<Promise<void>>();
      let failure: { error: unknown } | undefined;
      for (const item of items) {
        if (failure) break;
        const r = runtimes.get(item.target) as TargetRuntime;
        if (r !== owner || slotsOf(item, r) !== slots || !pending(item)) continue;
        const slot = await slots.start();
        const done: Promise<void> = run(item, r, slot)
          .catch((error: unknown) => {
            failure ??= { error };
          })
          .finally(() => {
            slot.leave();
            running.delete(done);
          });
        running.add(done);
      }
      await Promise.all(running);
      if (failure) throw failure.error;
    }),
  );
}

async function launch(item: WorkItem, r: TargetRuntime, resume: ResumeItem | undefined, ctx: LaunchContext, slot: ItemSlot): Promise<void> {
  let turns: readonly TurnRecord[] | undefined;
  try {
    turns = await launchItem(item, r, resume, ctx, slot);
  } catch (error) {
    // A storage failure (recording a skip, say) stops the whole run and is reported once, at its end.
    if (error instanceof StorageError) return;
    throw error;
  }
  // Outside the question's slot, under the judge's own limit: grading never holds up asking.
  if (item.kind === 'question' && turns && ctx.grading?.needs(item.question)) {
    const grade = gradeLive(ctx.grading, ctx, item.key, item.target, item.question, turns).finally(() => ctx.grades.delete(grade));
    ctx.grades.add(grade);
  }
}

async function gradeLive(grading: RunGrading, ctx: LaunchContext, key: string, target: string, question: ResolvedQuestion, turns: readonly TurnRecord[]): Promise<void> {
  try {
    // Once the item's end is committed: none for a run another process took over meanwhile (the judge not asked).
    await ctx.options.recorder.committed();
    const outcome = await grading.grade(ctx.runId, key, target, question, turns.map((t, turn) => ({ ...t, turn })), ctx.options.abort);
    for (const problem of outcome.problems) ctx.log(`${key}: grading ${problem}`);
  } catch (error) {
    // The run stops with it, saying why.
    if (isHeldElsewhere(error)) return;
    // The store failing: the run's answers are recorded already; grade it later with dsbench grade.
    ctx.log(`${key}: could not record its grade (${error instanceof Error ? error.message : String(error)}); grade the run later with dsbench grade ${ctx.runId}`);
  }
}

/** Runs one item in its slot; returns a question's turns for grading. */
async function launchItem(item: WorkItem, r: TargetRuntime, resume: ResumeItem | undefined, ctx: LaunchContext, slot: ItemSlot): Promise<readonly TurnRecord[] | undefined> {
  // Items not launched before a stop stay pending, so a resume runs them.
  if (ctx.options.stop.aborted) return undefined;
  const spend = ctx.spend;
  if (!spend) return (await runItem(item, r, resume, ctx, slot))?.turns;
  if (!spend.budget.admit(item)) {
    if (!ctx.options.stop.aborted) ctx.log(`${spend.budget.stopped}; running items finish, the rest stay pending (resume with a higher --max-credits)`);
    spend.stop();
    return undefined;
  }
  let summary: ItemSummary | undefined;
  try {
    summary = await runItem(item, r, resume, ctx, slot);
    return summary?.turns;
  } finally {
    spend.budget.settle(item, summary?.credits ?? null);
  }
}

/** Runs one item in its slot, once it may start; undefined when it did not run to its end (a stop, a skip). */
async function runItem(item: WorkItem, r: TargetRuntime, resume: ResumeItem | undefined, ctx: LaunchContext, slot: ItemSlot): Promise<ItemSummary | undefined> {
  const { options, runId, log } = ctx;
  const stop = await r.gate.admit(options.stop);
  if (options.stop.aborted) return undefined;
  if (stop) {
    options.recorder.itemSkipped(runId, item.key, stop.reason, new Date().toISOString());
    // A skipped item is finished for the progress display too, so done reaches the total.
    options.reporter.onItemStart?.(item.key);
    options.reporter.onItemEnd?.(item.key, { outcome: 'skipped', credits: null, passed: 0, failed: 0 });
    return undefined;
  }
  options.reporter.onItemStart?.(item.key);
  let summary: ItemSummary;
  try {
    summary =
      item.kind === 'question'
        ? await runQuestion(
            { runId, recorder: options.recorder, client: r.client, schedule: r.schedule, gate: r.gate, claimed: r.claimed, lostCreates: r.lostCreates, creates: r.creates, landings: r.landings, cleanup: options.cleanup, signal: options.abort, timeScale: r.target.timeScale, emulated: r.target.emulated, clock: r.clock, emulatorNoted: r.emulatorNoted, sendWindowMs: ctx.sendWindowMs, earlierSendsGivenUpBy: ctx.earlierSendsGivenUpBy, slot, log },
            { key: item.key, target: item.target, question: item.question },
            resume,
          )
        : await runSearchItem({ runId, recorder: options.recorder, transport: r.stream, gate: r.gate, signal: options.abort, emulatorNoted: r.emulatorNoted, log }, { key: item.key, target: item.target, search: item.search });
  } catch (error) {
    // The store failed, or the run was taken over: the run stops at once.
    if (error instanceof StorageError || isHeldElsewhere(error)) throw error;
    // A bug: say which item, keep the rest of the run going.
    const message = error instanceof DsbenchError ? error.message : `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    log(`${item.key}: ${message}`);
    r.failures.push(error instanceof DsbenchError ? error.exitCode : ExitCode.internal);
    summary = { outcome: 'client_error', credits: null, passed: 0, failed: 0 };
  }
  options.reporter.onItemEnd?.(item.key, summary);
  return summary;
}
