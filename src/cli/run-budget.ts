import type Database from 'better-sqlite3';
import type { LoadedSuite } from '../config/load-suite.js';
import { median } from '../runner/budget.js';
import type { PlannedItem } from '../model/item.js';
import type { RunTarget } from '../runner/run.js';
import { itemHistory } from '../store/estimates.js';

/** What each item is expected to cost: the median of its credits in earlier runs of the suite on its target's instance (before run `before`). */
export function expectedCredits(db: Database.Database, suite: LoadedSuite, targets: readonly RunTarget[], before: number | undefined): (item: PlannedItem) => number | undefined {
  const histories = new Map(targets.map((t) => [t.name, itemHistory(db, suite.resolved.name, t.connection.endpoint, before)]));
  return (item) => median(histories.get(item.target)?.get(`${item.kind}/${item.suiteItemId}`)?.credits ?? []);
}
