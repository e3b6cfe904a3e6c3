import type Database from 'better-sqlite3';
import type { ExitCode } from '../errors/exit-codes.js';
import type { ApiFlavour } from '../model/api-flavour.js';
import type { RunStatus } from '../model/run.js';
import { type RowOf, decoder, omit, pick, qualified, selectList } from './columns.js';
import { type TargetProductVersion, runProductVersions } from './product-versions.js';
import { RUNS, type RunColumns, TARGETS } from './tables.js';
import { runTally, storedRunExitCode } from './tallies.js';

// Finding runs: by id, label or place among the runs, and the list of runs with their verdicts.

export type RunSelector = number | 'latest' | string;

/** How a run belongs to a run split over machines (`dsbench run --shard`, `dsbench merge`). */
export interface RunSplit {
  groupId: string;
  groupLabel: string;
  /** This run's shard (1-based); null on the run merged from the shards. */
  shardIndex: number | null;
  shardCount: number;
  /** The shards the run holds: its own, or those merged into it. */
  shards: number[];
  /** Merged with shards missing (`--allow-partial`). */
  partial: boolean;
}

const SPLIT = pick(RUNS, 'groupId', 'groupLabel', 'shardIndex', 'shardCount', 'partial');
type SplitColumns = RowOf<typeof SPLIT>;

/** A run's row: `split` in place of its split columns. */
const RUN_RECORD = omit(RUNS, 'stopReason');
type RunRecordColumns = RowOf<typeof RUN_RECORD>;

export interface RunRecord extends Omit<RunRecordColumns, keyof SplitColumns> {
  /** Set on a shard of a split run and on the run merged from its shards. */
  split: RunSplit | null;
}

const readRunRecord = decoder(RUN_RECORD);
const RUN_RECORD_SQL = selectList(RUN_RECORD);

/** Replaces a run row's split columns by its `split`. */
function withSplit<T extends SplitColumns & { id: number }>(db: Database.Database, row: T): Omit<T, keyof SplitColumns> & { split: RunSplit | null } {
  const { groupId, groupLabel, shardIndex, shardCount, partial, ...rest } = row;
  if (groupId === null || shardCount === null) return { ...rest, split: null };
  const shards =
    shardIndex !== null ? [shardIndex] : (db.prepare('SELECT shard_index FROM run_shards WHERE run_id = ? ORDER BY shard_index').pluck().all(row.id) as number[]);
  return { ...rest, split: { groupId, groupLabel: groupLabel ?? '', shardIndex, shardCount, shards, partial } };
}

function runRecord(db: Database.Database, row: unknown): RunRecord {
  return withSplit(db, readRunRecord(row));
}

const readRunRow = decoder(RUNS);
const RUN_ROW_SQL = `SELECT ${selectList(RUNS)} FROM runs WHERE id = ?`;

/** A run's row as stored, every column (a RunRecord leaves some out and gathers the split ones). */
export type RunRow = RunColumns;

export function runRow(db: Database.Database, runId: number): RunRow | undefined {
  const row = db.prepare(RUN_ROW_SQL).get(runId);
  return row === undefined ? undefined : readRunRow(row);
}

/** `12` selects run 12, `latest` the newest run, anything else the newest run with that label. */
export function parseRunSelector(text: string): RunSelector {
  return /^\d+$/.test(text) ? Number(text) : text;
}

export function findRun(db: Database.Database, selector: RunSelector): RunRecord | undefined {
  if (typeof selector !== 'number') return findRunOffset(db, selector === 'latest' ? {} : { label: selector }, 0);
  const row = db.prepare(`SELECT ${RUN_RECORD_SQL} FROM runs WHERE id = ?`).get(selector);
  return row === undefined ? undefined : runRecord(db, row);
}

