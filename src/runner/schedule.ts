import { DsbenchError, isHeldElsewhere, StorageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { TurnRecord } from '../model/item.js';
import type { ResumeItem } from '../model/run.js';
import type { CreditBudget } from './budget.js';
import type { RunContext, TargetRuntime } from './item-context.js';
import type { ItemSummary } from './item-summary.js';
import type { LiveGrading } from './live-grading.js';
import type { WorkItem } from './plan.js';
import { runQuestion } from './question-runner.js';
import { runSearchItem } from './search-runner.js';
import type { ItemSlot } from './slots.js';

/** The run's budget, and how it stops the run. */
export interface Spend {
  budget: CreditBudget;
  stop: () => void;
}

/** What launching an item needs beyond its run and target. */
export interface Launching {
  run: RunContext;
  /** What a resumed run recorded of an unfinished item, to pick it up where it was. */
  resumeOf: (key: string) => ResumeItem | undefined;
  grading: LiveGrading | undefined;
  spend: Spend | undefined;
}

/**
 * Runs the items still pending, each on its target under that target's limits. Items are made from the
 * plan as slots free up, one limit at a time, each limit walking the plan for its own items: neither the
 * plan nor a promise per item is held (100,000 items would be about 25 MB and 1.6 KB each). An item waiting
 * for a send to land gives its slot up meanwhile (`ItemSlot`), so another item starts; it takes a slot
 * again before any new item does.
 */
export function schedule(items: Iterable<WorkItem>, pending: (item: WorkItem) => boolean, runtimes: Map<string, TargetRuntime>, ctx: Launching): Promise<void>[] {
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
        const done: Promise<void> = launch(item, r, ctx, slot)
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

async function launch(item: WorkItem, r: TargetRuntime, ctx: Launching, slot: ItemSlot): Promise<void> {
  let turns: readonly TurnRecord[] | undefined;
  try {
    turns = await launchItem(item, r, ctx, slot);
  } catch (error) {
    // A storage failure (recording a skip, say) stops the whole run and is reported once, at its end.
    if (error instanceof StorageError) return;
    throw error;
  }
  if (item.kind === 'question' && turns) ctx.grading?.ended(item.key, item.target, item.question, turns);
}

/** Runs one item in its slot; returns a question's turns for grading. */
async function launchItem(item: WorkItem, r: TargetRuntime, ctx: Launching, slot: ItemSlot): Promise<readonly TurnRecord[] | undefined> {
  const { run, spend } = ctx;
  // Items not launched before a stop stay pending, so a resume runs them.
  if (run.signals.stop.aborted) return undefined;
  if (!spend) return (await runItem(item, r, ctx, slot))?.turns;
  if (!spend.budget.admit(item)) {
    if (!run.signals.stop.aborted) run.log(`${spend.budget.stopped}; running items finish, the rest stay pending (resume with a higher --max-credits)`);
    spend.stop();
    return undefined;
  }
  let summary: ItemSummary | undefined;
  try {
    summary = await runItem(item, r, ctx, slot);
    return summary?.turns;
  } finally {
    spend.budget.settle(item, summary?.credits ?? null, creditsBefore(ctx.resumeOf(item.key)));
  }
}

/** What the turns a resume restores had cost: a resumed item's credits count them again. */
function creditsBefore(resumed: ResumeItem | undefined): number {
  return (resumed?.turns ?? []).reduce((sum, t) => sum + (t.stats?.credits ?? 0), 0);
}

/** Runs one item in its slot, once it may start; undefined when it did not run to its end (a stop, a skip). */
async function runItem(item: WorkItem, r: TargetRuntime, ctx: Launching, slot: ItemSlot): Promise<ItemSummary | undefined> {
  const { run } = ctx;
  const { runId, recorder, events, signals, log } = run;
  const stop = await r.gate.admit(signals.stop);
  if (signals.stop.aborted) return undefined;
  if (stop) {
    recorder.itemSkipped(runId, item.key, stop.reason, new Date().toISOString());
    // A skipped item is finished for the progress display too, so done reaches the total.
    events.emit({ type: 'item-started', key: item.key });
    events.emit({ type: 'item-ended', key: item.key, summary: { outcome: 'skipped', credits: null, passed: 0, failed: 0 } });
    return undefined;
  }
  events.emit({ type: 'item-started', key: item.key });
  let summary: ItemSummary;
  try {
    summary =
      item.kind === 'question'
        ? await runQuestion({ run, target: r, slot }, { key: item.key, target: item.target, question: item.question }, ctx.resumeOf(item.key))
        : await runSearchItem({ run, target: r }, { key: item.key, target: item.target, search: item.search });
  } catch (error) {
    // The store failed, or the run was taken over: the run stops at once.
    if (error instanceof StorageError || isHeldElsewhere(error)) throw error;
    // A bug: say which item, keep the rest of the run going.
    const message = error instanceof DsbenchError ? error.message : `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    log(`${item.key}: ${message}`);
    r.failures.push(error instanceof DsbenchError ? error.exitCode : ExitCode.internal);
    summary = { outcome: 'client_error', credits: null, passed: 0, failed: 0 };
  }
  events.emit({ type: 'item-ended', key: item.key, summary });
  return summary;
}
