import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { DsbenchError, RunHeldError } from '../errors/errors.js';
import { deleteRun } from './delete-run.js';

export interface PrunePolicy {
  /** The newest runs of each suite to keep. */
  keepLast: number;
  /** Runs with one of these labels are kept whatever their age. */
  keepLabels: readonly string[];
  /** Keep the runs a `baselines` table refers to, when the database has one. */
  keepBlessed: boolean;
}

export interface PruneRun {
  id: number;
  label: string | null;
  suiteName: string;
  startedAt: string;
  status: string;
}

export interface PrunePlan {
  remove: PruneRun[];
  keep: PruneRun[];
  /** Whether the database has a `baselines` table (asked for with keepBlessed only). */
  blessedTable: boolean;
}

export interface PruneResult {
  removed: Array<PruneRun & { items: number }>;
  /** Runs another live dsbench runs or resumes: not removed. */
  inProgress: Array<PruneRun & { reason: string }>;
}

/** Which runs a policy keeps and which it removes, newest first; nothing is changed. */
export function planPrune(db: Database.Database, policy: PrunePolicy): PrunePlan {
  const runs = db
    .prepare('SELECT id, label, suite_name AS suiteName, started_at AS startedAt, status FROM runs ORDER BY id DESC')
    .all() as PruneRun[];
  const blessedTable = policy.keepBlessed && hasTable(db, 'baselines');
  const blessed = blessedTable ? blessedRuns(db) : new Set<number>();
  const labels = new Set(policy.keepLabels);
  const seen = new Map<string, number>();
  const plan: PrunePlan = { remove: [], keep: [], blessedTable };
  for (const run of runs) {
    const rank = (seen.get(run.suiteName) ?? 0) + 1;
    seen.set(run.suiteName, rank);
    const kept = rank <= policy.keepLast || (run.label !== null && labels.has(run.label)) || blessed.has(run.id);
    (kept ? plan.keep : plan.remove).push(run);
  }
  return plan;
}

/**
 * Removes the plan's runs one at a time (each as `runs delete` does: a run another live process runs or resumes
 * is left alone and named), then compacts the file: VACUUM rewrites it without the freed pages and the WAL is
 * emptied into it, so the file shrinks on disk.
 */
export function prune(db: Database.Database, plan: PrunePlan): PruneResult {
  const result: PruneResult = { removed: [], inProgress: [] };
  for (const run of plan.remove) {
    try {
      result.removed.push({ ...run, items: deleteRun(db, run.id).items });
    } catch (error) {
      if (!(error instanceof DsbenchError && error.cause instanceof RunHeldError)) throw error;
      result.inProgress.push({ ...run, reason: error.message });
    }
  }
  if (result.removed.length > 0) {
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  return result;
}

/** Bytes of the database on disk: the file and its write-ahead log. */
export function databaseBytes(file: string): number {
  const size = (p: string) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return size(file) + size(`${file}-wal`);
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Run ids the `baselines` table refers to: its columns with a foreign key to runs, or a column named run_id
 * (the table is another feature's; this reads what refers to a run, whatever it names it).
 */
function blessedRuns(db: Database.Database): Set<number> {
  const keys = db.pragma('foreign_key_list(baselines)') as Array<{ table: string; from: string }>;
  const columns = new Set(keys.filter((k) => k.table === 'runs').map((k) => k.from));
  if (columns.size === 0) {
    const names = (db.pragma('table_info(baselines)') as Array<{ name: string }>).map((c) => c.name);
    if (names.includes('run_id')) columns.add('run_id');
  }
  const ids = new Set<number>();
  for (const column of columns) {
    const quoted = `"${column.replaceAll('"', '""')}"`;
    for (const id of db.prepare(`SELECT DISTINCT ${quoted} FROM baselines WHERE ${quoted} IS NOT NULL`).pluck().all()) ids.add(Number(id));
  }
  return ids;
}
