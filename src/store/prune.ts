import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { DsbenchError, RunHeldError } from '../errors/errors.js';
import { listBaselines } from './baselines.js';
import { deleteRun } from './delete-run.js';

export interface PrunePolicy {
  /** The newest runs of each suite to keep. */
  keepLast: number;
  /** Runs with one of these labels are kept whatever their age. */
  keepLabels: readonly string[];
  /** Keep the runs blessed as baselines (`dsbench baseline bless`). */
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
  const blessed = new Set(policy.keepBlessed ? listBaselines(db).map((b) => b.runId) : []);
  const labels = new Set(policy.keepLabels);
  const seen = new Map<string, number>();
  const plan: PrunePlan = { remove: [], keep: [] };
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
