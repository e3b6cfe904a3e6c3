import { createHash } from 'node:crypto';
import { UsageError } from '../errors/errors.js';
import type { WorkItem } from './plan.js';

/** Shard `index` (1-based) of `count`, as `--shard index/count` gives it. */
export interface Shard {
  index: number;
  count: number;
}

/** Largest shard count accepted: far beyond any CI matrix, small enough to catch a typo. */
export const MAX_SHARDS = 1000;

export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match) throw new UsageError(`--shard must be INDEX/COUNT with 1 <= INDEX <= COUNT, e.g. --shard 2/4; got "${text}"`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || count > MAX_SHARDS) throw new UsageError(`--shard ${text}: the shard count must be between 1 and ${MAX_SHARDS}`);
  if (index < 1 || index > count) throw new UsageError(`--shard ${text}: the shard index must be between 1 and ${count} (shards are numbered from 1)`);
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * Expected work of one item, in asked turns: a question with follow-ups asks several, a search one.
 * The unit is the same in every pool, and pools are balanced separately, so only ratios within a pool matter.
 */
function weightOf(item: WorkItem): number {
  return item.kind === 'question' ? 1 + item.question.followups.length : 1;
}

/**
 * The items of `shard`, in plan order, each keeping its place in the whole plan (`position`) so merged
 * shards read back in the order an unsharded run has.
 *
 * The unit of assignment is a suite item on a target with all its repeats: its repeats then come from one
 * machine (their spread measures the service, not the gap between two CI runners) and are asked in repeat
 * order, as in an unsharded run. Units are balanced per pool (target x kind: each has its own concurrency
 * limit, so a shard's time is that of its slowest pool) by greedy longest-first assignment: heaviest unit
 * first, to the least-loaded shard of the pool (then of the whole plan, then the lowest index). Ties in
 * weight are ordered by a hash of the unit's key, never by position. After it, any two shards of a pool
 * differ by at most one unit's weight.
 *
 * The split is a pure function of the plan (suite, targets, repeats): every machine computes the same one.
 * It is not stable across edits of the suite, nor need it be: shards of different suites never merge.
 */
export function shardPlan(items: readonly WorkItem[], shard: Shard): WorkItem[] {
  const owner = assignUnits(items, shard.count);
  const mine: WorkItem[] = [];
  items.forEach((item, position) => {
    if (owner.get(unitKey(item)) === shard.index) mine.push({ ...item, position });
  });
  return mine;
}

/** Shard index (1-based) of every unit of the plan. */
export function assignUnits(items: readonly WorkItem[], count: number): Map<string, number> {
  const pools = new Map<string, Map<string, number>>();
  for (const item of items) {
    const poolKey = `${item.target}\u0000${item.kind}`;
    let pool = pools.get(poolKey);
    if (!pool) pools.set(poolKey, (pool = new Map()));
    const unit = unitKey(item);
    pool.set(unit, (pool.get(unit) ?? 0) + weightOf(item));
  }
  const total = new Array<number>(count).fill(0);
  const owner = new Map<string, number>();
  for (const poolKey of [...pools.keys()].sort()) {
    const load = new Array<number>(count).fill(0);
    const units = [...(pools.get(poolKey) as Map<string, number>)].map(([key, weight]) => ({ key, weight, hash: hashOf(key) }));
    units.sort((a, b) => b.weight - a.weight || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    for (const unit of units) {
      let best = 0;
      for (let s = 1; s < count; s++) {
        if (load[s]! < load[best]! || (load[s] === load[best] && total[s]! < total[best]!)) best = s;
      }
      load[best]! += unit.weight;
      total[best]! += unit.weight;
      owner.set(unit.key, best + 1);
    }
  }
  return owner;
}

/** A suite item on a target, all repeats: `<target>/<kind>/<id>`. */
function unitKey(item: WorkItem): string {
  return `${item.target}/${item.kind}/${item.suiteItemId}`;
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What makes runs shards of one run: the suite's bytes, the instances, and the label the user gave. */
export interface GroupIdentity {
  suiteHash: string;
  /** An emulated target's URL is a port of a process gone with its job: it names no instance. */
  targets: ReadonlyArray<{ name: string; url: string; emulated: boolean }>;
  label: string;
}

/** The run group id: the same on every machine for one nightly, different for another suite, instance or label. */
export function runGroupId(identity: GroupIdentity): string {
  const targets = identity.targets.map((t) => [t.name, t.emulated ? 'emulated' : t.url]);
  return hashOf(JSON.stringify({ suite: identity.suiteHash, targets, label: identity.label })).slice(0, 16);
}

/** Each shard's questions' weight (asked turns) under the split of `count`, index 0 for shard 1: what a group limit is shared by. */
export function shardQuestionWeights(items: readonly WorkItem[], count: number): number[] {
  const owner = assignUnits(items, count);
  const weights = new Array<number>(count).fill(0);
  for (const item of items) if (item.kind === 'question') weights[owner.get(unitKey(item))! - 1]! += weightOf(item);
  return weights;
}
