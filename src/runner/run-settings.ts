import type { ResolvedSuite } from '../config/resolve-suite.js';
import { UsageError } from '../errors/errors.js';
import { apiFlavourOf, type ApiFlavour } from '../model/api-flavour.js';
import type { RunHeader } from '../model/run.js';
import { planItems, planPart, type Subset } from './plan.js';
import { parseShard, shardQuestionWeights, type Shard } from './shard.js';

// A run's settings, resolved once from the flags, the suite and the run it continues (a resume) or takes its
// items from (a rerun): the run itself, `--dry-run` and the summary all read these.

/** The flags that settle a run's settings (`run`'s, as yargs gives them). */
export interface RunFlags {
  api?: ApiFlavour | undefined;
  repeats?: number | undefined;
  concurrency?: number | undefined;
  maxCredits?: number | undefined;
  shard?: string | undefined;
  groupConcurrency?: number | undefined;
  groupMaxCredits?: number | undefined;
}

/** `--group-concurrency` and `--group-max-credits`: totals for all the shards of a run group. */
export interface GroupLimits {
  concurrency?: number | undefined;
  maxCredits?: number | undefined;
}

/** This shard's share of its group's limits, by its share of the plan's questions (their asked turns). */
export interface GroupShare {
  limits: GroupLimits;
  concurrency?: number | undefined;
  maxCredits?: number | undefined;
  /** This shard's questions' weight, and the whole plan's. */
  weight: number;
  totalWeight: number;
}

export interface RunSettings {
  api: ApiFlavour;
  repeats: number | undefined;
  /** Conversations at once per target: the flag, or the shard's share of --group-concurrency; else the suite's. */
  concurrency: number | undefined;
  /** The credit cap: the flag, the shard's share of --group-max-credits, or what a resumed run started with. */
  maxCredits: number | undefined;
  shard: Shard | undefined;
  group: GroupShare | undefined;
}

/** What came before the run: the run it resumes, or the run whose failed items it reruns. */
export interface EarlierRuns {
  resumed?: RunHeader | undefined;
  rerunOf?: RunHeader | undefined;
}

export function resolveRunSettings(flags: RunFlags, suite: ResolvedSuite, targets: readonly string[], earlier: EarlierRuns, subset?: Subset): RunSettings {
  const { resumed } = earlier;
  const before = resumed ?? earlier.rerunOf;
  const stored = resumed?.info.options ?? {};
  const api = apiFlavourOf({ stored: before?.targets[0]?.api, given: flags.api, suite: suite.questions[0]?.api });
  const repeats = flags.repeats ?? (before?.info.options.repeats as number | undefined);
  const storedGroup = resumed?.info.group;
  const shard = flags.shard !== undefined ? parseShard(flags.shard) : storedGroup && { index: storedGroup.shardIndex, count: storedGroup.shardCount };
  // A resumed shard keeps the totals it started with (they are in its options, the same in every shard).
  const limits: GroupLimits = resumed
    ? { concurrency: stored.groupConcurrency as number | undefined, maxCredits: stored.groupMaxCredits as number | undefined }
    : { concurrency: flags.groupConcurrency, maxCredits: flags.groupMaxCredits };
  const limited = limits.concurrency !== undefined || limits.maxCredits !== undefined;
  const group = shard && limited ? groupShare(limits, shard, suite, targets, repeats, subset) : undefined;
  const maxCredits = group?.maxCredits ?? flags.maxCredits ?? (stored.maxCredits as number | undefined);
  refuseUnmeasuredBudget(maxCredits, api, limits.maxCredits !== undefined ? '--group-max-credits' : '--max-credits');
  return { api, repeats, concurrency: group?.concurrency ?? flags.concurrency, maxCredits, shard, group };
}

/** A cap on credits on the versioned API, which reports none, could never stop anything: refused. */
export function refuseUnmeasuredBudget(maxCredits: number | undefined, api: ApiFlavour, flag = '--max-credits'): void {
  if (maxCredits === undefined || api !== 'versioned') return;
  throw new UsageError(
    `${flag}: the versioned API reports no credits (its replies carry no stats), so a cap on them could never stop the run; leave it out, or run on the legacy API (--api legacy)`,
  );
}

/**
 * This shard's share of the group's limits. Every shard computes the same split of the same plan, so the
 * shares add up to the totals: conversations by the largest-average rule (D'Hondt, each shard at least one),
 * credits in proportion to the weight.
 */
function groupShare(limits: GroupLimits, shard: Shard, suite: ResolvedSuite, targets: readonly string[], repeats: number | undefined, subset: Subset | undefined): GroupShare {
  const all = planItems(suite, targets, repeats);
  const weights = shardQuestionWeights([...(subset ? planPart(all, subset.keep) : all)], shard.count);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  // A plan without questions shares evenly.
  const shares = totalWeight > 0 ? weights : weights.map(() => 1);
  const sum = shares.reduce((a, b) => a + b, 0);
  const mine = shard.index - 1;
  const share: GroupShare = { limits, weight: weights[mine]!, totalWeight };
  if (limits.concurrency !== undefined) {
    if (limits.concurrency < shard.count) {
      throw new UsageError(`--group-concurrency ${limits.concurrency} is fewer than the ${shard.count} shards of the group: each shard asks at least one question at a time; give at least ${shard.count}`);
    }
    share.concurrency = apportion(limits.concurrency, shares)[mine];
  }
  if (limits.maxCredits !== undefined) share.maxCredits = (limits.maxCredits * shares[mine]!) / sum;
  return share;
}

/** `total` whole seats over `weights`, each at least one, by the largest average (ties to the lower index). */
export function apportion(total: number, weights: readonly number[]): number[] {
  const seats = weights.map(() => 1);
  for (let left = total - weights.length; left > 0; left--) {
    let best = 0;
    for (let i = 1; i < weights.length; i++) if (weights[i]! / (seats[i]! + 1) > weights[best]! / (seats[best]! + 1)) best = i;
    seats[best]!++;
  }
  return seats;
}