/**
 * The run `offset` places back (0 = newest) among the runs that match: all runs, or those with a label,
 * of a suite, up to an id. For selectors like `nightly~1` (the nightly before the newest).
 * A shard run (one part of a split run) is only chosen when no whole run matches: a shard that landed in a
 * results database under the nightly label must not stand in for a whole night in a comparison or gate,
 * while `report latest` in a shard's own database still finds the shard. Likewise a run that asked nothing
 * (every item skipped before it was sent, e.g. a refused token) is chosen only when no run that asked matches:
 * it is never a night's `latest`. A confirmation (`dsbench confirm`) is a part of the run it confirms, never a night:
 * it is chosen by its id only. So is a merge still copying, or killed while it copied (a merged run is `running`
 * only then): it holds part of its shards' items.
 */
export function findRunOffset(
  db: Database.Database,
  where: { label?: string | undefined; suite?: string | undefined; atMostId?: number | undefined },
  offset: number,
): RunRecord | undefined {
  const matches = '(@label IS NULL OR label = @label) AND (@suite IS NULL OR suite_name = @suite) AND (@maxId IS NULL OR id <= @maxId)';
  const row = db
    .prepare(
      `SELECT ${RUN_RECORD_SQL} FROM runs
      WHERE ${matches} AND confirm_of IS NULL AND (shard_index IS NULL OR NOT EXISTS (SELECT 1 FROM runs WHERE ${matches} AND shard_index IS NULL))
        AND (nothing_asked = 0 OR NOT EXISTS (SELECT 1 FROM runs WHERE ${matches} AND nothing_asked = 0))
        AND NOT (group_id IS NOT NULL AND shard_index IS NULL AND status = 'running')
      ORDER BY id DESC LIMIT 1 OFFSET @offset`,
    )
    .get({ label: where.label ?? null, suite: where.suite ?? null, maxId: where.atMostId ?? null, offset });
  return row === undefined ? undefined : runRecord(db, row);
}

const RUN_HEAD = pick(RUNS, 'id', 'label', 'suiteName', 'startedAt', 'endedAt', 'status', 'nothingAsked');
const readRunHead = decoder(RUN_HEAD);

/** A run as a trend names it. `nothingAsked`: it ended having sent nothing, shown apart from the trend. */
export type RunHead = RowOf<typeof RUN_HEAD>;

/** The newest `limit` runs of a suite (up to run `through`), newest first: the runs table alone, no pass over their items. */
export function suiteRuns(db: Database.Database, suite: string, limit: number, through?: number): RunHead[] {
  return db
    .prepare(`SELECT ${selectList(RUN_HEAD)} FROM runs WHERE suite_name = @suite AND confirm_of IS NULL AND (@through IS NULL OR id <= @through) ORDER BY id DESC LIMIT @limit`)
    .all({ suite, through: through ?? null, limit })
    .map(readRunHead);
}

export interface RunSummary {
  id: number;
  label: string | null;
  suiteName: string;
  targets: string[];
  /** Some target was the embedded emulator: its answers are emulated, not an instance's. */
  emulated: boolean;
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
  items: number;
  /** Items by outcome; unfinished items count under their status (`pending`, `running`). */
  outcomes: Record<string, number>;
  /** Sum of credits over all turns; null when no turn reported any. */
  credits: number | null;
  /** Expectations checked over every item of the run. */
  checks: { passed: number; failed: number };
  /** The exit code the run's items, status and checks call for (the one verdict function of src/model/verdict.ts). */
  exitCode: ExitCode;
  /** The exit code its comparison with its `--baseline` decided (night-verdicts.ts); null when it had none. */
  comparedExit: number | null;
  split: RunSplit | null;
  /** The run `run --rerun-failed` took this one's items from. */
  rerunOf: number | null;
  /** The run whose questions this one re-asked (`dsbench confirm`). */
  confirmOf: number | null;
  /** It ended having sent nothing: every item skipped before it was sent. */
  nothingAsked: boolean;
  /** Each target's product version at the run's start. */
  productVersions: TargetProductVersion[];
}

const RUN_LISTED = pick(RUNS, 'id', 'label', 'suiteName', 'startedAt', 'endedAt', 'status', 'groupId', 'groupLabel', 'shardIndex', 'shardCount', 'partial', 'rerunOf', 'confirmOf', 'nothingAsked', 'stopReason', 'comparedExit');
const readRunListed = decoder(RUN_LISTED);

