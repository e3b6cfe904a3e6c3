import type Database from 'better-sqlite3';
import { runStamp } from '../store/view-queries.js';

// What a run's pages take long to count (its report, its items' sort keys, its filters' choices), kept per
// run while the run's stamp is unchanged: a finished run's figures stay when another run records beside it.

/** Runs whose counts are kept at once; the oldest used is dropped first. */
const RUNS_KEPT = 8;

export class RunCache {
  private readonly runs = new Map<number, { stamp: string; values: Map<string, unknown> }>();

  constructor(private readonly db: Database.Database) {}

  get<T>(runId: number, what: string, make: () => T): T {
    const stamp = runStamp(this.db, runId);
    let entry = this.runs.get(runId);
    if (entry?.stamp !== stamp) entry = { stamp, values: new Map() };
    // Re-inserted: the map's order is the order of use.
    this.runs.delete(runId);
    this.runs.set(runId, entry);
    if (this.runs.size > RUNS_KEPT) this.runs.delete(this.runs.keys().next().value as number);
    if (!entry.values.has(what)) entry.values.set(what, make());
    return entry.values.get(what) as T;
  }

  /** Drops a kept value if it is still `value` (a count that failed is tried again at the next request). */
  forget(runId: number, what: string, value: unknown): void {
    const values = this.runs.get(runId)?.values;
    if (values && values.get(what) === value) values.delete(what);
  }
}
