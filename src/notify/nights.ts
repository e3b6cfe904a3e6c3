import type Database from 'better-sqlite3';
import { ExitCode } from '../errors/exit-codes.js';
import { mostSevere } from '../model/verdict.js';
import { runQuality } from '../report/quality.js';
import { runThresholdResults, thresholdsExitCode } from '../report/thresholds.js';
import { findRun, runRow, runTargets, storedVerdict, suiteRuns } from '../store/queries.js';
import type { NotifyNight } from './payload.js';

// A night as `--notify` compares it: the run's own verdict (its items, checks and the suite's thresholds,
// the same rule for both nights, so a --baseline comparison, which is not stored, is no part of it) and
// its flaky questions.

/** Earlier runs of the suite looked at for the previous night. */
const LOOK_BACK = 50;

export function nightOf(db: Database.Database, runId: number): NotifyNight {
  const run = findRun(db, runId);
  if (!run) throw new Error(`no run ${runId}`);
  const exitCode = mostSevere([storedVerdict(db, runId), thresholdsExitCode(runThresholdResults(db, run))]);
  const flaky = runQuality(db, runId).targets.flatMap((t) => t.flaky.map((id) => `${t.target}/${id}`));
  return { runId, label: run.label, startedAt: run.startedAt, endedAt: run.endedAt, verdict: exitCode === ExitCode.ok ? 'green' : 'red', exitCode, flaky: flaky.sort() };
}

/**
 * The night before run `runId`: the newest earlier run of its suite with the same targets that stood for a
 * whole night (ended, not stopped by a signal, asked something, no shard, no rerun of failed items, no confirmation).
 */
export function previousNightId(db: Database.Database, runId: number, suite: string): number | undefined {
  const targets = runTargets(db, runId).map((t) => t.name).sort().join('\n');
  for (const head of suiteRuns(db, suite, LOOK_BACK, runId - 1)) {
    if (head.nothingAsked || head.status === 'running' || head.status === 'aborted') continue;
    const row = runRow(db, head.id);
    if (!row || row.shardIndex !== null || row.rerunOf !== null) continue;
    if (runTargets(db, head.id).map((t) => t.name).sort().join('\n') === targets) return head.id;
  }
  return undefined;
}
