import type Database from 'better-sqlite3';
import { ExitCode } from '../errors/exit-codes.js';
import type { ItemKind } from '../model/item.js';
import type { RunStatus } from '../model/run.js';
import { emptyTargetTally, type RunTally } from '../model/tally.js';
import { failureClass, runExitCode, type VerdictOutcome } from '../model/verdict.js';
import { type RowOf, pick, selectList } from './columns.js';
import { requeuedAttempts } from './requeue.js';
import { QUOTA_SNAPSHOTS, UNOWNED_CONVERSATIONS } from './tables.js';

// What a run came to: its verdict and tallies, its expectations, errors and anomalies in aggregate, and the
// short lists reports show beside them (quota snapshots, conversations no item owns).

export interface ExpectationSummary {
  total: number;
  passed: number;
  failed: number;
  byName: Array<{ name: string; total: number; passed: number; failed: number }>;
  failures: Array<{ itemKey: string; target: string; suiteItemId: string; repeat: number; name: string; reason: string; turn: number | null }>;
}

/** The verdict of a recorded run: what `dsbench run` ended (or would have ended) with. */
export function storedRunExitCode(status: RunStatus, tally: RunTally, stopReason: string | null = null): ExitCode {
  const budget = status === 'aborted' && stopReason === 'budget';
  return runExitCode({
    signalled: status === 'aborted' && !budget,
    // A run is marked failed when a target was unreachable or refused the token.
    stops: status === 'failed' ? [ExitCode.unreachable] : budget ? [ExitCode.budgetExceeded] : [],
    items: tally.items,
    failedChecks: tally.checks.failed,
  });
}

/** Items by target, kind and outcome, credits and checks of one run: one pass over its items. */
export function runTally(db: Database.Database, runId: number): RunTally {
  const rows = db
    .prepare(
      // Each item's checks summed once (a join on one pass over the run's expectations, not correlated
      // subqueries that the outer query would evaluate again for every reference), then grouped by whether
      // they all held, as failureClass reads them.
      `SELECT target, kind, outcome, httpStatus, count(*) AS count, sum(credits) AS credits, sum(passed) AS passed, sum(failed) AS failed,
        passed > 0 AND failed = 0 AS checksHeld
      FROM (SELECT i.target, i.kind, coalesce(i.outcome, i.status) AS outcome, s.http_status AS httpStatus, i.position,
          (SELECT sum(t.credits) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key) AS credits,
          coalesce(e.passed, 0) AS passed, coalesce(e.failed, 0) AS failed
        FROM items i LEFT JOIN searches s ON s.run_id = i.run_id AND s.item_key = i.key
        LEFT JOIN (SELECT item_key, sum(passed) AS passed, count(*) - sum(passed) AS failed FROM expectations WHERE run_id = @runId GROUP BY item_key) e
          ON e.item_key = i.key
        WHERE i.run_id = @runId)
      GROUP BY target, kind, outcome, httpStatus, checksHeld ORDER BY min(position)`,
    )
    .all({ runId }) as Array<{ target: string; kind: ItemKind; outcome: VerdictOutcome; httpStatus: number | null; count: number; credits: number | null; passed: number; failed: number; checksHeld: 0 | 1 }>;
  const tally: RunTally = { targets: {}, items: [], checks: { passed: 0, failed: 0 } };
  for (const row of rows) {
    const t = (tally.targets[row.target] ??= emptyTargetTally());
    const k = row.kind === 'search' ? t.searches : t.questions;
    t.counts[row.outcome] = (t.counts[row.outcome] ?? 0) + row.count;
    k.counts[row.outcome] = (k.counts[row.outcome] ?? 0) + row.count;
    if (failureClass(row.outcome, { passed: row.checksHeld, failed: 1 - row.checksHeld }) === 'expected') k.expected[row.outcome] = (k.expected[row.outcome] ?? 0) + row.count;
    if (row.credits !== null) t.credits = (t.credits ?? 0) + row.credits;
    for (const into of [t, k, tally.checks]) {
      into.passed += row.passed;
      into.failed += row.failed;
    }
    tally.items.push({ kind: row.kind, outcome: row.outcome, httpStatus: row.httpStatus, count: row.count });
  }
  const unowned = db.prepare('SELECT target, count(*) AS count FROM unowned_conversations WHERE run_id = ? GROUP BY target').all(runId) as Array<{ target: string; count: number }>;
  for (const row of unowned) (tally.targets[row.target] ??= emptyTargetTally()).unownedConversations = row.count;
  for (const [target, rerun] of Object.entries(requeuedAttempts(db, runId))) (tally.targets[target] ??= emptyTargetTally()).rerunAfterInterruption = rerun;
  for (const row of lostCreateChecks(db, runId)) {
    (tally.targets[row.target] ??= emptyTargetTally()).lostCreates = { texts: row.texts, unchecked: row.unchecked, error: row.error };
  }
  return tally;
}

