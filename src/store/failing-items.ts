import type Database from 'better-sqlite3';
import { failureClass, type VerdictOutcome } from '../model/verdict.js';

/** An item that failed: a check that did not hold, or an outcome the suite did not expect (failureClass). */
export interface FailingItem {
  target: string;
  suiteItemId: string;
  repeat: number;
  outcome: string;
  /** Its first reason: the first failed check, else what went wrong. */
  reason: string;
}

/**
 * The failing items of a run in plan order, at most `limit` of them, and how many there are in all. An
 * error the suite expected (its checks all held) is not one, as everywhere else.
 */
export function failingItems(db: Database.Database, runId: number, limit: number): { items: FailingItem[]; total: number } {
  const rows = db
    .prepare(
      `SELECT i.target, i.suite_item_id AS suiteItemId, i.repeat, coalesce(i.outcome, i.status) AS outcome,
         coalesce(e.passed, 0) AS passed, coalesce(e.failed, 0) AS failed,
         (SELECT x.name || ': ' || x.reason FROM expectations x WHERE x.run_id = i.run_id AND x.item_key = i.key AND x.passed = 0 ORDER BY x.position LIMIT 1) AS failedCheck,
         (SELECT coalesce(t.error_code || ': ', '') || coalesce(t.error_message, t.client_error, t.state) FROM turns t
           WHERE t.run_id = i.run_id AND t.item_key = i.key AND t.state <> 'completed' ORDER BY t.turn DESC LIMIT 1) AS turnError,
         (SELECT coalesce(s.error, s.alert, s.verdict) FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key) AS searchError
       FROM items i
       LEFT JOIN (SELECT item_key, sum(passed) AS passed, count(*) - sum(passed) AS failed FROM expectations WHERE run_id = @runId GROUP BY item_key) e ON e.item_key = i.key
       WHERE i.run_id = @runId AND (coalesce(e.failed, 0) > 0 OR i.outcome IN ('error', 'client_error', 'timeout', 'http_error', 'truncated'))
       ORDER BY i.position`,
    )
    .iterate({ runId }) as IterableIterator<{ target: string; suiteItemId: string; repeat: number; outcome: string; passed: number; failed: number; failedCheck: string | null; turnError: string | null; searchError: string | null }>;
  const items: FailingItem[] = [];
  let total = 0;
  for (const row of rows) {
    if (row.failed === 0 && failureClass(row.outcome as VerdictOutcome, row) !== 'error') continue;
    total++;
    if (items.length < limit) {
      const reason = row.failedCheck ?? row.turnError ?? row.searchError ?? row.outcome;
      items.push({ target: row.target, suiteItemId: row.suiteItemId, repeat: row.repeat, outcome: row.outcome, reason: reason.replace(/\s+/g, ' ').trim() });
    }
  }
  return { items, total };
}
