import type Database from 'better-sqlite3';
import { type RunHead, runCounts, runProductVersions, runTargets, suiteRuns } from '../store/queries.js';
import type { Column } from './csv.js';
import { type NightReader, passOverRuns } from './history-pass.js';
import { HistorySummary, type TargetFigures } from './history-summary.js';
import type { QuestionSummaryRow } from './summary.js';

// history.csv: one row per run and target over the last N runs of a suite, oldest first (a trend).

export interface HistoryRow {
  runId: number;
  label: string | null;
  suite: string;
  startedAt: string;
  endedAt: string | null;
  status: string;
  target: string;
  items: number;
  itemsDone: number;
  itemsPending: number;
  questions: number;
  /** Items that ended well (as every report counts them: summary.ts countItem). */
  completed: number;
  /** Items that ended in an error the suite did not expect; those it expected are counted apart. */
  failed: number;
  expectedErrors: number;
  inProgress: number;
  errorRate: number | null;
  expectItems: number;
  passRate: number | null;
  serverMsP50: number | null;
  serverMsP90: number | null;
  wallMsP50: number | null;
  wallMsP90: number | null;
  creditsSum: number | null;
  creditsMean: number | null;
  /** The target's product version at the run's start; null when unknown. */
  productVersion: string | null;
  /** It differs from the version of the target's last earlier run in the history whose version is known. */
  versionChanged: boolean;
}

export interface HistoryOptions {
  /** The newest run to include (a report of run N shows the trend up to N). */
  through?: number | undefined;
  /** Turns of older runs summarized at most: past it, older runs are left out (the newest always counts). */
  maxTurns?: number | undefined;
  /** A run's summary rows already computed by the caller (the run a report is about), not computed again. */
  known?: { runId: number; rows: readonly QuestionSummaryRow[] } | undefined;
  /** Others that read the same runs (the question grid, the nightly series): told each run in the same pass. */
  readers?: readonly NightReader[] | undefined;
}

/**
 * The runs of `suite`, newest `limit` of them, as trend rows (oldest first). A run that asked nothing (every
 * item skipped before it was sent) is no point of the trend, not a clean night: it is listed apart (`nothingAsked`).
 */
export function collectHistory(
  db: Database.Database,
  suite: string,
  limit: number,
  options: HistoryOptions = {},
): { runs: RunHead[]; rows: HistoryRow[]; nothingAsked: RunHead[] } {
  const { runs, nothingAsked } = historyRuns(db, suite, limit, options);
  const summaries = new Map<number, HistorySummary>();
  passOverRuns(db, runs.map((r) => r.id), (night, runId) => {
    const sinks = (options.readers ?? []).flatMap((r) => r.sink(night, runId) ?? []);
    if (options.known?.runId === runId) return sinks;
    const summary = new HistorySummary(runTargets(db, runId).map((t) => t.name));
    summaries.set(runId, summary);
    return [summary.sink(), ...sinks];
  });
  const rows: HistoryRow[] = [];
  const lastVersion = new Map<string, string>();
  for (const run of runs) {
    const versions = new Map(runProductVersions(db, run.id).map((v) => [v.target, v.version]));
    for (const row of historyRows(run, summaries.get(run.id)?.rows() ?? options.known!.rows.filter((s) => s.scope === 'target'))) {
      const version = versions.get(row.target) ?? null;
      const before = lastVersion.get(row.target);
      if (version !== null) lastVersion.set(row.target, version);
      rows.push({ ...row, productVersion: version, versionChanged: version !== null && before !== undefined && before !== version });
    }
  }
  return { runs, rows, nothingAsked };
}

/** The runs of the history, oldest first, and apart those that asked nothing. */
function historyRuns(db: Database.Database, suite: string, limit: number, options: HistoryOptions): { runs: RunHead[]; nothingAsked: RunHead[] } {
  const runs: RunHead[] = [];
  const nothingAsked: RunHead[] = [];
  let turns = 0;
  for (const run of suiteRuns(db, suite, limit, options.through)) {
    if (run.nothingAsked) {
      nothingAsked.unshift(run);
      continue;
    }
    if (options.maxTurns !== undefined && options.known?.runId !== run.id) turns += runCounts(db, run.id).turns;
    if (runs.length > 0 && options.maxTurns !== undefined && turns > options.maxTurns) break;
    runs.push(run);
  }
  return { runs: runs.reverse(), nothingAsked };
}

function historyRows(run: RunHead, summary: readonly TargetFigures[]): Array<Omit<HistoryRow, 'productVersion' | 'versionChanged'>> {
  return summary.map((s) => {
    return {
      runId: run.id,
      label: run.label,
      suite: run.suiteName,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      status: run.status,
      target: s.target,
      items: s.items,
      itemsDone: s.done,
      itemsPending: s.pending + s.running,
      questions: s.questions,
      completed: s.itemsCompleted,
      failed: s.itemErrors,
      expectedErrors: s.itemExpectedErrors,
      inProgress: s.inProgress,
      errorRate: s.done === 0 ? null : s.itemErrors / s.done,
      expectItems: s.expectItems,
      passRate: s.answeredItems === 0 ? null : s.answeredPassed / s.answeredItems,
      serverMsP50: s.serverMs.p50,
      serverMsP90: s.serverMs.p90,
      wallMsP50: s.wallMs.p50,
      wallMsP90: s.wallMs.p90,
      creditsSum: s.credits.sum,
      creditsMean: s.credits.mean,
    };
  });
}

/** history.csv columns, stable. */
export const HISTORY_COLUMNS: ReadonlyArray<Column<HistoryRow>> = [
  { name: 'run_id', value: (r) => r.runId },
  { name: 'label', value: (r) => r.label },
  { name: 'suite', value: (r) => r.suite },
  { name: 'started_at', value: (r) => r.startedAt },
  { name: 'ended_at', value: (r) => r.endedAt },
  { name: 'status', value: (r) => r.status },
  { name: 'target', value: (r) => r.target },
  { name: 'items', value: (r) => r.items },
  { name: 'items_done', value: (r) => r.itemsDone },
  { name: 'items_not_done', value: (r) => r.itemsPending },
  { name: 'questions', value: (r) => r.questions },
  { name: 'completed', value: (r) => r.completed },
  { name: 'failed', value: (r) => r.failed },
  { name: 'expected_errors', value: (r) => r.expectedErrors },
  { name: 'in_progress', value: (r) => r.inProgress },
  { name: 'error_rate', value: (r) => r.errorRate },
  { name: 'expect_items', value: (r) => r.expectItems },
  { name: 'pass_rate', value: (r) => r.passRate },
  { name: 'server_ms_p50', value: (r) => r.serverMsP50 },
  { name: 'server_ms_p90', value: (r) => r.serverMsP90 },
  { name: 'wall_ms_p50', value: (r) => r.wallMsP50 },
  { name: 'wall_ms_p90', value: (r) => r.wallMsP90 },
  { name: 'credits_sum', value: (r) => r.creditsSum },
  { name: 'credits_mean', value: (r) => r.creditsMean },
  { name: 'product_version', value: (r) => r.productVersion },
  { name: 'version_changed', value: (r) => r.versionChanged },
];