/** Checks whose result is a measure (recall over files, a number stated), shown with it in reports, passed or not. */
const MEASURED_CHECKS = ['citesRecall', 'number'];

export type MeasuredCheck = Omit<ExpectationSummary['failures'][number], 'itemKey'> & { passed: boolean };

/**
 * Expectations of a run by name, with item counts; at most `maxFailures` failures listed (-1: all), so
 * `failures.length` may be less than `failed`; as many of the measured checks (recall, numbers), passed or not.
 */
export function expectationOverview(
  db: Database.Database,
  runId: number,
  maxFailures: number,
): ExpectationSummary & { failedItems: number; items: number; passedItems: number; measured: MeasuredCheck[] } {
  const byName = db
    .prepare(
      `SELECT name, count(*) AS total, sum(passed) AS passed, count(*) - sum(passed) AS failed
      FROM expectations WHERE run_id = ? GROUP BY name ORDER BY name`,
    )
    .all(runId) as ExpectationSummary['byName'];
  const failures = db
    .prepare(
      `SELECT i.key AS itemKey, i.target, i.suite_item_id AS suiteItemId, i.repeat, e.name, e.reason, e.turn
      FROM expectations e JOIN items i ON i.run_id = e.run_id AND i.key = e.item_key
      WHERE e.run_id = ? AND e.passed = 0 ORDER BY i.position, e.position LIMIT ?`,
    )
    .all(runId, maxFailures < 0 ? -1 : maxFailures) as ExpectationSummary['failures'];
  const items = db
    .prepare(
      `SELECT count(*) AS items, coalesce(sum(ok), 0) AS passedItems FROM
        (SELECT min(passed) AS ok FROM expectations WHERE run_id = ? GROUP BY item_key)`,
    )
    .get(runId) as { items: number; passedItems: number };
  const measured = db
    .prepare(
      `SELECT i.target, i.suite_item_id AS suiteItemId, i.repeat, e.name, e.passed, e.reason, e.turn
      FROM expectations e JOIN items i ON i.run_id = e.run_id AND i.key = e.item_key
      WHERE e.run_id = ? AND e.name IN (${MEASURED_CHECKS.map(() => '?').join(', ')}) ORDER BY i.position, e.position LIMIT ?`,
    )
    .all(runId, ...MEASURED_CHECKS, maxFailures < 0 ? -1 : maxFailures) as Array<Omit<MeasuredCheck, 'passed'> & { passed: number }>;
  const passed = byName.reduce((sum, n) => sum + n.passed, 0);
  const total = byName.reduce((sum, n) => sum + n.total, 0);
  return {
    total,
    passed,
    failed: total - passed,
    byName,
    failures,
    ...items,
    failedItems: items.items - items.passedItems,
    measured: measured.map((m) => ({ ...m, passed: m.passed === 1 })),
  };
}

export interface ErrorBreakdownRow {
  target: string;
  kind: ItemKind;
  /** Turn state (questions) or verdict (searches). */
  state: string;
  errorCode: string | null;
  rawCode: string | null;
  count: number;
  /** One message of the group (the smallest, so reports are stable). */
  example: string | null;
}

