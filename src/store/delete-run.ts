import type Database from 'better-sqlite3';
import { DsbenchError, RunHeldError } from '../errors/errors.js';
import { acquireLease } from './lease.js';

/** How long a silent lease holder is presumed alive, as for a resume. */
const STALE_MS = 60_000;

/**
 * Removes a run and everything it recorded (items, turns, searches, checks, grades, quota readings, its
 * lease...: every table refers to the run with ON DELETE CASCADE). A run another live process runs or resumes
 * is refused (exit 7): its lease is taken first, as a resume would, so none can start meanwhile.
 * Returns how many items it had.
 */
export function deleteRun(db: Database.Database, runId: number): { items: number } {
  try {
    acquireLease(db, runId, { staleMs: STALE_MS });
  } catch (error) {
    if (!(error instanceof RunHeldError)) throw error;
    const h = error.holder;
    throw new DsbenchError(
      `run ${runId} is being run by another dsbench (pid ${h.pid} on host ${h.host}, since ${h.acquiredAt}): it is not deleted. Stop that process (kill ${h.pid} on ${h.host}) first, or wait for it to end`,
      error.exitCode,
      { cause: error },
    );
  }
  return db
    .transaction(() => {
      const items = db.prepare('SELECT count(*) FROM items WHERE run_id = ?').pluck().get(runId) as number;
      db.prepare('DELETE FROM runs WHERE id = ?').run(runId);
      return { items };
    })
    .immediate();
}
