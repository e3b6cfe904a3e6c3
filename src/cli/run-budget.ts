import type Database from 'better-sqlite3';
import type { LoadedSuite } from '../config/load-suite.js';
import { UsageError } from '../errors/errors.js';
import { median } from '../runner/budget.js';
import type { PlannedItem } from '../model/item.js';
import type { RunTarget } from '../runner/run.js';
import { itemHistory } from '../store/estimates.js';

/** `--max-credits` on the versioned API, which reports no credits, could never stop anything: refused. */
export function refuseUnmeasuredBudget(maxCredits: number | undefined, api: 'legacy' | 'versioned'): void {
  if (maxCredits === undefined || api !== 'versioned') return;
  throw new UsageError(
    '--max-credits: the versioned API reports no credits (its replies carry no stats), so a cap on them could never stop the run; leave it out, or run on the legacy API (--api legacy)',
  );
}

/** What each item is expected to cost: the median of its credits in earlier runs of the suite on its target's instance (before run `before`). */
export function expectedCredits(db: Database.Database, suite: LoadedSuite, targets: readonly RunTarget[], before: number | undefined): (item: PlannedItem) => number | undefined {
  const histories = new Map(targets.map((t) => [t.name, itemHistory(db, suite.resolved.name, t.connection.endpoint, before)]));
  return (item) => median(histories.get(item.target)?.get(`${item.kind}/${item.suiteItemId}`)?.credits ?? []);
}