/** Newest first; optionally only the runs of one suite. */
export function listRuns(db: Database.Database, options: { limit?: number | undefined; suite?: string | undefined } = {}): RunSummary[] {
  const rows = db
    .prepare(
      `SELECT ${selectList(qualified(RUN_LISTED, 'r'))},
        (SELECT json_group_array(name) FROM (SELECT name FROM targets WHERE run_id = r.id ORDER BY rowid)) AS targets,
        (SELECT coalesce(max(max(emulated, emulator)), 0) FROM targets WHERE run_id = r.id) AS emulated,
        (SELECT count(*) FROM items WHERE run_id = r.id) AS items,
        (SELECT json_group_object(k, n) FROM
          (SELECT coalesce(outcome, status) AS k, count(*) AS n FROM items WHERE run_id = r.id GROUP BY k)) AS outcomes,
        (SELECT sum(credits) FROM turns WHERE run_id = r.id) AS credits
      FROM runs r WHERE (@suite IS NULL OR r.suite_name = @suite) ORDER BY r.id DESC LIMIT @limit`,
    )
    .all({ suite: options.suite ?? null, limit: options.limit ?? -1 }) as Array<{ targets: string; emulated: number; items: number; outcomes: string; credits: number | null }>;
  return rows.map(({ targets, emulated, items, outcomes, credits, ...columns }) => {
    const { stopReason, ...r } = withSplit(db, readRunListed(columns));
    const tally = runTally(db, r.id);
    return {
      ...r,
      targets: JSON.parse(targets) as string[],
      emulated: emulated === 1,
      items,
      outcomes: JSON.parse(outcomes) as Record<string, number>,
      credits,
      checks: tally.checks,
      exitCode: storedRunExitCode(r.status, tally, stopReason),
      productVersions: runProductVersions(db, r.id),
    };
  });
}

const TARGET_LISTED = pick(TARGETS, 'name', 'url', 'api', 'emulated', 'emulator', 'productVersion', 'productVersionError', 'productVersionOnResume');
const readTarget = decoder(TARGET_LISTED);

export interface RunTargetRow {
  name: string;
  url: string;
  api: ApiFlavour;
  /** The embedded emulator (gone with its process: a resume starts another). */
  emulated: boolean;
  /** Its answers came from a dsbench emulator, the embedded one or a standalone one. */
  servedByEmulator: boolean;
  /** Its product version at the run's start; null when unknown (`productVersionError` says why, if it was asked). */
  productVersion: string | null;
  productVersionError: string | null;
  /** Another version a resume read (the run keeps the first). */
  productVersionOnResume: string | null;
}

/** Targets of a run in the order the run listed them. */
export function runTargets(db: Database.Database, runId: number): RunTargetRow[] {
  return db
    .prepare(`SELECT ${selectList(TARGET_LISTED)} FROM targets WHERE run_id = ? ORDER BY rowid`)
    .all(runId)
    .map((row) => {
      const { emulator, ...t } = readTarget(row);
      return { ...t, servedByEmulator: t.emulated || emulator };
    });
}

/** Counts of a run's rows, for progress and preallocation. */
export function runCounts(db: Database.Database, runId: number): { items: number; turns: number; searches: number } {
  return db
    .prepare(
      `SELECT (SELECT count(*) FROM items WHERE run_id = @runId) AS items,
        (SELECT count(*) FROM turns WHERE run_id = @runId) AS turns,
        (SELECT count(*) FROM searches WHERE run_id = @runId) AS searches`,
    )
    .get({ runId }) as { items: number; turns: number; searches: number };
}

/** The exit code a stored run's verdict calls for (0: it passed), from its status and items. */
export function storedVerdict(db: Database.Database, runId: number): ExitCode {
  const row = runRow(db, runId);
  if (!row) throw new Error(`no run ${runId}`);
  return storedRunExitCode(row.status, runTally(db, runId), row.stopReason);
}
