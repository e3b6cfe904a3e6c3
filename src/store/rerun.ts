import type Database from 'better-sqlite3';
import { failureClass, type VerdictOutcome } from '../model/verdict.js';

/**
 * The keys of the items `run --rerun-failed` takes from a run: those whose checks failed, those that erred
 * (an error the suite did not expect, as the summary counts them), and those that never ran to their end
 * (skipped, pending, running).
 */
export function failedItemKeys(db: Database.Database, runId: number): Set<string> {
  const rows = db
    .prepare(
      `SELECT i.key, i.status, coalesce(i.outcome, i.status) AS outcome, coalesce(e.passed, 0) AS passed, coalesce(e.failed, 0) AS failed
      FROM items i LEFT JOIN (SELECT item_key, sum(passed) AS passed, count(*) - sum(passed) AS failed FROM expectations WHERE run_id = @runId GROUP BY item_key) e
        ON e.item_key = i.key
      WHERE i.run_id = @runId ORDER BY i.position`,
    )
    .all({ runId }) as Array<{ key: string; status: string; outcome: VerdictOutcome; passed: number; failed: number }>;
  const keys = new Set<string>();
  for (const r of rows) {
    if (r.status !== 'done' || r.failed > 0 || failureClass(r.outcome, r) === 'error') keys.add(r.key);
  }
  return keys;
}