/** Failed turns and searches grouped by target, state, code and raw code; most frequent first. */
export function errorBreakdown(db: Database.Database, runId: number): ErrorBreakdownRow[] {
  return db
    .prepare(
      `SELECT target, kind, state, errorCode, rawCode, count(*) AS count, min(message) AS example FROM (
        SELECT i.target, 'question' AS kind, t.state, t.error_code AS errorCode, t.error_raw_code AS rawCode,
          coalesce(t.error_message, t.client_error) AS message
        FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
        WHERE t.run_id = @runId AND t.state IN ('error', 'canceled', 'timeout', 'client_error')
        UNION ALL
        SELECT i.target, 'search', s.verdict, NULL, CAST(s.http_status AS TEXT), coalesce(s.error, s.alert)
        FROM searches s JOIN items i ON i.run_id = s.run_id AND i.key = s.item_key
        WHERE s.run_id = @runId AND s.verdict IN ('error', 'http_error'))
      GROUP BY target, kind, state, errorCode, rawCode ORDER BY count DESC, target, kind, state, errorCode, rawCode`,
    )
    .all({ runId }) as ErrorBreakdownRow[];
}

export interface StatAnomalyRow {
  target: string;
  itemKey: string;
  turn: number;
  /** What could not be true, one description per figure. */
  anomalies: string[];
}

/** A conversation asking one of the run's questions that no item owns (a create given up that landed after all). */
export interface LostCreateCheckRow {
  target: string;
  /** Texts of creates given up, their outcome unknown. */
  texts: number;
  /** Of those, the texts no end-of-run check looked for (the run ended before its check, or the check failed). */
  unchecked: number;
  /** Why the last check failed; null when none did. */
  error: string | null;
}

/** Per target, the creates a run gave up and whether the end-of-run check looked for their late landing. */
export function lostCreateChecks(db: Database.Database, runId: number): LostCreateCheckRow[] {
  return db
    .prepare(
      `SELECT target, count(*) AS texts, sum(checked IS NULL OR failed IS NOT NULL) AS unchecked, max(failed) AS error
       FROM (SELECT target, text, max(checked_at) AS checked, max(check_error) AS failed FROM lost_creates WHERE run_id = ? GROUP BY target, text)
       GROUP BY target ORDER BY target`,
    )
    .all(runId) as LostCreateCheckRow[];
}

const UNOWNED_LISTED = pick(UNOWNED_CONVERSATIONS, 'target', 'conversationRef', 'text', 'createdAt');
export type UnownedConversationRow = RowOf<typeof UNOWNED_LISTED>;

export function unownedConversations(db: Database.Database, runId: number): UnownedConversationRow[] {
  return db
    .prepare(`SELECT ${selectList(UNOWNED_LISTED)} FROM unowned_conversations WHERE run_id = ? ORDER BY target, created_at, conversation_ref`)
    .all(runId) as UnownedConversationRow[];
}

/** Replies whose stats could not be true (kept out of sums and percentiles), in item order. */
export function statAnomalies(db: Database.Database, runId: number): StatAnomalyRow[] {
  const rows = db
    .prepare(
      `SELECT i.target, t.item_key AS itemKey, t.turn, t.anomalies FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
      WHERE t.run_id = @runId AND t.anomalies IS NOT NULL ORDER BY i.position, t.turn`,
    )
    .all({ runId }) as Array<Omit<StatAnomalyRow, 'anomalies'> & { anomalies: string }>;
  return rows.map((r) => ({ ...r, anomalies: JSON.parse(r.anomalies) as string[] }));
}


export function expectationSummary(db: Database.Database, runId: number): ExpectationSummary {
  const { total, passed, failed, byName, failures } = expectationOverview(db, runId, -1);
  return { total, passed, failed, byName, failures };
}

const QUOTA_LISTED = pick(QUOTA_SNAPSHOTS, 'target', 'at', 'totalQuota', 'quotaLimit', 'resetTime');
export type QuotaSnapshotRow = RowOf<typeof QUOTA_LISTED>;

/** Quota snapshots of a run, by target then time. */
export function quotaSnapshots(db: Database.Database, runId: number): QuotaSnapshotRow[] {
  return db
    .prepare(
      `SELECT ${selectList(QUOTA_LISTED)} FROM quota_snapshots WHERE run_id = ? ORDER BY target, at, id`,
    )
    .all(runId) as QuotaSnapshotRow[];
}
