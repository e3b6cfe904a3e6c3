import { ConversationSet } from '../deepsearch/names.js';
import { UsageError } from '../errors/errors.js';
import { DEFAULT_TIMEOUT_MS } from '../http/transport.js';
import type { ApiFlavour } from '../model/api-flavour.js';
import type { RunLease } from '../model/lease.js';
import type { ResumeItem, TargetInfo } from '../model/run.js';
import { VERSION } from '../version.js';
import { isLeftToDelete } from './cleanup.js';
import { DEFAULT_LEASE } from './lease-keeper.js';
import { planItems, planPart, type WorkItem } from './plan.js';
import type { RunOptions } from './run-options.js';
import { ServerClock } from './server-clock.js';
import { formatShard, runGroupId, shardPlan } from './shard.js';
import { STOPPED_ON_INTERRUPT } from './stopped.js';

/** The run's items: suite x targets x repeats, made as they are iterated, or the shard's share of them. */
export function planOf(given: RunOptions): Iterable<WorkItem> {
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
export interface Resumed {
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

export function targetOf(key: string): string {
  return key.slice(0, key.indexOf('/'));
}

export type Api = ApiFlavour;

export interface Opening {
  runId: number;
  resumed: Resumed;
  api: Api;
  /** The longest request timeout of the processes that sent this run's requests: how long a send may still land. */
  sendWindowMs: number;
}

export function openRun(options: RunOptions, items: Iterable<WorkItem>, api: Api, log: (message: string) => void): Opening & { lease: RunLease } {
  const { recorder, suite } = options;
  const staleMs = (options.lease ?? DEFAULT_LEASE).staleMs;
  if (options.resumeRunId === undefined) {
    const targets: TargetInfo[] = options.targets.map((t) => ({ name: t.name, url: t.connection.endpoint, api, emulated: t.emulated }));
    const limits = options.groupLimits;
    const runOptions = {
      api,
      // A shard's share of a group limit differs from shard to shard; its options must not (merge compares them).
      ...(limits?.concurrency !== undefined ? { groupConcurrency: limits.concurrency } : { concurrency: options.concurrency ?? suite.resolved.concurrency }),
      searchConcurrency: options.searchConcurrency ?? suite.resolved.searchConcurrency,
      repeats: options.repeats,
      onQuota: options.onQuota,
      maxQuotaWaitMs: options.maxQuotaWaitMs,
      cleanup: options.cleanup,
      // A resume waits this long after a send of this process before it may ask the turn again.
      requestTimeoutMs: ownWindow(options),
      ...(options.subset?.only && { only: options.subset.only }),
      ...(options.subset?.rerunOf !== undefined && { rerunOf: options.subset.rerunOf }),
      ...(options.subset?.confirmOf !== undefined && { confirmOf: options.subset.confirmOf }),
      // A resume without --max-credits keeps the cap the run started with.
      ...(limits?.maxCredits !== undefined ? { groupMaxCredits: limits.maxCredits } : options.budget && { maxCredits: options.budget.maxCredits }),
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
      confirmOf: options.subset?.confirmOf,
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
    return { ...resumeRun(options, items, api, log), lease };
  } catch (error) {
    lease.release();
    throw error;
  }
}

function ownWindow(options: RunOptions): number {
  return options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
}

function resumeRun(options: RunOptions, items: Iterable<WorkItem>, api: Api, log: (message: string) => void): Opening {
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
  // One set per target, by conversation key: a stored ref names its conversation whatever user segment it has.
  const claim = (target: string, ref: string) => resumed.claimed.set(target, (resumed.claimed.get(target) ?? new ConversationSet()).add(ref));
  for (const item of requeued) if (item.conversationRef !== null) claim(item.target, item.conversationRef);
  if (requeued.length > 0) {
    log(
      `run ${state.runId}: running again ${requeued.length} item${requeued.length === 1 ? '' : 's'} dsbench stopped when the run was interrupted ` +
        `(${requeued.map((i) => i.key).slice(0, 5).join(', ')}${requeued.length > 5 ? ', ...' : ''}); the stopped attempts are kept (docs/restarts.md)`,
    );
  }
  recorder.resumeItems(state.runId, (item) => {
    if (item.conversationRef !== undefined) claim(targetOf(item.key), item.conversationRef);
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
