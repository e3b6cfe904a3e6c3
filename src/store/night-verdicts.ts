import type Database from 'better-sqlite3';
import type { ExitCode } from '../errors/exit-codes.js';
import { type RunRecord, findRun, runTargets, storedVerdict } from './run-lookup.js';

// A night's verdict: what the run's command decided when it ended. With `--baseline` that is the
// comparison's (after the second look and the suite's thresholds), recorded as the run ends; without one,
// the run's own (its items and checks). Pooled baselines (`window:K`) and blessing read it, so a night that
// regressed against its baseline never joins one, and a night judged unchanged does although some of its
// checks failed, as a benchmark's do every night. A blessed run joins one whatever its verdict.

export interface NightVerdict {
  exitCode: ExitCode;
  /** The verdict is its comparison's with a baseline, not its own items'. */
  compared: boolean;
}

/** Records the exit code the comparison of `runId` with its baseline decided; the newest decision stands. */
export function recordComparedVerdict(db: Database.Database, runId: number, exitCode: ExitCode): void {
  db.prepare('UPDATE runs SET compared_exit = ? WHERE id = ?').run(exitCode, runId);
}

export function nightVerdict(db: Database.Database, runId: number): NightVerdict {
  const run = findRun(db, runId);
  if (!run) throw new Error(`no run ${runId}`);
  return run.comparedExit === null ? { exitCode: storedVerdict(db, runId), compared: false } : { exitCode: run.comparedExit as ExitCode, compared: true };
}

/**
 * The newest `limit` runs of a suite before run `beforeId` (any, without it) that stand for a night that
 * passed (finishedRunIdsBefore's, whose night verdict passed, or that a team blessed: a baseline it vouched
 * for, with --force too, so that a first night whose checks failed can start a window), newest first. For
 * `window:K` baselines.
 */
export function passedRunsBefore(db: Database.Database, suite: string, beforeId: number | undefined, limit: number, targetsFit: (targets: string[]) => boolean): RunRecord[] {
  const blessed = db.prepare('SELECT 1 FROM baselines WHERE run_id = ? LIMIT 1').pluck();
  const found: number[] = [];
  for (const id of finishedRunIdsBefore(db, suite, beforeId, targetsFit)) {
    // A blessed run pools as it is: its items need no tally.
    if (blessed.get(id) === undefined && nightVerdict(db, id).exitCode !== 0) continue;
    found.push(id);
    if (found.length === limit) break;
  }
  return found.map((id) => findRun(db, id)!);
}

/**
 * The night verdicts of the newest `limit` runs `passedRunsBefore` looks at, passed or not: when none
 * passed, they say why a `window:K` found nothing to pool.
 */
export function finishedVerdictsBefore(db: Database.Database, suite: string, beforeId: number | undefined, limit: number, targetsFit: (targets: string[]) => boolean): NightVerdict[] {
  const verdicts: NightVerdict[] = [];
  for (const id of finishedRunIdsBefore(db, suite, beforeId, targetsFit)) {
    verdicts.push(nightVerdict(db, id));
    if (verdicts.length === limit) break;
  }
  return verdicts;
}

/**
 * The runs that could stand for a night, newest first: completed, whole (no shard, no partial merge), asked
 * something, the suite's own run (not a rerun of failed items, not a confirmation's re-asked questions),
 * before run `beforeId`, whose targets fit.
 */
function* finishedRunIdsBefore(db: Database.Database, suite: string, beforeId: number | undefined, targetsFit: (targets: string[]) => boolean): Generator<number> {
  const ids = db
    .prepare(
      `SELECT id FROM runs WHERE suite_name = @suite AND (@before IS NULL OR id < @before) AND status = 'completed' AND shard_index IS NULL
        AND partial = 0 AND nothing_asked = 0 AND rerun_of IS NULL AND confirm_of IS NULL
      ORDER BY id DESC`,
    )
    .pluck()
    .all({ suite, before: beforeId ?? null }) as number[];
  for (const id of ids) if (targetsFit(runTargets(db, id).map((t) => t.name))) yield id;
}
